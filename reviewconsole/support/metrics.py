"""The support lead's figures over a time range, computed from the stored cases and decisions.

Agreement with the engine: the engine's call on an escalated case is "not releasable as it stands",
and on a spot check "releasable". A reviewer agrees when they act the same way: rejecting or editing
an escalated case, approving a spot-checked one unchanged.

Per rule, a decision counts only for the rules it concerned: those that failed on the engine's final
candidate. The reviewer upholds such a rule by not releasing that answer unchanged (rejecting or
editing it) and overrules it by approving it as it is. A rule that passed says nothing about why a
reviewer rejected an answer, so a rejection is not counted against every rule that was judged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, Sum
from django.db.models.functions import TruncDate

from reviewconsole.intake import quotas
from reviewconsole.intake.models import Candidate, Case, CaseStatus, Claim, Client, RepairAttempt, RuleVerdict
from reviewconsole.review.models import Decision, DecisionKind, Escalation
from reviewconsole.review.reasons import reason_label
from reviewconsole.review.states import FAILING_STATES
from reviewconsole.support.kappa import Kappa, kappa_by_reviewer_pair, kappa_by_rule, kappa_over_claims
from reviewconsole.support.model_path import ModelPathUse, model_path_use
from reviewconsole.support.safety import UnsafeReleaseRate, unsafe_release_rates
from verification import Origin

# Days drawn one by one in the chart; a longer range still counts every escalation in the table.
MAX_CHART_DAYS = 120


@dataclass(frozen=True)
class Agreement:
    key: str
    """What the row counts: a reason code (with " (spot check)") or a rule name."""
    label: str
    """The key as a person reads it."""
    decided: int
    agreed: int

    @property
    def rate(self) -> float:
        return self.agreed / self.decided if self.decided else 0.0


@dataclass(frozen=True)
class RateLimited:
    """One client's API requests refused by its limits (429) in the period."""

    client: str
    by_limit: list[int]
    """Refusals per limit, in the order of `quotas.Limit`."""

    @property
    def total(self) -> int:
        return sum(self.by_limit)


@dataclass(frozen=True)
class MetricsReport:
    since: datetime
    until: datetime
    days: list[date]
    escalations_by_day: dict[str, list[int]]
    """Reason -> escalations opened on each of `days` (spot checks excluded)."""
    cases_finished: int
    cases_automated: int
    decision_seconds_median: float | None
    decision_seconds_p90: float | None
    decisions: int
    agreement_by_reason: list[Agreement] = field(default_factory=list)
    agreement_by_rule: list[Agreement] = field(default_factory=list)
    """Per rule: decided cases where it failed (decided) and how many of those the reviewer upheld (agreed)."""
    unsupported_claims_caught: int = 0
    supported_claims_removed: int = 0
    unsafe_release: list[UnsafeReleaseRate] = field(default_factory=list)
    """Per constitution: blind spot checks of released answers and the unsafe share among them."""
    kappa_by_pair: list[Kappa] = field(default_factory=list)
    kappa_by_rule: list[Kappa] = field(default_factory=list)
    kappa_claims: Kappa | None = None
    rate_limited: list[RateLimited] | None = None
    """Per client, most refused first; None when the counters (in Redis) cannot be read."""
    model_path: list[ModelPathUse] = field(default_factory=list)
    """Per constitution: what the model endpoint was asked and what each path released."""

    @property
    def automation_rate(self) -> float:
        return self.cases_automated / self.cases_finished if self.cases_finished else 0.0

    @property
    def rate_limited_total(self) -> int | None:
        return None if self.rate_limited is None else sum(row.total for row in self.rate_limited)

    @property
    def escalations_by_reason(self) -> dict[str, int]:
        return {reason: sum(series) for reason, series in self.escalations_by_day.items()}

    @property
    def escalation_rows(self) -> list[tuple[date, dict[str, int], int]]:
        """Per day: counts per reason and the day's total, for the table under the chart."""
        rows = []
        for index, day in enumerate(self.days):
            counts = {reason: series[index] for reason, series in self.escalations_by_day.items()}
            rows.append((day, counts, sum(counts.values())))
        return rows


