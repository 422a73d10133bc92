"""What reviewers' work puts in the audit trail: escalations, leases, decisions, verified edits, notes.

Built here because review knows what its rows mean; the audit app only appends them (`audit_record`),
inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User

from reviewconsole.audit.actions import ENGINE, WORKER, AuditAction
from reviewconsole.audit.services import audit_record


def escalation_opened(*, escalation) -> None:
    audit_record(
        actor=ENGINE, action=AuditAction.ESCALATION_OPENED, object_type="escalation", object_id=escalation.pk,
        case=escalation.case_id,
        payload={"reason": escalation.reason, "severity": escalation.severity, "priority": escalation.priority,
                 "spot_check": escalation.is_spot_check, "reviews_required": escalation.reviews_required},
    )


def lease(*, escalation, reviewer: User, claimed: bool) -> None:
    audit_record(
        actor=reviewer, action=AuditAction.LEASE_CLAIMED if claimed else AuditAction.LEASE_RELEASED,
        object_type="escalation", object_id=escalation.pk, case=escalation.case_id,
        payload={"until": escalation.lease_expires_at if claimed else None},
    )


_DECISION_ACTIONS = {
    "APPROVE": AuditAction.DECISION_APPROVED,
    "EDIT": AuditAction.DECISION_EDITED,
    "REJECT": AuditAction.DECISION_REJECTED,
}


def decision(*, decision, reviews: Sequence = (), adjudicated: bool = False) -> None:
    """A decision; `reviews` are the independent reviews behind it (double review), `adjudicated` when a
    review lead settled their disagreement."""
    candidate = decision.candidate
    payload = {"kind": decision.kind, "candidate": candidate.candidate_id, "sha256": candidate.sha256,
               "parent": candidate.parent.candidate_id if candidate.parent_id else None,
               "reason_code": decision.reason_code, "override_reason": decision.override_reason,
               "note_chars": len(decision.note)}
    if reviews:
        payload["reviews"] = [_review_link(review) for review in reviews]
        payload["adjudicated"] = adjudicated
    audit_record(
        actor=decision.reviewer, action=_DECISION_ACTIONS[decision.kind], object_type="decision",
        object_id=decision.pk, case=decision.case_id, payload=payload,
    )


# Double review and assignment. Actions in the "escalation." family, so the audit search's
# "escalation.*" filter finds them with the rest of a case's way through the queue.
REVIEW_RECORDED = AuditAction.ESCALATION_REVIEWED
ADJUDICATION_OPENED = AuditAction.ADJUDICATION_OPENED
ASSIGNED = AuditAction.ESCALATION_ASSIGNED
UNASSIGNED = AuditAction.ESCALATION_UNASSIGNED


def _review_link(review) -> dict[str, object]:
    return {"id": review.pk, "reviewer": review.reviewer.get_username(), "kind": review.kind,
            "candidate": review.candidate.candidate_id}


def review_recorded(*, review, number: int, required: int, assignment_done: bool) -> None:
    """One reviewer's independent review of a double-reviewed case (`number` of `required`);
    `assignment_done` when the case was assigned to this reviewer, and so is no longer."""
    candidate = review.candidate
    audit_record(
        actor=review.reviewer, action=REVIEW_RECORDED, object_type="review", object_id=review.pk,
        case=review.escalation.case_id,
        payload={"kind": review.kind, "candidate": candidate.candidate_id, "sha256": candidate.sha256,
                 "reason_code": review.reason_code, "override_reason": review.override_reason,
                 "note_chars": len(review.note), "review": number, "of": required,
                 "assignment_done": assignment_done},
    )


def adjudication_opened(*, escalation, reviews: Sequence, actor: User) -> None:
    """The independent reviews disagree: the case leaves the queue for a review lead."""
    audit_record(
        actor=actor, action=ADJUDICATION_OPENED, object_type="escalation", object_id=escalation.pk,
        case=escalation.case_id, payload={"reviews": [_review_link(review) for review in reviews]},
    )


def assignment(*, escalation, lead: User, assignee: User | None, previous: User | None) -> None:
    """A review lead gave the case to a reviewer (`assignee`), or took it back (None)."""
    audit_record(
        actor=lead, action=ASSIGNED if assignee is not None else UNASSIGNED, object_type="escalation",
        object_id=escalation.pk, case=escalation.case_id,
        payload={"assignee": assignee.get_username() if assignee is not None else None,
                 "previous": previous.get_username() if previous is not None else None},
    )


def edit_verified(*, verification) -> None:
    audit_record(
        actor=WORKER, action=AuditAction.EDIT_VERIFIED, object_type="candidate",
        object_id=verification.candidate.candidate_id, case=verification.candidate.case_id,
        payload={"status": verification.status, "terminal": verification.terminal, "reason": verification.reason},
    )


def note_added(*, note) -> None:
    audit_record(actor=note.author, action=AuditAction.NOTE_ADDED, object_type="case_note", object_id=note.pk,
                 case=note.case_id, payload={"chars": len(note.text)})


def claim_labelled(*, label, previous: str | None) -> None:
    """A reviewer's label of a claim; `previous` is the label it replaced (None for a first label)."""
    claim = label.claim
    audit_record(
        actor=label.reviewer, action=AuditAction.CLAIM_LABELLED, object_type="claim", object_id=claim.pk,
        case=label.case_id,
        payload={"candidate": claim.candidate.candidate_id, "claim": claim.claim_id, "label": label.label,
                 "previous": previous, "blind": label.blind, "engine_state": claim.state},
    )
