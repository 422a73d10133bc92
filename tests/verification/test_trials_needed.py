"""How many labels a bound within budget takes: checked against the exact binomial bound itself, count by count."""

from __future__ import annotations

import math

import pytest

from verification import LabelledScores
from verification.decision.bounds import binomial_cdf, trials_needed, upper_bound


def _first_within(rate: float, budget: float, confidence: float, start: int = 1) -> int:
    """The definition, walked one n at a time: the first n whose bound with ceil(rate·n) of n is within budget."""
    n = start
    while upper_bound(math.ceil(rate * n - 1e-9), n, confidence) > budget:
        n += 1
    return n


@pytest.mark.parametrize(("rate", "budget", "confidence"), [
    (0.0, 0.05, 0.95), (0.0, 0.1, 0.95), (0.0, 0.2, 0.95), (0.0, 0.5, 0.95),
    (0.01, 0.05, 0.95), (0.02, 0.05, 0.95), (1 / 30, 0.1, 0.95), (0.1, 0.2, 0.95), (0.05, 0.1, 0.9),
    (3 / 70, 0.1, 0.95),
])
def test_the_count_is_the_first_whose_exact_bound_is_within_the_budget(rate, budget, confidence):
    assert trials_needed(rate, budget, confidence) == _first_within(rate, budget, confidence)


def test_with_none_released_the_counts_are_the_closed_form_ones():
    # 1 - 0.05^(1/n) <= budget: n >= ln(0.05) / ln(1 - budget).
    assert [trials_needed(0.0, budget, 0.95) for budget in (0.5, 0.2, 0.1, 0.05, 0.01)] == [5, 14, 29, 59, 299]


def test_fixed_counts_read_against_the_binomial_tail():
    # 0 of 59 at 5%: the bound is within the budget, so seeing 0 has probability at most 5% at a rate of 5%...
    assert binomial_cdf(0, 59, 0.05) <= 0.05 < binomial_cdf(0, 58, 0.05)
    assert trials_needed(0.0, 0.05, 0.95) == 59
    # ...and 4 of 181 (rate 2%, ceil(0.02 x 181) = 4) likewise, where 180 with 4 is not yet enough.
    assert upper_bound(4, 181, 0.95) <= 0.05 < upper_bound(4, 180, 0.95)
    assert binomial_cdf(4, 181, 0.05) <= 0.05 < binomial_cdf(4, 180, 0.05)
    assert trials_needed(0.02, 0.05, 0.95) == 181


def test_the_count_starts_where_the_labels_are_and_a_rate_at_the_budget_never_gets_there():
    assert trials_needed(0.02, 0.05, 0.95, start=200) == 200  # already within: no more needed
    assert trials_needed(0.0, 0.05, 0.95, start=10) == 59
    assert trials_needed(0.05, 0.05, 0.95) is None
    assert trials_needed(0.3, 0.05, 0.95) is None
    assert trials_needed(0.049, 0.05, 0.95, limit=1000) is None


def test_labelled_scores_say_how_many_inconsistent_answers_the_budget_takes():
    # 40 inconsistent answers, 2 scoring 1 (rate 5%), a budget of 10%: the count is the bound's, from 40 on.
    scores = LabelledScores(name="team", consistent=[1.0] * 60, inconsistent=[0.0] * 38 + [1.0] * 2)
    needed = scores.labels_needed(0.1)
    assert (needed.inconsistent, needed.released_at_strictest, needed.rate) == (40, 2, 0.05)
    assert needed.bound_now == upper_bound(2, 40, 0.95) and not needed.met
    assert needed.inconsistent_needed == _first_within(0.05, 0.1, 0.95, start=40) > 40
    n = needed.inconsistent_needed
    assert needed.bound_needed == upper_bound(math.ceil(0.05 * n - 1e-9), n, 0.95) <= 0.1
    assert LabelledScores(name="team", consistent=[1.0], inconsistent=[0.0] * 30).labels_needed(0.1).met