def percentile(values: list[float], share: float) -> float | None:
    """Nearest-rank percentile: the smallest value with at least `share` of values at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * share // 1))
    return ordered[int(rank) - 1]


def _escalations_by_day(since: datetime, until: datetime) -> tuple[list[date], dict[str, list[int]]]:
    rows = (
        Escalation.objects.filter(is_spot_check=False, created_at__gte=since, created_at__lt=until)
        .annotate(day=TruncDate("created_at"))
        .values_list("day", "reason")
        .annotate(n=Count("id"))
    )
    counts = {(day, reason): n for day, reason, n in rows}
    first, last = since.date(), (until - timedelta(microseconds=1)).date()
    days = [first + timedelta(days=i) for i in range(min((last - first).days + 1, MAX_CHART_DAYS))]
    reasons = sorted({reason for _, reason in counts})
    return days, {reason: [counts.get((day, reason), 0) for day in days] for reason in reasons}


def _decision_outcomes(since: datetime, until: datetime) -> list[tuple[int, str, bool, bool]]:
    """(case id, reason, spot check, approved unchanged) for each escalation decided in the range."""
    final = Decision.objects.filter(
        kind__in=[DecisionKind.APPROVE, DecisionKind.REJECT],
        case__escalation__decided_at__gte=since,
        case__escalation__decided_at__lt=until,
    ).values_list("case_id", "case__escalation__reason", "case__escalation__is_spot_check", "kind", "candidate__origin")
    return [
        (case_id, reason, spot, kind == DecisionKind.APPROVE and origin != Origin.REVIEWER.value)
        for case_id, reason, spot, kind, origin in final
    ]


def _agreement_by_reason(outcomes: list[tuple[int, str, bool, bool]]) -> list[Agreement]:
    decided: Counter[tuple[str, bool]] = Counter()
    agreed: Counter[tuple[str, bool]] = Counter()
    for _, reason, spot, approved_unchanged in outcomes:
        decided[(reason, spot)] += 1
        agreed[(reason, spot)] += approved_unchanged == spot
    return [
        Agreement(f"{reason} (spot check)" if spot else reason,
                  f"{reason_label(reason)} (spot check)" if spot else reason_label(reason),
                  decided[(reason, spot)], agreed[(reason, spot)])
        for reason, spot in sorted(decided)
    ]


def _agreement_by_rule(outcomes: list[tuple[int, str, bool, bool]]) -> list[Agreement]:
    approved_unchanged = {case_id: unchanged for case_id, _, _, unchanged in outcomes}
    # The engine's final candidate of each case: its last one not written by a reviewer.
    final_candidate: dict[int, tuple[int, int]] = {}
    engine_candidates = Candidate.objects.filter(case_id__in=approved_unchanged).exclude(origin=Origin.REVIEWER.value)
    for case_id, pk, position in engine_candidates.values_list("case_id", "pk", "position"):
        if case_id not in final_candidate or position > final_candidate[case_id][1]:
            final_candidate[case_id] = (pk, position)
    case_of = {pk: case_id for case_id, (pk, _) in final_candidate.items()}
    decided: Counter[str] = Counter()
    agreed: Counter[str] = Counter()
    failed = RuleVerdict.objects.filter(candidate_id__in=case_of, passed=False)
    for candidate_id, rule in failed.values_list("candidate_id", "rule"):
        decided[rule] += 1
        agreed[rule] += not approved_unchanged[case_of[candidate_id]]
    return [Agreement(rule, rule, decided[rule], agreed[rule]) for rule in sorted(decided)]


def _rate_limited(since: datetime, until: datetime) -> list[RateLimited] | None:
    counts = quotas.refusals(since=since, until=until)
    if counts is None:
        return None
    if not counts:
        return []
    names = dict(Client.objects.filter(pk__in={client_id for client_id, _ in counts}).values_list("pk", "name"))
    rows = [
        RateLimited(names.get(client_id, f"client {client_id}"),
                    [counts.get((client_id, limit), 0) for limit in quotas.Limit])
        for client_id in {client_id for client_id, _ in counts}
    ]
    return sorted(rows, key=lambda row: (-row.total, row.client))


def metrics_report(*, since: datetime, until: datetime) -> MetricsReport:
    days, by_day = _escalations_by_day(since, until)
    finished = Case.objects.filter(finished_at__gte=since, finished_at__lt=until).exclude(terminal="")
    automated = finished.filter(status=CaseStatus.RELEASED).exclude(escalation__is_spot_check=False)
    durations = [
        (decided - opened).total_seconds()
        for opened, decided in Escalation.objects.filter(decided_at__gte=since, decided_at__lt=until).values_list(
            "created_at", "decided_at"
        )
        if decided is not None
    ]
    outcomes = _decision_outcomes(since, until)
    caught = Claim.objects.filter(
        candidate__position=0, candidate__case__in=finished, state__in=FAILING_STATES
    ).count()
    removed = RepairAttempt.objects.filter(case__in=finished, outcome="ACCEPTED").aggregate(
        n=Sum("supported_removed")
    )["n"]
    return MetricsReport(
        since=since,
        until=until,
        days=days,
        escalations_by_day=by_day,
        cases_finished=finished.count(),
        cases_automated=automated.count(),
        decision_seconds_median=percentile(durations, 0.5),
        decision_seconds_p90=percentile(durations, 0.9),
        decisions=len(outcomes),
        agreement_by_reason=_agreement_by_reason(outcomes),
        agreement_by_rule=_agreement_by_rule(outcomes),
        unsupported_claims_caught=caught,
        supported_claims_removed=removed or 0,
        unsafe_release=unsafe_release_rates(since=since, until=until),
        kappa_by_pair=kappa_by_reviewer_pair(since=since, until=until),
        kappa_by_rule=kappa_by_rule(since=since, until=until),
        kappa_claims=kappa_over_claims(since=since, until=until),
        rate_limited=_rate_limited(since, until),
        model_path=model_path_use(since=since, until=until),
    )
