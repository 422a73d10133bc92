"""Time to automation on fixed counts: the labels needed, read against the exact binomial bound."""

from __future__ import annotations

import math

from reviewconsole.workbench.automation import bound_as_labels_arrived, time_to_automation
from reviewconsole.workbench.labelled_answers import LabelledAnswer, ReviewerLabels
from verification.decision.bounds import upper_bound


def _labels(consistent: int, inconsistent_at_0: int, inconsistent_at_1: int = 0) -> ReviewerLabels:
    answers = [LabelledAnswer(i, "c0", True, 1.0, False) for i in range(consistent)]
    answers += [LabelledAnswer(1000 + i, "c0", False, 0.0, False) for i in range(inconsistent_at_0)]
    answers += [LabelledAnswer(2000 + i, "c0", False, 1.0, False) for i in range(inconsistent_at_1)]
    return ReviewerLabels("shop", "offline/7", tuple(answers), (), 0)


def test_with_no_unsafe_answer_released_it_takes_the_closed_form_count_at_the_measured_mix():
    # 30 consistent, 10 inconsistent (none scoring 1): 59 inconsistent answers bound 0 released within 5%, and at
    # one inconsistent answer in four that is 236 labelled answers, 196 more than the 40 so far.
    needed = time_to_automation(_labels(30, 10), budget=0.05)
    assert needed.bound_now == upper_bound(0, 10, 0.95) > 0.05
    assert needed.inconsistent_needed == 59
    assert upper_bound(0, 59, 0.95) <= 0.05 < upper_bound(0, 58, 0.95)
    assert needed.more == math.ceil(59 / 0.25) - 40 == 196
    assert any("n = 59" in line for line in needed.arithmetic)
    assert any("236 labelled answers, 196 more" in line for line in needed.arithmetic)


def test_with_unsafe_answers_scoring_1_the_count_keeps_their_rate():
    # 2 of 40 inconsistent answers score 1 (rate 5%) against a budget of 20%: the first n whose bound with
    # ceil(0.05 n) of n is within 20%.
    needed = time_to_automation(_labels(60, 38, 2), budget=0.2)
    assert needed.rate == 0.05
    n = needed.inconsistent_needed
    assert n is not None and upper_bound(math.ceil(0.05 * n - 1e-9), n, 0.95) <= 0.2
    assert all(upper_bound(math.ceil(0.05 * m - 1e-9), m, 0.95) > 0.2 for m in range(40, n))
    assert needed.more == (0 if n <= 40 else math.ceil(n / 0.4) - 100)


def test_once_the_bound_is_within_the_budget_no_more_labels_are_needed():
    needed = time_to_automation(_labels(100, 30), budget=0.1)
    assert upper_bound(0, 30, 0.95) <= 0.1 and needed.more == 0
    assert "allowed today" in needed.arithmetic[-1]


def test_a_rate_at_the_budget_is_never_reached_and_no_inconsistent_label_tells_no_mix():
    hopeless = time_to_automation(_labels(10, 5, 5), budget=0.2)
    assert hopeless.inconsistent_needed is None and hopeless.more is None
    assert "no number of labels" in hopeless.arithmetic[-1]
    unknown = time_to_automation(_labels(12, 0), budget=0.05)
    assert unknown.inconsistent_needed == 59 and unknown.more is None


def test_the_chart_follows_the_bound_as_labels_arrived():
    points = bound_as_labels_arrived(_labels(30, 30), budget=0.1, points=10)
    assert [point.answers for point in points][-1] == 60 and len(points) <= 10
    assert points[-1].bound == upper_bound(0, 30, 0.95)
