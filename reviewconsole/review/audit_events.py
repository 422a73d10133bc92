"""What reviewers' work puts in the audit trail: escalations, leases, decisions, verified edits, notes.

Built here because review knows what its rows mean; the audit app only appends them (`audit_record`),
inside the caller's transaction.
"""

from __future__ import annotations

from django.contrib.auth.models import User

from reviewconsole.audit.actions import ENGINE, WORKER, AuditAction
from reviewconsole.audit.services import audit_record


def escalation_opened(*, escalation) -> None:
    audit_record(
        actor=ENGINE, action=AuditAction.ESCALATION_OPENED, object_type="escalation", object_id=escalation.pk,
        case=escalation.case_id,
        payload={"reason": escalation.reason, "severity": escalation.severity, "priority": escalation.priority,
                 "spot_check": escalation.is_spot_check},
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


def decision(*, decision) -> None:
    candidate = decision.candidate
    audit_record(
        actor=decision.reviewer, action=_DECISION_ACTIONS[decision.kind], object_type="decision",
        object_id=decision.pk, case=decision.case_id,
        payload={"kind": decision.kind, "candidate": candidate.candidate_id, "sha256": candidate.sha256,
                 "parent": candidate.parent.candidate_id if candidate.parent_id else None,
                 "reason_code": decision.reason_code, "override_reason": decision.override_reason,
                 "note_chars": len(decision.note)},
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
