"""Reads for the API: what a client may see of its cases."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet, prefetch_related_objects
from django.urls import reverse
from django.utils import timezone

from reviewconsole.api import schemas
from reviewconsole.intake import outcomes
from reviewconsole.intake.models import Candidate, Case, CaseStatus, Client
from reviewconsole.review.models import Decision
from reviewconsole.review.selectors import case_released_answer, decision_summary
from reviewconsole.review.undo import decision_shown_at, undo_pending, undo_window
from verification import DEFAULT_CONSTITUTION, Origin, Reason, Terminal
from verification import types as contract


def client_case(*, client: Client, case_id: int) -> Case | None:
    """The case, if `client` submitted it: a client sees its own cases only."""
    # The pinned version's number is in the answer; its content is not.
    found = Case.objects.filter(pk=case_id, client=client).select_related("constitution_pin")
    return found.defer("constitution_pin__content").first()


@dataclass(frozen=True)
class CasesFound:
    """One page of a client's cases, and the id the next page starts below (None on the last page)."""

    cases: list[schemas.CaseSummary]
    next_before: int | None


def client_cases(*, client: Client, query: schemas.CaseListQuery, before: int | None) -> CasesFound:
    """`client`'s cases matching `query`, newest first, from below the id `before`.

    The filters read what the API shows: a decision the reviewer may still undo is not shown yet, so its
    case is listed (and filtered) as its run left it, and its `updated_at` moves when the decision shows.
    """
    found = Case.objects.filter(client=client)
    now = timezone.now()
    # Decided recently enough that the client may not have seen the decision yet (its undo window).
    recently_decided = Decision.objects.filter(created_at__gte=now - undo_window()).values("case_id")
    if query.status:
        wanted = Q(status__in=[status.value for status in query.status])
        if CaseStatus.ESCALATED in query.status:
            wanted |= Q(pk__in=recently_decided)
        found = found.filter(wanted)
    if query.terminal:
        found = found.filter(terminal__in=[terminal.value for terminal in query.terminal])
    if query.constitution is not None:
        # A case that named no constitution runs under the default, and is listed as running under it.
        names = {query.constitution} | ({""} if query.constitution == DEFAULT_CONSTITUTION.name else set())
        found = found.filter(constitution_name__in=names)
    if query.external_id is not None:
        found = found.filter(external_id=query.external_id)
    if query.updated_since is not None:
        shown_since = Decision.objects.filter(created_at__gte=query.updated_since - undo_window()).values("case_id")
        found = found.filter(Q(updated_at__gte=query.updated_since) | Q(pk__in=shown_since))
    if before is not None:
        found = found.filter(pk__lt=before)
    rows = list(
        found.select_related("constitution_pin").defer("constitution_pin__content", "run_record", "question", "answer",
                                                       "metadata").order_by("-pk")[: query.limit + 1]
    )
    more = len(rows) > query.limit
    rows = rows[: query.limit]
    # Every decision of the page's cases in one query, rather than one or two a case.
    decisions: dict[int, list[Decision]] = defaultdict(list)
    for decision in _decisions_newest_first(Decision.objects.filter(case__in=rows)):
        decisions[decision.case_id].append(decision)
    summaries = [case_summary(case, now=now, decisions=decisions[case.pk]) for case in rows]
    # Listed as shown: a case whose decision is not shown yet may no longer match the status asked for.
    if query.status:
        summaries = [summary for summary in summaries if summary.status in query.status]
    if query.updated_since is not None:
        summaries = [summary for summary in summaries if summary.updated_at >= query.updated_since]
    return CasesFound(summaries, rows[-1].pk if more else None)


def case_status(case: Case) -> schemas.CaseStatus:
    """The case as the API answers with it: its summary and its run record."""
    summary = case_summary(case, now=timezone.now())
    run_record = None if case.status in _BEFORE_THE_RUN else case_run_record(case)
    return schemas.CaseStatus(**dict(summary), run_record=run_record)


def case_summary(case: Case, *, now: datetime, decisions: list[Decision] | None = None) -> schemas.CaseSummary:
    """The case as the API shows it, without its run record; `decisions`, its decisions newest first, when the
    caller has read them (`_decisions_newest_first`).

    A case still queued or running has no decision: decisions are made on the escalation a finished run
    opens. Nothing is looked up for it, so answering a submission costs no query.
    """
    if case.status in _BEFORE_THE_RUN:
        return _summary(case, released_answer=None, decision=None, updated_at=case.updated_at)
    if decisions is None:
        latest = _decisions_newest_first(Decision.objects.filter(case=case)).first()
    else:
        latest = decisions[0] if decisions else None
    if latest is not None and undo_pending(latest, now):
        # The reviewer may still undo it (its webhook waits as long): a client polling meanwhile sees the case
        # as the run left it, so it never acts on a decision that is then taken back.
        status, final_answer = outcomes.case_as_run_left(case)
        released = final_answer if status == CaseStatus.RELEASED else None
        unchanged_since = case.finished_at or case.submitted_at
        return _summary(case, status=status, released_answer=released, decision=None, updated_at=unchanged_since)
    updated_at = max(case.updated_at, decision_shown_at(latest)) if latest is not None else case.updated_at
    return _summary(
        case,
        released_answer=case_released_answer(case, decisions),
        decision=schemas.Decision.model_validate(decision_summary(latest)) if latest is not None else None,
        updated_at=updated_at,
    )


_BEFORE_THE_RUN = {CaseStatus.QUEUED, CaseStatus.RUNNING}


def _decisions_newest_first(decisions: QuerySet[Decision]) -> QuerySet[Decision]:
    # With what a summary reads of them: the candidate decided on, and whether the case has two reviews.
    return decisions.select_related("candidate", "case__escalation").defer(
        "case__run_record", "case__question", "case__answer", "case__metadata"
    ).order_by("-created_at", "-pk")


def _summary(
    case: Case, *, released_answer: str | None, decision: schemas.Decision | None, updated_at: datetime,
    status: str | None = None,
) -> schemas.CaseSummary:
    return schemas.CaseSummary(
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
        updated_at=updated_at,
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
