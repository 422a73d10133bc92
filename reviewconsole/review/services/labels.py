"""Labelling a claim, and taking a label back within the undo window (review/labels.py says what a label is
and who may set one). Audited, each change as its own event."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.intake.models import Claim
from reviewconsole.review import audit_events, labels
from reviewconsole.review.models import ClaimLabel, ClaimLabelKind, Escalation
from reviewconsole.review.signals import spot_check_labelled


class LabelRefused(Exception):
    """A label that cannot be stored as asked; nothing was written. `field` names the input at fault."""

    def __init__(self, message: str, *, status_code: int = 409, field: str | None = None):
        super().__init__(message)
        self.status_code = status_code
        self.field = field


def label_value_error(label: str) -> str | None:
    """Why `label` is not a label a reviewer can choose, naming the field; None when it is one."""
    if label in ClaimLabelKind.values:
        return None
    choices = ", ".join(f"{kind.value} ({kind.label})" for kind in ClaimLabelKind)
    return f"label: choose one of {choices}"


def claim_label_set(
    *, escalation: Escalation, claim: Claim, reviewer: User, label: str, blind: bool, now: datetime
) -> ClaimLabel:
    """Store the reviewer's label of a claim of this case (replacing theirs, if any) and audit it.

    Refused, with nothing written, for a claim of another case, a case no longer open for review, or a
    reviewer who does not hold the case's lease. Labelling a claim again with the same label changes
    nothing, so a blind label is not turned into a sighted one by pressing its key twice.
    """
    problem = label_value_error(label)
    if problem:
        raise LabelRefused(problem, status_code=400, field="label")
    with transaction.atomic():
        # The escalation's row lock orders a label against a decision or a lease change on the same case.
        locked = Escalation.objects.select_for_update(of=("self",)).get(pk=escalation.pk)
        if claim.candidate.case_id != locked.case_id:
            raise LabelRefused(f"That claim belongs to case {claim.candidate.case_id}, not to case {locked.case_id}.")
        refusal = labels.label_refusal(locked, reviewer, now)
        if refusal:
            raise LabelRefused(refusal)
        existing = ClaimLabel.objects.select_for_update().filter(claim=claim, reviewer=reviewer).first()
        if existing is not None and existing.label == label:
            return existing
        previous = existing.label if existing is not None else None
        if existing is None:
            stored = ClaimLabel.objects.create(
                claim=claim, case_id=locked.case_id, reviewer=reviewer, label=label, blind=blind, undo_open=True
            )
        else:
            existing.previous_label, existing.undo_open = existing.label, True
            existing.label, existing.blind = label, blind
            existing.save(update_fields=["label", "blind", "previous_label", "undo_open", "updated_at"])
            stored = existing
        audit_events.claim_labelled(label=stored, previous=previous)
        if locked.is_spot_check:
            spot_check_labelled.send(sender=Escalation, escalation=locked, now=now)
        return stored


def claim_label_undo(*, escalation: Escalation, claim: Claim, reviewer: User, now: datetime) -> ClaimLabel | None:
    """Take back the reviewer's last change to the claim's label, within the undo window: the label it
    replaced comes back, or (for a first label) the claim is unlabelled again (None). Audited as its own
    event; the label's own event stays in the log. Refused after the window, once the case is decided,
    or when the undo would hide again the verdicts of a blind spot check the reviewer has seen.
    """
    with transaction.atomic():
        locked = Escalation.objects.select_for_update(of=("self",)).get(pk=escalation.pk)
        refusal = labels.label_refusal(locked, reviewer, now)
        if refusal:
            raise LabelRefused(refusal)
        stored = ClaimLabel.objects.select_for_update().filter(claim=claim, reviewer=reviewer).first()
        if stored is None or not stored.undo_open or claim.candidate.case_id != locked.case_id:
            raise LabelRefused("There is no label change of yours on this claim to undo.")
        if now >= stored.updated_at + timedelta(seconds=settings.REVIEW_UNDO_SECONDS):
            raise LabelRefused(f"The undo window ({settings.REVIEW_UNDO_SECONDS} seconds) has passed: "
                               "choose another label instead.")
        if (not stored.previous_label and labels.escalation_blind_remaining(locked, reviewer) == 0
                and labels.reviewed_blind(locked)):
            raise LabelRefused("The engine's verdicts are shown now, so this blind label cannot be taken back: "
                               "choose another label instead.")
        undone, restored = stored.label, stored.previous_label or None
        if restored is None:
            audit_events.label_undone(label=stored, reviewer=reviewer, undone=undone, restored=None)
            stored.delete()
            return None
        stored.label, stored.previous_label, stored.undo_open = restored, "", False
        stored.save(update_fields=["label", "previous_label", "undo_open", "updated_at"])
        audit_events.label_undone(label=stored, reviewer=reviewer, undone=undone, restored=restored)
        return stored
