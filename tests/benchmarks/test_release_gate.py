"""The release gate benchmark's cross-fit (`benchmarks/release_gate.py --cross-fit`): each half of the
labelled answers is gated at a calibration of the other half. The engine is not run: the answers stand
for run records' first candidates."""

from __future__ import annotations

import pytest

from benchmarks import release_gate as gate
from verification.types import Claim, Severity, State


def _answer(index: int, consistent: bool, score: float, *, by_score: bool = True, released: bool | None = None,
            dataset: str = "wice") -> dict:
    claim = Claim(id="k1", text="The plan costs $20.", start=0, end=19, state=State.SUPPORTED,
                  severity=Severity.MODERATE, method="offline:coverage", confidence=0.9, release_score=score,
                  stratum="partial")
    return {"dataset": dataset, "id": f"{dataset}-{index}", "consistent": consistent,
            "released": consistent if released is None else released, "by_score": by_score, "claims": (claim,)}


def _separated(count: int) -> list[dict]:
    """Consistent answers scoring 0.9, inconsistent ones 0.1: any calibration releases the first only."""
    return [_answer(i, consistent=i % 2 == 0, score=0.9 if i % 2 == 0 else 0.1) for i in range(count)]


def test_each_half_is_gated_out_of_sample_and_the_figures_add_up_over_both_halves() -> None:
    figures = gate.cross_fit(_separated(400), verifier="offline/7 test")

    assert figures == {"wice": {"consistent": 200, "automated": 200, "inconsistent": 200, "unsafe": 0}}
    assert {gate._half(f"wice-{i}") for i in range(400)} == {0, 1}


def test_an_answer_the_run_held_for_another_reason_is_never_released_whatever_its_score() -> None:
    answers = _separated(400)
    answers.append(_answer(1000, consistent=True, score=0.95, by_score=False, released=False))

    figures = gate.cross_fit(answers, verifier="offline/7 test")

    assert figures["wice"]["consistent"] == 201
    assert figures["wice"]["automated"] == 200


def test_a_run_whose_releases_its_own_calibration_does_not_give_back_is_refused() -> None:
    answers = _separated(400)
    answers.append(_answer(1000, consistent=False, score=0.1, released=True))

    with pytest.raises(RuntimeError, match="wice-1000"):
        gate.cross_fit(answers, verifier="offline/7 test")


def test_a_half_is_gated_at_the_other_halfs_thresholds_not_its_own() -> None:
    # In half 0 consistent answers score 0.95 and inconsistent ones 0.8; in half 1, 0.7 and 0.1. Each half's
    # own calibration would release its consistent answers only; gated at the other half's, half 0 releases
    # its inconsistent answers (half 1 sets a threshold at or below 0.7) and half 1 none (half 0 sets one above 0.8).
    answers = []
    for i in range(800):
        half, consistent = gate._half(f"wice-{i}"), i % 2 == 0
        score = (0.95 if consistent else 0.8) if half == 0 else (0.7 if consistent else 0.1)
        answers.append(_answer(i, consistent, score))
    whole = gate.calibrate(gate._labelled(answers), verifier="offline/7 test")
    for answer in answers:
        answer["released"] = gate._released(answer, whole)

    figures = gate.cross_fit(answers, verifier="offline/7 test")["wice"]

    in_half = {(half, consistent): sum(1 for a in answers
                                       if gate._half(a["id"]) == half and a["consistent"] is consistent)
               for half in (0, 1) for consistent in (True, False)}
    assert figures["automated"] == in_half[0, True]
    assert figures["unsafe"] == in_half[0, False]


def test_several_cuts_in_halves_are_averaged_each_by_another_hash() -> None:
    answers = _separated(400)

    assert gate.cross_fit(answers, verifier="offline/7 test", cuts=3) == {
        "wice": {"consistent": 200.0, "automated": 200.0, "inconsistent": 200.0, "unsafe": 0.0}
    }
    assert [gate._half("wice-7", cut) for cut in range(8)] != [gate._half("wice-7", 0)] * 8
