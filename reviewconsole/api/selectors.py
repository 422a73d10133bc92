"""Reads for the API: what a client may see of its cases."""

from __future__ import annotations

from django.db.models import prefetch_related_objects
from django.urls import reverse
from django.utils import timezone

from reviewconsole.api import schemas
from reviewconsole.intake import outcomes
from reviewconsole.intake.models import Candidate, Case, CaseStatus, Client
from reviewconsole.review.models import Decision
from reviewconsole.review.selectors import case_released_answer, decision_summary
from reviewconsole.review.undo import undo_pending
from verification import DEFAULT_CONSTITUTION, Origin, Reason, Terminal
from verification import types as contract


# How the API spells each of the review app's decision kinds (the same words).
def client_case(*, client: Client, case_id: int) -> Case | None:
    """The case, if `client` submitted it: a client sees its own cases only."""
    # The pinned version's number is in the answer; its content is not.
    found = Case.objects.filter(pk=case_id, client=client).select_related("constitution_pin")
    return found.defer("constitution_pin__content").first()


def case_status(case: Case) -> schemas.CaseStatus:
    """The case as the API answers with it.

    A case still queued or running has no run record and no decision: decisions are made on the
    escalation a finished run opens. Nothing is looked up for it, so answering a submission costs no query.
    """
    if case.status in _BEFORE_THE_RUN:
        return _status(case, released_answer=None, decision=None, run_record=None)
    latest = Decision.objects.filter(case=case).select_related("candidate", "case__escalation").order_by(
        "-created_at", "-pk").first()
    if latest is not None and undo_pending(latest, timezone.now()):
        # The reviewer may still undo it (its webhook waits as long): a client polling meanwhile sees the case
        # as the run left it, so it never acts on a decision that is then taken back.
        status, final_answer = outcomes.case_as_run_left(case)
        released = final_answer if status == CaseStatus.RELEASED else None
        return _status(case, status=status, released_answer=released, decision=None, run_record=case_run_record(case))
    return _status(
        case,
        released_answer=case_released_answer(case),
        decision=schemas.Decision.model_validate(decision_summary(latest)) if latest is not None else None,
        run_record=case_run_record(case),
    )


_BEFORE_THE_RUN = {CaseStatus.QUEUED, CaseStatus.RUNNING}


def _status(
    case: Case, *, released_answer: str | None, decision: schemas.Decision | None,
    run_record: contract.RunRecord | None, status: str | None = None,
) -> schemas.CaseStatus:
    return schemas.CaseStatus(
        id=case.pk,
        external_id=case.external_id,
        status=schemas.Status(status or case.status),
        status_url=reverse("api-case", args=[case.pk]),
        terminal=Terminal(case.terminal) if case.terminal else None,
        reason=Reason(case.reason) if case.reason else None,
        released_answer=released_answer,
        # What the run used, not what the client sent: a case that named none runs under the default.
        constitution=case.constitution_name or DEFAULT_CONSTITUTION.name,
        constitution_version=case.constitution_version or None,
        constitution_version_number=case.constitution_pin.number if case.constitution_pin is not None else None,
        submitted_at=case.submitted_at,
        finished_at=case.finished_at,
        error=case.error or None,
        decision=decision,
        run_record=run_record,
    )


def case_run_record(case: Case) -> contract.RunRecord | None:
    """The engine's run record of the case, with the case's stored chain as its candidates.

    The candidate rows are the source of truth: a reviewer's edit is a row the engine's record never
    had, and a decision names it. Each version the engine made is given as the engine recorded it
    (its rows were written from that record and never change); a reviewer's version is read from its
    rows, with the claims, rule verdicts and findings its re-verification stored.
    """
    if case.run_record is None:
        return None
    record = contract.RunRecord.model_validate(case.run_record)
    recorded = {(candidate.id, candidate.sha256): candidate for candidate in record.candidates}
    rows = list(Candidate.objects.filter(case=case).select_related("parent").order_by("position"))
    added = [row for row in rows if (row.candidate_id, row.sha256) not in recorded]
    if not added:
        return record
    prefetch_related_objects(added, "claims", "rule_verdicts", "findings")
    chain = [recorded.get((row.candidate_id, row.sha256)) or _stored_candidate(row) for row in rows]
    return record.model_copy(update={"candidates": chain})


def _stored_candidate(row: Candidate) -> contract.Candidate:
    return contract.Candidate(
        id=row.candidate_id,
        parent=row.parent.candidate_id if row.parent else None,
        origin=Origin(row.origin),
        operation=row.operation or None,
        text=row.text,
        sha256=row.sha256,
        claims=[
            contract.Claim(
                id=claim.claim_id,
                text=claim.text,
                start=claim.start,
                end=claim.end,
                state=claim.state,
                severity=claim.severity,
                question=claim.question or None,
                evidence=claim.evidence,
                method=claim.method,
                confidence=claim.confidence,
                release_score=claim.release_score,
                commitments=claim.commitments,
                rationale=claim.rationale,
                model_record=claim.model_record,
            )
            for claim in row.claims.all()
        ],
        rule_verdicts=[
            contract.RuleVerdict(
                rule=verdict.rule, passed=verdict.passed, critique=verdict.critique, checked_by=verdict.checked_by,
                blocking=verdict.blocking,
            )
            for verdict in row.rule_verdicts.all()
        ],
        findings=[
            contract.Finding(claim=finding.claim, problem=finding.problem, evidence=finding.evidence)
            for finding in row.findings.all()
        ],
    )
