"""Reads for the support pages: filtered events and cases, and the decisions fixtures are made of."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case
from reviewconsole.review.models import Decision, DecisionKind


@dataclass(frozen=True)
class AuditFilter:
    """What a support lead asked for; every field is optional and they combine with AND."""

    since: datetime | None = None
    until: datetime | None = None
    client: str = ""
    case: int | None = None
    actor: str = ""
    action: str = ""
    decision: str = ""
    reason: str = ""
    q: str = ""
    """Words a case's ticket (external id) or question contains, in any case."""

    def as_json(self) -> dict[str, object]:
        """The filter as stored with an export (and shown to whoever reads the export later)."""
        values = {key: value for key, value in asdict(self).items() if value not in (None, "")}
        return {key: value.isoformat() if isinstance(value, datetime) else value for key, value in values.items()}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> AuditFilter:
        """The filter an export stored, back as a filter (so a task applies exactly what was asked)."""
        values: dict[str, Any] = dict(data)
        for key in ("since", "until"):
            if values.get(key):
                values[key] = datetime.fromisoformat(str(values[key]))
        return cls(**values)


def actor_labels(actor: str) -> list[str]:
    """The recorded actors a typed one stands for: a plain name is a person ("rita" finds "user:rita") or
    an actor recorded by that name ("engine"); a full label ("user:rita", "client:bot") is itself."""
    return [actor] if ":" in actor else [actor, f"user:{actor}"]


def events_matching(audit_filter: AuditFilter) -> QuerySet[AuditEvent]:
    """Events in append order, sealed or not (an export keeps the sealed ones, in log order). Case-level
    filters (client, decision, reason) keep the events of matching cases."""
    events = _in_period(AuditEvent.objects.order_by("id"), "created_at", audit_filter)
    if audit_filter.case is not None:
        events = events.filter(case_id=audit_filter.case)
    if audit_filter.actor:
        events = events.filter(actor__in=actor_labels(audit_filter.actor))
    if audit_filter.action:
        # "decision." finds every decision; "decision.approved" only approvals.
        if audit_filter.action.endswith("."):
            events = events.filter(action__startswith=audit_filter.action)
        else:
            events = events.filter(action=audit_filter.action)
    if audit_filter.client or audit_filter.decision or audit_filter.reason or audit_filter.q:
        events = events.filter(case_id__in=_case_ids(audit_filter))
    return events


def events_newest_first(audit_filter: AuditFilter) -> QuerySet[AuditEvent]:
    """Matching events as the audit page lists them: what just happened on top, even before it is sealed.

    The sealer gives positions in id order, so among sealed events this is also the log's order, reversed.
    """
    return events_matching(audit_filter).order_by("-id")


def _in_period(queryset: QuerySet, field: str, audit_filter: AuditFilter) -> QuerySet:
    """Rows whose `field` lies in [since, until); an open end is unbounded."""
    if audit_filter.since:
        queryset = queryset.filter(**{f"{field}__gte": audit_filter.since})
    if audit_filter.until:
        queryset = queryset.filter(**{f"{field}__lt": audit_filter.until})
    return queryset


def _case_ids(audit_filter: AuditFilter) -> QuerySet:
    return cases_matching(audit_filter, with_time=False).values("pk")


def cases_matching(audit_filter: AuditFilter, *, with_time: bool = True) -> QuerySet[Case]:
    """Cases, newest first; the time range applies to when they were submitted."""
    cases = Case.objects.select_related("client").order_by("-submitted_at", "-pk")
    if with_time:
        cases = _in_period(cases, "submitted_at", audit_filter)
    if audit_filter.case is not None:
        cases = cases.filter(pk=audit_filter.case)
    if audit_filter.client:
        cases = cases.filter(client__name=audit_filter.client)
    if audit_filter.reason:
        cases = cases.filter(Q(reason=audit_filter.reason) | Q(escalation__reason=audit_filter.reason))
    if audit_filter.decision:
        cases = cases.filter(decisions__kind=audit_filter.decision).distinct()
    if audit_filter.q:
        cases = cases.filter(Q(external_id__icontains=audit_filter.q) | Q(question__icontains=audit_filter.q))
    if with_time and audit_filter.actor:
        actors = actor_labels(audit_filter.actor)
        cases = cases.filter(pk__in=AuditEvent.objects.filter(actor__in=actors).values("case_id"))
    return cases


def cases_with_decisions(audit_filter: AuditFilter) -> QuerySet[Case]:
    """Matching cases with what a results table shows: escalation and decisions."""
    return cases_matching(audit_filter).select_related("escalation").prefetch_related("decisions__reviewer")


PAGE_SIZE = 50


def page_of(queryset: QuerySet, number: int) -> Page:
    """One page of results; a number past the end shows the last page rather than an error."""
    return Paginator(queryset, PAGE_SIZE).get_page(number)


def decisions_for_fixtures(audit_filter: AuditFilter) -> QuerySet[Decision]:
    """Final decisions (approve, reject) on the cases the filter matches, oldest first."""
    decisions = Decision.objects.filter(kind__in=[DecisionKind.APPROVE, DecisionKind.REJECT])
    decisions = _in_period(decisions, "created_at", audit_filter)
    case_level = (audit_filter.client, audit_filter.reason, audit_filter.decision, audit_filter.q)
    if audit_filter.case is not None or any(case_level):
        decisions = decisions.filter(case_id__in=_case_ids(audit_filter))
    if audit_filter.actor and (":" not in audit_filter.actor or audit_filter.actor.startswith("user:")):
        decisions = decisions.filter(reviewer__username=audit_filter.actor.removeprefix("user:"))
    return decisions.select_related("case__client", "candidate", "reviewer").order_by("pk")
