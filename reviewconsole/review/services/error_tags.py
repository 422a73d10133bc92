"""Tagging a kind of error on a claim or an answer, by whoever may label the case now (labels.may_label):
the same kind tagged again takes the tag away. Audited (`error.tagged`, `error.untagged`)."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.audit.actions import AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.intake.models import Candidate, Claim
from reviewconsole.review import labels
from reviewconsole.review.error_tags import case_taxonomy
from reviewconsole.review.models import ErrorTag, Escalation


class TagRefused(Exception):
    """A tag that was not changed; `status_code` 400 for what was sent, 409 for the case's state."""

    def __init__(self, message: str, *, status_code: int = 409):
        super().__init__(message)
        self.status_code = status_code


def error_tag_toggle(*, escalation: Escalation, candidate: Candidate, claim: Claim | None, kind: str,
                     reviewer: User, now: datetime) -> ErrorTag | None:
    """Tag `kind` on `claim` (None: the whole answer `candidate`), or take the reviewer's tag away if it is
    there; the tag made, or None when one was taken away."""
    with transaction.atomic():
        # The same lock as a label's: no tag on a case someone else has just taken.
        locked = Escalation.objects.select_for_update(of=("self",)).select_related(
            "case__constitution_pin").get(pk=escalation.pk)
        if candidate.case_id != locked.case_id or (claim is not None and claim.candidate_id != candidate.pk):
            raise TagRefused(f"That version or claim does not belong to case {locked.case_id}.", status_code=400)
        taxonomy = {choice.code: choice.label for choice in case_taxonomy(locked.case)}
        if kind not in taxonomy:
            raise TagRefused(f"kind: {kind!r} is not a kind of error of this case's constitution; "
                             f"choose one of: {', '.join(taxonomy)}.", status_code=400)
        if not labels.may_label(locked, reviewer, now):
            raise TagRefused("Claim this case first: tagging errors is for the reviewer who holds it.")
        existing = ErrorTag.objects.filter(candidate=candidate, claim=claim, reviewer=reviewer, kind=kind).first()
        where = {"candidate": candidate.candidate_id, "claim": claim.claim_id if claim is not None else None,
                 "kind": kind, "label": taxonomy[kind]}
        if existing is not None:
            tag_id = existing.pk
            existing.delete()
            audit_record(actor=reviewer, action=AuditAction.ERROR_UNTAGGED, object_type="error_tag",
                         object_id=tag_id, case=locked.case_id, payload=where)
            return None
        tag = ErrorTag.objects.create(case_id=locked.case_id, candidate=candidate, claim=claim, kind=kind,
                                      kind_label=taxonomy[kind], reviewer=reviewer)
        audit_record(actor=reviewer, action=AuditAction.ERROR_TAGGED, object_type="error_tag", object_id=tag.pk,
                     case=locked.case_id, payload=where)
        return tag
