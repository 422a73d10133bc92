"""Writes for policy: save a new version, publish one, set the canary threshold, sync the built-ins.

Every change is an audit event ("policy.changed") with the hash before and after it, written in the
same transaction as the change.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from reviewconsole import stamps
from reviewconsole.audit.actions import SYSTEM, AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.policy.builtins import BUILTIN_NOTE, BuiltinDocument, builtin_documents
from reviewconsole.policy.models import (
    AnyVersion,
    ConstitutionVersion,
    NamedConstitution,
    Rubric,
    RubricVersion,
    VersionStatus,
)
from reviewconsole.policy.rubrics import RubricContent
from reviewconsole.policy.versioning import canonical_content, content_sha256
from verification import Constitution


class PolicyRefused(Exception):
    """A policy change that cannot be made as asked (publishing a version that is not a draft)."""


class FieldRefused(Exception):
    """A change refused because of one input; `field` names it, `message` says what is wrong with it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _audit(*, actor: User | str, version: ConstitutionVersion | RubricVersion, change: str, before: str | None,
           **extra: Any) -> None:
    audit_record(
        actor=actor,
        action=AuditAction.POLICY_CHANGED,
        object_type=type(version).__name__,
        object_id=version.pk,
        payload={"change": change, "name": version.document.name, "version": version.number,
                 "before": before, "after": version.sha256, **extra},
    )


# The helpers below handle both kinds of document alike: a version's query names its document by id
# (`document_id`), which reads the same for either kind.
Document = NamedConstitution | Rubric


def _published(model: type[AnyVersion], document: Document) -> AnyVersion | None:
    return model.objects.filter(document_id=document.pk, status=VersionStatus.PUBLISHED).first()


def _version_add(
    model: type[AnyVersion], document: Document, *, content: dict[str, Any], author: User | None,
    note: str, status: str = VersionStatus.DRAFT, now: datetime | None = None,
) -> AnyVersion:
    # The document row is locked so two admins saving at once get consecutive numbers, not a clash.
    type(document).objects.select_for_update().get(pk=document.pk)
    number = (model.objects.filter(document_id=document.pk).aggregate(top=Max("number"))["top"] or 0) + 1
    if status == VersionStatus.PUBLISHED:
        stamps.CONFIGURATION.renew_on_commit()  # a version in force from the start (see version_publish)
    return model.objects.create(
        document_id=document.pk, number=number, content=content, sha256=content_sha256(content), status=status,
        author=author, note=note[:200], published_at=now if status == VersionStatus.PUBLISHED else None,
    )


def _draft_save(model: type[AnyVersion], document: Document, *, content: dict[str, Any], author: User | None,
                note: str, based_on: AnyVersion | None) -> AnyVersion:
    with transaction.atomic():
        before = based_on or _published(model, document)
        version = _version_add(model, document, content=content, author=author, note=note)
        _audit(actor=author or SYSTEM, version=version, change="draft saved", before=before.sha256 if before else None,
               based_on=before.number if before else None)
        return version


def constitution_draft_save(
    *, constitution: Constitution, author: User | None, note: str = "",
    based_on: ConstitutionVersion | None = None,
) -> ConstitutionVersion:
    """A new draft version of `constitution.name` (the name is created when new); nothing already
    written changes, and the version in force stays in force until the draft is published. Without an
    author, the console saved it by itself (a calibration a constitution publishes on its own)."""
    with transaction.atomic():
        document, _ = NamedConstitution.objects.get_or_create(name=constitution.name)
        return _draft_save(ConstitutionVersion, document, content=canonical_content(constitution), author=author,
                           note=note, based_on=based_on)


def rubric_draft_save(
    *, name: str, rubric: RubricContent, author: User, note: str = "",
    based_on: RubricVersion | None = None,
) -> RubricVersion:
    """A new draft version of the rubric `name` (created when new)."""
    with transaction.atomic():
        document, _ = Rubric.objects.get_or_create(name=name)
        return _draft_save(RubricVersion, document, content=canonical_content(rubric), author=author, note=note,
                           based_on=based_on)


def version_publish(*, version: AnyVersion, actor: User | str, now: datetime) -> AnyVersion:
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
        # Web processes keep the version in force of each name: the next submission must pin this one.
        stamps.CONFIGURATION.renew_on_commit()
        version.refresh_from_db()
        _audit(actor=actor, version=version, change="published", before=previous.sha256 if previous else None,
               superseded=previous.number if previous else None)
        return version


def rubric_threshold_set(*, rubric: Rubric, threshold: float, actor: User) -> Rubric:
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


def builtins_sync(*, now: datetime) -> list[str]:
    """Bring this release's built-ins into the database after an upgrade; one line per built-in says
    what it did.

    A built-in with no version yet is published as version 1. One whose content no stored version has
    (the engine changed it) becomes a new draft: what is in force stays in force until a policy admin
    publishes the draft, as for any edit. Nothing changes when a version already holds the content, so
    running it again is harmless. Every version written is an audit event.
    """
    lines = []
    for builtin in builtin_documents():
        if builtin.kind == "constitution":
            lines.append(_builtin_sync(builtin, NamedConstitution, ConstitutionVersion, now=now))
        else:
            lines.append(_builtin_sync(builtin, Rubric, RubricVersion, now=now))
    return lines


def _builtin_sync(
    builtin: BuiltinDocument, document_model: type[Document], version_model: type[AnyVersion], *, now: datetime
) -> str:
    with transaction.atomic():
        document, _ = document_model.objects.get_or_create(name=builtin.name)
        # Locked before looking, so two syncs at once cannot both add the same draft.
        type(document).objects.select_for_update().get(pk=document.pk)
        same = (
            version_model.objects.filter(document_id=document.pk, sha256=builtin.sha256).order_by("number").first()
        )
        if same is not None:
            return f"{builtin.name}: up to date (v{same.number} holds this release's built-in)"
        in_force = _published(version_model, document)
        first = not version_model.objects.filter(document_id=document.pk).exists()
        version = _version_add(
            version_model, document, content=builtin.content, author=None, note=BUILTIN_NOTE, now=now,
            status=VersionStatus.PUBLISHED if first else VersionStatus.DRAFT,
        )
        _audit(actor=SYSTEM, version=version, change="built-in seeded" if first else "built-in updated",
               before=in_force.sha256 if in_force else None)
    if first:
        return f"{builtin.name}: v1 published"
    return f"{builtin.name}: the built-in changed, saved as draft v{version.number}; publish it to put it in force"
