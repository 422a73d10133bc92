"""The exact binomial bound the release gate's calibration rests on, and the ranking measure beside it.

`upper_bound` is the one-sided Clopper-Pearson bound: the largest unsafe release rate under which seeing
as few unsafe releases as were seen is still no rarer than 1 - confidence. `auroc` says how well a score
ranks consistent answers above inconsistent ones, whatever the threshold. `trials_needed` turns the bound
around: how many labelled answers it takes, at a rate seen, before the bound is within a budget.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property


def auroc(consistent: Sequence[float], inconsistent: Sequence[float]) -> float | None:
    """Probability that a consistent answer outscores an inconsistent one (ties count half)."""
    if not consistent or not inconsistent:
        return None
    ranked = sorted(inconsistent)
    wins = 0.0
    for score in consistent:
        below, upto = _bisect(ranked, score, strict=True), _bisect(ranked, score, strict=False)
        wins += below + 0.5 * (upto - below)
    return wins / (len(consistent) * len(inconsistent))


def _bisect(ranked: Sequence[float], value: float, *, strict: bool) -> int:
    """How many of `ranked` are below `value` (strict) or at most `value`."""
    lo, hi = 0, len(ranked)
    while lo < hi:
        mid = (lo + hi) // 2
        if ranked[mid] < value or (not strict and ranked[mid] == value):
            lo = mid + 1
        else:
            hi = mid
    return lo


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space so large n stays exact enough."""
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    total = 0.0
    for i in range(k + 1):
        total += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p
                          + (n - i) * log_q)
    return min(1.0, total)


def upper_bound(k: int, n: int, confidence: float) -> float:
    """Exact one-sided (Clopper-Pearson) upper confidence bound on a rate seen k times in n."""
    if n == 0:
        return 1.0
    if k >= n:
        return 1.0
    delta = 1.0 - confidence
    lo, hi = k / n, 1.0
    for _ in range(60):  # bisection to well below any displayed precision
        mid = (lo + hi) / 2
        if binomial_cdf(k, n, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def trials_needed(rate: float, budget: float, confidence: float, *, start: int = 1,
                  limit: int = 1_000_000) -> int | None:
    """The fewest trials n, from `start` on, whose exact upper bound (`upper_bound`) is within `budget` when
    the rate seen stays `rate`: k = ceil(rate·n) of the n (an unsafe count never rounds down). None when no
    n up to `limit` gets there; a rate at or above the budget never does.

    With k fixed the bound falls as n grows, so a count k is best tried at the largest n that still rounds to
    it; the smallest k within the budget there is searched (doubling, then bisecting), and then the smallest
    n of that k. At a rate of 0 the bound falls with n alone, and n is searched the same way.
    """
    if not 0.0 <= rate < budget:
        return None

    def unsafe(n: int) -> int:
        return math.ceil(rate * n - 1e-9)

    def within(n: int) -> bool:
        return upper_bound(unsafe(n), n, confidence) <= budget

    def smallest(lo: int, hi: int, ok) -> int:
        """The smallest value in [lo, hi] that is ok, hi being ok and lo - 1 not."""
        while lo < hi:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid + 1
        return hi

    first = max(start, 1)
    if within(first):
        return first
    if rate == 0.0:
        hi = first
        while not within(hi):
            if hi >= limit:
                return None
            hi = min(hi * 2, limit)
        return smallest(first, hi, within)

    def widest(k: int) -> int:
        """The largest n with ceil(rate·n) = k."""
        n = math.floor(k / rate + 1e-9)
        while unsafe(n) > k:
            n -= 1
        return n

    def k_within(k: int) -> bool:
        return within(min(widest(k), limit))

    k_lo = unsafe(first)
    k_hi = max(k_lo, 1)
    while not k_within(k_hi):
        if widest(k_hi) >= limit:
            return None
        k_lo, k_hi = k_hi + 1, k_hi * 2
    k = smallest(k_lo, k_hi, k_within)
    lo = max(first, widest(k - 1) + 1) if k > 0 else first
    return smallest(lo, min(widest(k), limit), within)


@dataclass(frozen=True)
class LabelsNeeded:
    """How far labelled answers are from a threshold within a budget: counted at the strictest threshold (1),
    which releases the fewest inconsistent answers, so no threshold qualifies on fewer labels."""

    budget: float
    """The risk budget (`max_unsafe_release_rate`)."""
    confidence: float
    """Confidence of the upper bound (1 - delta)."""
    inconsistent: int
    """Inconsistent answers labelled so far (n)."""
    released_at_strictest: int
    """Of them, those scoring 1: released even at the strictest threshold (k)."""
    bound_now: float
    """The exact upper bound on the unsafe release rate with k of n."""
    limit: int = 20_000
    """The most inconsistent answers counted towards `inconsistent_needed`."""

    @cached_property
    def inconsistent_needed(self) -> int | None:
        """The fewest inconsistent answers (n or more) whose bound is within the budget if the rate k/n stays as
        measured (`trials_needed`); None: none up to `limit` gets there (a rate at or above the budget never does)."""
        return trials_needed(self.rate, self.budget, self.confidence, start=max(self.inconsistent, 1),
                             limit=self.limit)

    @property
    def bound_needed(self) -> float | None:
        """The bound at `inconsistent_needed`, with ceil(k/n x that count) of them released."""
        needed = self.inconsistent_needed
        return None if needed is None else upper_bound(math.ceil(self.rate * needed - 1e-9), needed, self.confidence)

    @property
    def rate(self) -> float:
        return self.released_at_strictest / self.inconsistent if self.inconsistent else 0.0

    @property
    def met(self) -> bool:
        """A threshold within the budget qualifies on the labels as they are."""
        return bool(self.inconsistent) and self.bound_now <= self.budget
