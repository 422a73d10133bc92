"""Rule health: per rule, how often it fails, how often it does not converge, how often reviewers overrode it.

This is the "moving bar" made visible: a rule that keeps failing, never converges within its bound,
or that reviewers keep approving past is a rule to make countable or to drop.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.db.models import Count, Q

from reviewconsole.intake.models import Case, RuleVerdict
from reviewconsole.review.models import DecisionKind
from verification import DEFAULT_CONSTITUTION as DEFAULT


@dataclass(frozen=True)
class RuleHealth:
    constitution: str
    rule: str
    cases: int
    """Cases whose answer, as submitted, was judged against the rule: it passed or failed."""
    failed: int
    """Of those, cases whose answer failed it."""
    not_checked: int
    """Cases whose answer, as submitted, was never judged against the rule (a judged rule with no model
    configured): counted apart, since a rule nobody checked neither passed nor failed."""
    not_converging: int
    """Cases whose run stopped with the rule still failing after the bounded critique-revise rounds."""
    overridden: int
    """Approvals with a written override of a version that failed the rule."""

    @property
    def fail_rate(self) -> float:
        return self.failed / self.cases if self.cases else 0.0

    @property
    def not_converging_rate(self) -> float:
        return self.not_converging / self.cases if self.cases else 0.0


def _name(constitution_name: str) -> str:
    return constitution_name or DEFAULT.name


def rule_health(*, constitution: str = "") -> list[RuleHealth]:
    """One row per (constitution, rule) seen in stored runs, worst fail rate first."""
    verdicts = RuleVerdict.objects.all()
    cases = Case.objects.exclude(run_record=None)
    if constitution:
        names = [constitution, ""] if constitution == DEFAULT.name else [constitution]
        verdicts = verdicts.filter(candidate__case__constitution_name__in=names)
        cases = cases.filter(constitution_name__in=names)
    judged = (
        verdicts.filter(candidate__position=0)
        .values("candidate__case__constitution_name", "rule")
        .annotate(
            cases=Count("candidate__case", filter=Q(passed__isnull=False), distinct=True),
            failed=Count("candidate__case", filter=Q(passed=False), distinct=True),
            not_checked=Count("candidate__case", filter=Q(passed__isnull=True), distinct=True),
        )
    )
    overridden = (
        verdicts.filter(passed=False, candidate__decisions__kind=DecisionKind.APPROVE,
                        candidate__decisions__override_reason__gt="")
        .values("candidate__case__constitution_name", "rule")
        .annotate(decisions=Count("candidate__decisions", distinct=True))
    )
    overrides = Counter({(_name(row["candidate__case__constitution_name"]), row["rule"]): row["decisions"]
                         for row in overridden})
    not_converging: Counter[tuple[str, str]] = Counter()
    for name, rules in cases.values_list("constitution_name", "run_record__non_converging_rules").iterator():
        for rule in rules or ():
            not_converging[(_name(name), rule)] += 1
    totals: dict[tuple[str, str], list[int]] = {}
    for row in judged:
        key = (_name(row["candidate__case__constitution_name"]), row["rule"])
        total = totals.setdefault(key, [0, 0, 0])
        total[0] += row["cases"]
        total[1] += row["failed"]
        total[2] += row["not_checked"]
    rows = [
        RuleHealth(name, rule, cases_judged, failed, not_checked, not_converging[(name, rule)],
                   overrides[(name, rule)])
        for (name, rule), (cases_judged, failed, not_checked) in totals.items()
    ]
    return sorted(rows, key=lambda row: (-row.fail_rate, -row.overridden, row.constitution, row.rule))
