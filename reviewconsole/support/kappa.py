"""Agreement between reviewers with chance taken out: Cohen's κ.

κ = (p_o − p_e) / (1 − p_e), where p_o is the share of items two raters judged alike and p_e the share
they would judge alike by chance, from how often each of them used each category. 1 is full agreement,
0 no more than chance, below 0 less than chance.

Three views, each over cases that entered review in the period:
- per reviewer pair: double-reviewed cases (two `Review`s on one escalation), approve vs not approve
  (a reject, or an edit: either way the answer was not released as it stood);
- per rule: the same judgements, over the double-reviewed cases where that rule failed on the answer
  the engine handed to review (its last version), first review against second;
- over claims two reviewers labelled: supported, refuted or not in the sources, first label against second.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from reviewconsole.intake.models import Candidate, RuleVerdict
from reviewconsole.review.models import ClaimLabel, DecisionKind, Review
from verification import Origin

MIN_ITEMS = 10
"""Fewer items than this and κ swings on a single judgement: the page says "not enough data" instead."""


def cohens_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """κ of two raters over `pairs` (rater A's category, rater B's); None when it is undefined: no pairs,
    or both raters put every item in one and the same category (chance agreement is then 1)."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[category] * second[category] for category in first) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


@dataclass(frozen=True)
class Kappa:
    key: str
    """What the row counts: a reviewer pair, a rule, or "Labelled claims"."""
    items: int
    agreed: int
    kappa: float | None

    @property
    def enough(self) -> bool:
        return self.items >= MIN_ITEMS


def _kappa(key: str, pairs: Sequence[tuple[str, str]]) -> Kappa:
    return Kappa(key, len(pairs), sum(a == b for a, b in pairs), cohens_kappa(pairs))


def _judgement(kind: str) -> str:
    return "APPROVE" if kind == DecisionKind.APPROVE else "NOT_APPROVE"


def _double_reviews(since: datetime, until: datetime) -> dict[int, list[tuple[str, str]]]:
    """Escalation id -> its first two reviews as (reviewer, judgement), for escalations opened in the period."""
    reviews = (
        Review.objects.filter(escalation__created_at__gte=since, escalation__created_at__lt=until)
        .order_by("escalation_id", "created_at", "id")
        .values_list("escalation_id", "reviewer__username", "kind")
    )
    by_escalation: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for escalation_id, reviewer, kind in reviews:
        if len(by_escalation[escalation_id]) < 2:
            by_escalation[escalation_id].append((reviewer, _judgement(kind)))
    return {escalation_id: pair for escalation_id, pair in by_escalation.items() if len(pair) == 2}


def kappa_by_reviewer_pair(*, since: datetime, until: datetime) -> list[Kappa]:
    pairs: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for (first, a), (second, b) in _double_reviews(since, until).values():
        # The same person is always rater A of a pair, whichever of them reviewed first.
        (name_a, judgement_a), (name_b, judgement_b) = sorted([(first, a), (second, b)])
        pairs[(name_a, name_b)].append((judgement_a, judgement_b))
    return [_kappa(f"{a} / {b}", judged) for (a, b), judged in sorted(pairs.items())]


def kappa_by_rule(*, since: datetime, until: datetime) -> list[Kappa]:
    reviews = _double_reviews(since, until)
    if not reviews:
        return []
    case_of = dict(
        Review.objects.filter(escalation_id__in=reviews).values_list("escalation_id", "escalation__case_id").distinct()
    )
    final: dict[int, tuple[int, int]] = {}
    engine = Candidate.objects.filter(case_id__in=case_of.values()).exclude(origin=Origin.REVIEWER.value)
    for case_id, pk, position in engine.values_list("case_id", "pk", "position"):
        if case_id not in final or position > final[case_id][1]:
            final[case_id] = (pk, position)
    failed: dict[int, set[str]] = defaultdict(set)
    candidates = [pk for pk, _ in final.values()]
    for candidate_id, rule in RuleVerdict.objects.filter(candidate_id__in=candidates, passed=False).values_list(
        "candidate_id", "rule"
    ):
        failed[candidate_id].add(rule)
    by_rule: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for escalation_id, ((_, a), (_, b)) in reviews.items():
        candidate = final.get(case_of[escalation_id])
        for rule in failed.get(candidate[0], ()) if candidate else ():
            by_rule[rule].append((a, b))
    return [_kappa(rule, judged) for rule, judged in sorted(by_rule.items())]


def kappa_over_claims(*, since: datetime, until: datetime) -> Kappa:
    labels = (
        ClaimLabel.objects.filter(case__escalation__created_at__gte=since, case__escalation__created_at__lt=until)
        .order_by("claim_id", "created_at", "id")
        .values_list("claim_id", "label")
    )
    by_claim: dict[int, list[str]] = defaultdict(list)
    for claim_id, label in labels:
        by_claim[claim_id].append(label)
    return _kappa("Labelled claims", [(found[0], found[1]) for found in by_claim.values() if len(found) >= 2])
