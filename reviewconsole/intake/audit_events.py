"""What intake's steps put in the audit trail: a case received, the run's chain, a run that failed.

Small payloads (ids, hashes, states, reasons), built here because intake knows what its rows mean; the
audit app only appends them (`audit_record`), inside the caller's transaction.
"""

from __future__ import annotations

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
