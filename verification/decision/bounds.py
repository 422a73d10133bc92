"""The exact binomial bound the release gate's calibration rests on, and the ranking measure beside it.

`upper_bound` is the one-sided Clopper-Pearson bound: the largest unsafe release rate under which seeing
as few unsafe releases as were seen is still no rarer than 1 - confidence. `auroc` says how well a score
ranks consistent answers above inconsistent ones, whatever the threshold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


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
