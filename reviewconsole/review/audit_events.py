"""What reviewers' work puts in the audit trail: escalations, leases, decisions, verified edits, notes.

Built here because review knows what its rows mean; the audit app only appends them (`audit_record`),
inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User

from reviewconsole.audit.actions import ENGINE, WORKER, AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.review.models import ClaimLabel, ClaimLabelKind


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
               "note_chars": len(decision.note), "seconds_spent": decision.seconds_spent}
    if decision.kind == "APPROVE":
        payload["overrides_labels"] = _overridden_labels(candidate, decision.reviewer_id)
    if reviews:
        payload["reviews"] = [_review_link(review) for review in reviews]
        payload["adjudicated"] = adjudicated
    audit_record(
        actor=decision.reviewer, action=_DECISION_ACTIONS[decision.kind], object_type="decision",
        object_id=decision.pk, case=decision.case_id, payload=payload,
    )


def _overridden_labels(candidate, reviewer_id: int) -> list[dict[str, str]]:
    """The claims of an approved candidate its approver labelled refuted or not in the sources: the approval
    overrode their own label, with the written reason the payload carries."""
    unsafe = ClaimLabel.objects.filter(
        claim__candidate=candidate, reviewer_id=reviewer_id,
        label__in=[ClaimLabelKind.REFUTED, ClaimLabelKind.NOT_IN_SOURCES],
    ).order_by("claim__position")
    return [{"claim": claim_id, "label": label} for claim_id, label in unsafe.values_list("claim__claim_id", "label")]


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
                 "note_chars": len(review.note), "seconds_spent": review.seconds_spent, "review": number,
                 "of": required,
                 "assignment_done": assignment_done,
                 "overrides_labels": (
                     _overridden_labels(candidate, review.reviewer_id) if review.kind == "APPROVE" else []
                 )},
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


def skipped(*, escalation, reviewer: User, released: bool, until) -> None:
    """A reviewer skipped the case: back in the queue (`released` when they held it), not served to them
    again before `until`."""
    audit_record(
        actor=reviewer, action=AuditAction.ESCALATION_SKIPPED, object_type="escalation", object_id=escalation.pk,
        case=escalation.case_id, payload={"released": released, "until": until},
    )


def returned(*, escalation, lead: User, holder: User | None, assignee: User | None) -> None:
    """A review lead put the case back in the open queue: `holder` lost their lease, `assignee` the assignment."""
    audit_record(
        actor=lead, action=AuditAction.ESCALATION_RETURNED, object_type="escalation", object_id=escalation.pk,
        case=escalation.case_id,
        payload={"holder": holder.get_username() if holder is not None else None,
                 "assignee": assignee.get_username() if assignee is not None else None},
    )


def queue_filter_saved(*, saved_filter, replaced: bool) -> None:
    audit_record(
        actor=saved_filter.owner, action=AuditAction.QUEUE_FILTER_SAVED, object_type="queue_filter",
        object_id=saved_filter.pk,
        payload={"name": saved_filter.name, "query": saved_filter.query, "replaced": replaced},
    )


def queue_filter_deleted(*, saved_filter, owner: User) -> None:
    audit_record(
        actor=owner, action=AuditAction.QUEUE_FILTER_DELETED, object_type="queue_filter",
        object_id=saved_filter.pk, payload={"name": saved_filter.name, "query": saved_filter.query},
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


# Comments on claims, and undoing a label or a decision: each its own event; the one undone stays in the log.


def claim_commented(*, comment) -> None:
    """The comment's text is in the event: the case's audit trail shows what later reviewers were told."""
    claim = comment.claim
    audit_record(
        actor=comment.author, action=AuditAction.CLAIM_COMMENTED, object_type="claim", object_id=claim.pk,
        case=comment.case_id,
        payload={"candidate": claim.candidate.candidate_id, "claim": claim.claim_id, "comment": comment.pk,
                 "text": comment.text},
    )


def label_undone(*, label, reviewer: User, undone: str, restored: str | None) -> None:
    """`undone` is the label taken back; `restored` the one it had replaced (None: the claim is unlabelled)."""
    claim = label.claim
    audit_record(
        actor=reviewer, action=AuditAction.CLAIM_LABEL_UNDONE, object_type="claim", object_id=claim.pk,
        case=label.case_id,
        payload={"candidate": claim.candidate.candidate_id, "claim": claim.claim_id, "undone": undone,
                 "restored": restored},
    )


def decision_undone(*, decision, reviewer: User, seconds_after: int) -> None:
    """The decision (its row is gone; its own event stays) and how long after it the undo came."""
    audit_record(
        actor=reviewer, action=AuditAction.DECISION_UNDONE, object_type="decision", object_id=decision.pk,
        case=decision.case_id,
        payload={"kind": decision.kind, "candidate": decision.candidate.candidate_id,
                 "decided_at": decision.created_at, "seconds_after": seconds_after},
    )
