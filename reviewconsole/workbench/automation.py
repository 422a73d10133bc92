"""Time to automation: how far a constitution's own labels are from a release threshold within its budget.

The threshold comes from the engine's calibration (Learn-then-Test with the exact Clopper-Pearson bound on
the share of inconsistent answers released). The fewest labels after which *some* threshold qualifies are
those at the strictest one, 1, where the fewest inconsistent answers are released: if the share of them
scoring 1 stays as measured, the bound at n inconsistent answers is the exact upper bound of ceil(rate·n)
in n, and `trials_needed` finds the smallest n within the budget. Labels in general come in at the measured
mix of consistent and inconsistent answers, so that n is turned into labelled answers at that mix.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from reviewconsole.intake.models import Case, Claim
from reviewconsole.workbench.labelled_answers import ReviewerLabels, cases_of
from verification import LabelledScores, Origin, Reason, State, Terminal, answer_score

CHART_POINTS = 24
"""At most this many points on the chart of the bound as labels arrived."""

# A run the gate alone held back (every claim supported, a score below the threshold, or no calibration):
# a lower threshold would have released it.
_GATE_REASONS = {Reason.BELOW_RELEASE_THRESHOLD.value, Reason.NOT_CALIBRATED.value}


@dataclass(frozen=True)
class TimeToAutomation:
    """How many more labelled answers a threshold within the budget takes, and the arithmetic behind it."""

    answers: int
    """Labelled answers so far."""
    budget: float
    confidence: float
    inconsistent: int
    """Of the labelled answers, the ones people found inconsistent (unsafe to release): n."""
    released_at_strictest: int
    """Inconsistent answers scoring 1, released even at the strictest threshold: k."""
    bound_now: float
    """The exact upper bound on the unsafe release rate with k of n."""
    inconsistent_needed: int | None
    """The engine's count of inconsistent answers the bound needs at the rate k/n; None: none gets there."""
    bound_needed: float | None
    """The bound at that count."""
    more: int | None
    """More labelled answers at the measured mix; 0 once a threshold qualifies; None when it cannot be told."""

    @property
    def rate(self) -> float:
        return self.released_at_strictest / self.inconsistent if self.inconsistent else 0.0

    @property
    def share_inconsistent(self) -> float | None:
        return self.inconsistent / self.answers if self.answers and self.inconsistent else None

    @property
    def arithmetic(self) -> list[str]:
        """The computation, line by line, as the page shows it."""
        needed = self
        conf, budget = f"{needed.confidence:.0%}", f"{needed.budget:.1%}"
        k, n = needed.released_at_strictest, needed.inconsistent
        lines = [f"Labelled answers so far: {self.answers}, of which {n} inconsistent; {k} of those score 1 and "
                 f"would be released even at the strictest threshold (rate {needed.rate:.1%})."]
        lines.append(f"Exact (Clopper-Pearson) {conf} upper bound on the unsafe release rate with {k} of {n}: "
                     f"{needed.bound_now:.2%} against a budget of {budget}.")
        if needed.inconsistent_needed is None or needed.bound_needed is None:
            lines.append(f"At a rate of {needed.rate:.1%}, at or above the budget, no number of labels brings the "
                         "bound within it: the scorer must rank these answers lower (retrain it), or the budget rise.")
            return lines
        m = needed.inconsistent_needed
        lines.append(f"Smallest n with the bound of ceil({needed.rate:.4f} × n) in n within {budget}: n = {m} "
                     f"(bound {needed.bound_needed:.2%} with {math.ceil(needed.rate * m - 1e-9)} of {m}).")
        if self.more == 0:
            lines.append("Reached: a threshold within the budget is allowed today.")
        elif self.share_inconsistent is None:
            lines.append(f"No inconsistent answer is labelled yet, so how many labels hold {m} of them cannot be "
                         f"told; it takes at least {m - n} more inconsistent answers.")
        elif self.more is not None:
            lines.append(f"At the measured mix ({self.share_inconsistent:.1%} of labelled answers inconsistent): "
                         f"ceil({m} / {self.share_inconsistent:.4f}) = {self.answers + self.more} labelled answers, "
                         f"{self.more} more than today.")
        return lines


