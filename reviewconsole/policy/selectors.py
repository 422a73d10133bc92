"""Reads for policy pages: documents and their versions, the version in force, calibration history."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404

from reviewconsole.policy.models import (
    CalibrationRun,
    CalibrationStatus,
    CalibrationTrigger,
    ConstitutionVersion,
    NamedConstitution,
    Rubric,
    RubricVersion,
    VersionStatus,
)
from verification import describe_release as describe


def constitution_in_force(name: str) -> ConstitutionVersion | None:
    """The published version of the named constitution, or None when the database has none."""
    return (
        ConstitutionVersion.objects.select_related("document")
        .filter(document__name=name, status=VersionStatus.PUBLISHED)
        .first()
    )


def release_calibration_text(version: ConstitutionVersion) -> str:
    """The version's own release calibration in one line; empty when the verifier's built-in one applies."""
    calibration = version.constitution().policy.release_calibration
    return describe(calibration) if calibration is not None else ""


def rubric_in_force(rubric: Rubric) -> RubricVersion | None:
    published = RubricVersion.objects.filter(document=rubric, status=VersionStatus.PUBLISHED)
    return published.select_related("document").first()


def critic_rubric_version_for(constitution_name: str) -> RubricVersion | None:
    """The critic rubric version in force for cases judged under `constitution_name`.

    A rubric names the constitution it judges under; when several published rubrics do, the one
    published last is in force.
    """
    published = RubricVersion.objects.filter(
        status=VersionStatus.PUBLISHED, content__constitution=constitution_name
    ).order_by("-published_at", "-pk")
    return published.select_related("document").first()


def critic_rubric_for(constitution_name: str) -> str | None:
    """The instructions the model critic reads for cases judged under `constitution_name`; None leaves
    the engine's built-in rubric."""
    version = critic_rubric_version_for(constitution_name)
    return version.content.get("instructions") if version is not None else None


@dataclass(frozen=True)
class DocumentRow:
    """One line of a list page: a document, its version in force and how many drafts wait."""

    document: NamedConstitution | Rubric
    in_force: ConstitutionVersion | RubricVersion | None
    drafts: int
    versions: int


def _rows(documents: QuerySet, version_model) -> list[DocumentRow]:
    documents = documents.annotate(
        drafts=Count("versions", filter=Q(versions__status=VersionStatus.DRAFT)), version_count=Count("versions")
    )
    in_force = {
        version.document_id: version
        for version in version_model.objects.filter(status=VersionStatus.PUBLISHED).select_related("document")
    }
    return [DocumentRow(doc, in_force.get(doc.pk), doc.drafts, doc.version_count) for doc in documents]


def constitution_rows() -> list[DocumentRow]:
    return _rows(NamedConstitution.objects.all(), ConstitutionVersion)


def rubric_rows() -> list[DocumentRow]:
    return _rows(Rubric.objects.all(), RubricVersion)


def constitution_names() -> list[str]:
    published = NamedConstitution.objects.filter(versions__status=VersionStatus.PUBLISHED)
    return list(published.values_list("name", flat=True))


def constitution_version_get(name: str, number: int) -> ConstitutionVersion:
    queryset = ConstitutionVersion.objects.select_related("document", "author")
    return get_object_or_404(queryset, document__name=name, number=number)


def rubric_version_get(name: str, number: int) -> RubricVersion:
    return get_object_or_404(RubricVersion.objects.select_related("document", "author"), document__name=name,
                             number=number)


def versions_of(document: NamedConstitution | Rubric) -> QuerySet:
    return document.versions.select_related("author").order_by("-number")


def calibration_history(rubric: Rubric, *, limit: int = 50) -> QuerySet[CalibrationRun]:
    return (
        CalibrationRun.objects.filter(rubric_version__document=rubric)
        .select_related("rubric_version", "requested_by")
        .order_by("-created_at", "-pk")[:limit]
    )


def calibration_run_get(run_id: int) -> CalibrationRun:
    return get_object_or_404(CalibrationRun.objects.select_related("rubric_version__document"), pk=run_id)


@dataclass(frozen=True)
class CanaryAlert:
    rubric: Rubric
    run: CalibrationRun


def canary_alerts() -> list[CanaryAlert]:
    """Rubrics whose latest finished canary caught less than the threshold their admins set, or failed:
    a critic that cannot run catches nothing either."""
    alerts = []
    for rubric in Rubric.objects.all():
        latest = (
            CalibrationRun.objects.filter(
                rubric_version__document=rubric, trigger=CalibrationTrigger.CANARY,
                status__in=(CalibrationStatus.DONE, CalibrationStatus.FAILED),
            )
            .select_related("rubric_version")
            .order_by("-finished_at", "-pk")
            .first()
        )
        if latest is None:
            continue
        if latest.status == CalibrationStatus.FAILED or (latest.catch_rate or 0.0) < rubric.canary_threshold:
            alerts.append(CanaryAlert(rubric, latest))
    return alerts
