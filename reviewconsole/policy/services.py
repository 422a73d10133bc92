"""Writes for policy: save a new version, publish one, seed the built-ins, set the canary threshold.

Every change is an audit event ("policy.changed") with the hash before and after it, written in the
same transaction as the change.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max

from reviewconsole.audit.actions import SYSTEM, AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.policy.models import (
    ConstitutionVersion,
    DocumentVersion,
    NamedConstitution,
    Rubric,
    RubricVersion,
    VersionStatus,
)
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC, BUILTIN_RUBRIC_NAME, RubricContent
from reviewconsole.policy.versioning import canonical_content, content_sha256
from verification.constitution import Constitution, builtin, builtin_names


class PolicyRefused(Exception):
    """A policy change that cannot be made as asked (publishing a version that is not a draft)."""


def _audit(*, actor: AbstractBaseUser | str, version: DocumentVersion, change: str, before: str | None,
           **extra: Any) -> None:
    audit_record(
        actor=actor,
        action=AuditAction.POLICY_CHANGED,
        object_type=type(version).__name__,
        object_id=version.pk,
        payload={"change": change, "name": version.document.name, "version": version.number,
                 "before": before, "after": version.sha256, **extra},
    )


def _published(model: type[DocumentVersion], document: Any) -> DocumentVersion | None:
    return model.objects.filter(document=document, status=VersionStatus.PUBLISHED).first()


def _version_add(
    model: type[DocumentVersion], document: Any, *, content: dict[str, Any], author: AbstractBaseUser | None,
    note: str, status: str = VersionStatus.DRAFT, now: datetime | None = None,
) -> DocumentVersion:
    # The document row is locked so two admins saving at once get consecutive numbers, not a clash.
    type(document).objects.select_for_update().get(pk=document.pk)
    number = (model.objects.filter(document=document).aggregate(top=Max("number"))["top"] or 0) + 1
    return model.objects.create(
        document=document, number=number, content=content, sha256=content_sha256(content), status=status,
        author=author, note=note[:200], published_at=now if status == VersionStatus.PUBLISHED else None,
    )


def _draft_save(model, document, *, content: dict[str, Any], author: AbstractBaseUser, note: str,
                based_on: DocumentVersion | None) -> DocumentVersion:
    with transaction.atomic():
        before = based_on or _published(model, document)
        version = _version_add(model, document, content=content, author=author, note=note)
        _audit(actor=author, version=version, change="draft saved", before=before.sha256 if before else None,
               based_on=before.number if before else None)
        return version


def constitution_draft_save(
    *, constitution: Constitution, author: AbstractBaseUser, note: str = "",
    based_on: ConstitutionVersion | None = None,
) -> ConstitutionVersion:
    """A new draft version of `constitution.name` (the name is created when new); nothing already
    written changes, and the version in force stays in force until the draft is published."""
    with transaction.atomic():
        document, _ = NamedConstitution.objects.get_or_create(name=constitution.name)
        return _draft_save(ConstitutionVersion, document, content=canonical_content(constitution), author=author,
                           note=note, based_on=based_on)


def rubric_draft_save(
    *, name: str, rubric: RubricContent, author: AbstractBaseUser, note: str = "",
    based_on: RubricVersion | None = None,
) -> RubricVersion:
    """A new draft version of the rubric `name` (created when new)."""
    with transaction.atomic():
        document, _ = Rubric.objects.get_or_create(name=name)
        return _draft_save(RubricVersion, document, content=canonical_content(rubric), author=author, note=note,
                           based_on=based_on)


def version_publish(*, version: DocumentVersion, actor: AbstractBaseUser | str, now: datetime) -> DocumentVersion:
    """Put a draft in force: the version in force before it becomes superseded, in one transaction."""
    model = type(version)
    with transaction.atomic():
        type(version.document).objects.select_for_update().get(pk=version.document_id)
        version = model.objects.select_related("document").get(pk=version.pk)
        if version.status != VersionStatus.DRAFT:
            raise PolicyRefused(f"{version.label} is {version.get_status_display().lower()}: only a draft is published")
        previous = _published(model, version.document)
        if previous is not None:
            model.objects.filter(pk=previous.pk).update(status=VersionStatus.SUPERSEDED)
        model.objects.filter(pk=version.pk).update(status=VersionStatus.PUBLISHED, published_at=now)
        version.refresh_from_db()
        _audit(actor=actor, version=version, change="published", before=previous.sha256 if previous else None,
               superseded=previous.number if previous else None)
        return version


def rubric_threshold_set(*, rubric: Rubric, threshold: float, actor: AbstractBaseUser) -> Rubric:
    """Set the catch rate below which the canary raises a banner."""
    with transaction.atomic():
        rubric = Rubric.objects.select_for_update().get(pk=rubric.pk)
        before = content_sha256({"canary_threshold": rubric.canary_threshold})
        previous = rubric.canary_threshold
        rubric.canary_threshold = threshold
        rubric.save(update_fields=["canary_threshold"])
        audit_record(
            actor=actor, action=AuditAction.POLICY_CHANGED, object_type="Rubric", object_id=rubric.pk,
            payload={"change": "canary threshold set", "name": rubric.name, "before": before,
                     "after": content_sha256({"canary_threshold": threshold}),
                     # As text: a share reads the same in every export, whatever a JSON reader does to floats.
                     "threshold_before": f"{previous:g}", "threshold_after": f"{threshold:g}"},
        )
        return rubric


def builtins_seed(*, now: datetime) -> int:
    """Make each built-in constitution, and the built-in rubric, the published version 1 of its name
    where the database has no version of that name yet; returns how many it made. Idempotent, and two
    queries once everything is seeded."""
    made = 0
    seeded = set(
        ConstitutionVersion.objects.filter(document__name__in=builtin_names())
        .values_list("document__name", flat=True).distinct()
    )
    for name in builtin_names():
        if name not in seeded:
            made += _seed(NamedConstitution, ConstitutionVersion, name, canonical_content(builtin(name)), now)
    if not RubricVersion.objects.filter(document__name=BUILTIN_RUBRIC_NAME).exists():
        made += _seed(Rubric, RubricVersion, BUILTIN_RUBRIC_NAME, canonical_content(BUILTIN_RUBRIC), now)
    return made


def builtin_seed(name: str, *, now: datetime) -> None:
    """Seed the built-ins when `name` is one of them, so a link to a built-in works on a fresh database
    before anyone has opened a list page or submitted a case."""
    if name in builtin_names() or name == BUILTIN_RUBRIC_NAME:
        builtins_seed(now=now)


def _seed(document_model, version_model, name: str, content: dict[str, Any], now: datetime) -> int:
    try:
        with transaction.atomic():
            document, _ = document_model.objects.get_or_create(name=name)
            if version_model.objects.filter(document=document).exists():
                return 0
            version = _version_add(version_model, document, content=content, author=None,
                                   note="built-in", status=VersionStatus.PUBLISHED, now=now)
            _audit(actor=SYSTEM, version=version, change="built-in seeded", before=None)
    except IntegrityError:
        # Another request seeded the same name at the same moment: its version stands.
        return 0
    return 1