def time_to_automation(labels: ReviewerLabels, *, budget: float) -> TimeToAutomation:
    """How many more labelled answers until a threshold within `budget` qualifies, if the share of inconsistent
    answers, and of those scoring 1, stay as measured."""
    needed = labels.scores().labels_needed(budget)
    answers, n = len(labels.answers), needed.inconsistent
    more: int | None = None
    if needed.met:
        more = 0
    elif needed.inconsistent_needed is not None and n:
        more = max(0, math.ceil(needed.inconsistent_needed / (n / answers) - 1e-9) - answers)
    return TimeToAutomation(answers, needed.budget, needed.confidence, n, needed.released_at_strictest,
                            needed.bound_now, needed.inconsistent_needed, needed.bound_needed, more)


@dataclass(frozen=True)
class BoundPoint:
    """The bound at the strictest threshold after the first `answers` labelled answers."""

    answers: int
    inconsistent: int
    bound: float


def bound_as_labels_arrived(labels: ReviewerLabels, *, budget: float, points: int = CHART_POINTS) -> list[BoundPoint]:
    """The exact upper bound at the strictest threshold as labelled answers arrived, oldest first, at most
    `points` evenly spaced points (the last is today's)."""
    arrived = sorted(labels.answers, key=lambda answer: (answer.labelled_at is None, answer.labelled_at,
                                                         answer.case_id))
    if not arrived:
        return []
    step = max(1, math.ceil(len(arrived) / points))
    marks = sorted({*range(step, len(arrived) + 1, step), len(arrived)})
    result = []
    for mark in marks:
        prefix = arrived[:mark]
        scores = LabelledScores(name=labels.group_name,
                                consistent=[answer.score for answer in prefix if answer.consistent],
                                inconsistent=[answer.score for answer in prefix if not answer.consistent])
        result.append(BoundPoint(mark, len(scores.inconsistent), scores.labels_needed(budget).bound_now))
    return result


@dataclass(frozen=True)
class WeekShare:
    """What a threshold would have released of last week's cases."""

    cases: int
    released: int

    @property
    def share(self) -> float | None:
        return self.released / self.cases if self.cases else None


def last_week_share(constitution: str, threshold: float | None, *, now: datetime) -> WeekShare:
    """Of the constitution's cases finished in the 7 days before `now`, how many `threshold` would have released:
    those whose run ended released, or held back by the gate alone, with every claim of the engine's last
    answer supported (or not checkable) and the answer scoring at or above it. None: nothing."""
    finished = Case.objects.filter(cases_of(constitution), finished_at__gte=now - timedelta(days=7),
                                   finished_at__lt=now).exclude(terminal="")
    total = finished.count()
    if threshold is None or not total:
        return WeekShare(total, 0)
    candidates = finished.filter(terminal=Terminal.PERMIT.value) | finished.filter(reason__in=_GATE_REASONS)
    last: dict[int, int] = {}
    claims: dict[tuple[int, int], list[_Scored]] = defaultdict(list)
    for case_id, position, state, score in (
        Claim.objects.filter(candidate__case__in=candidates).exclude(candidate__origin=Origin.REVIEWER.value)
        .values_list("candidate__case_id", "candidate__position", "state", "release_score")
    ):
        last[case_id] = max(position, last.get(case_id, position))
        claims[(case_id, position)].append(_Scored(State(state), score))
    released = sum(
        1 for case_id, position in last.items()
        if all(claim.state in (State.SUPPORTED, State.NOT_VERIFIABLE) for claim in claims[(case_id, position)])
        and answer_score(claims[(case_id, position)]) >= threshold
    )
    return WeekShare(total, released)


@dataclass(frozen=True)
class _Scored:
    state: State
    release_score: float | None
