"""What each recorded step says: small payloads (ids, hashes, states, reasons) built from what changed.

The other apps call these one-liners inside their own transactions, so the shape of every event lives
in one place and their services stay about their own work.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from reviewconsole.audit.actions import ENGINE, WORKER, AuditAction, client_actor
from reviewconsole.audit.services import audit_record
from reviewconsole.intake.models import Case, Source
from verification import RunRecord


def case_received(*, case: Case, sources: list[Source]) -> None:
    audit_record(
        actor=client_actor(case.client.name),
        action=AuditAction.CASE_RECEIVED,
        object_type="case",
        object_id=case.pk,
        case=case,
        payload={
            "client": case.client.name,
            "external_id": case.external_id,
            "constitution": case.constitution_name,
            "constitution_version": case.constitution_version,
            "sources": {source.source_id: source.sha256 for source in sources},
        },
    )


def run_stored(*, case: Case, record: RunRecord) -> None:
    """The engine's chain: each candidate, its verdicts, each repair, then where the run ended."""
    for candidate in record.candidates:
        audit_record(
            actor=ENGINE, action=AuditAction.CANDIDATE_CREATED, object_type="candidate", object_id=candidate.id,
            case=case,
            payload={"parent": candidate.parent, "origin": candidate.origin.value,
                     "operation": candidate.operation, "sha256": candidate.sha256},
        )
        audit_record(
            actor=ENGINE, action=AuditAction.CLAIMS_VERIFIED, object_type="candidate", object_id=candidate.id,
            case=case,
            payload={
                "claims": {claim.id: claim.state.value for claim in candidate.claims},
                "rules": {verdict.rule: verdict.passed for verdict in candidate.rule_verdicts},
            },
        )
    for index, repair in enumerate(record.repairs):
        audit_record(
            actor=ENGINE, action=AuditAction.REPAIR_ATTEMPTED, object_type="repair", object_id=f"{case.pk}:{index}",
            case=case,
            payload={"from": repair.from_, "to": repair.to, "operation": repair.operation,
                     "outcome": repair.outcome, "supported_removed": repair.supported_removed,
                     "failure": repair.failure[:500]},
        )
    audit_record(
        actor=ENGINE, action=AuditAction.CASE_TERMINAL, object_type="case", object_id=case.pk, case=case,
        payload={"terminal": record.terminal.value, "reason": record.reason.value,
                 "final_sha256": record.candidates[-1].sha256 if record.candidates else None,
                 "verifier": record.verifier},
    )


def case_failed(*, case_id: int, error: str) -> None:
    audit_record(actor=WORKER, action=AuditAction.CASE_FAILED, object_type="case", object_id=case_id, case=case_id,
                 payload={"error": error[:500]})


def escalation_opened(*, escalation) -> None:
    audit_record(
        actor=ENGINE, action=AuditAction.ESCALATION_OPENED, object_type="escalation", object_id=escalation.pk,
        case=escalation.case_id,
        payload={"reason": escalation.reason, "severity": escalation.severity, "priority": escalation.priority,
                 "spot_check": escalation.is_spot_check},
    )


def lease(*, escalation, reviewer: AbstractBaseUser, claimed: bool) -> None:
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
