"""What the golden referee (`benchmarks/engine_golden.py`) counts as a changed decision, on a demo case's
recorded line: a verdict's diagnostics and a score's fifth decimal are not; a state, a final answer or a
score's fourth decimal are."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from benchmarks import engine_golden as golden
from verification.decision.offline import OfflineVerifier
from verification.types import Case

DEMO = Path(golden.__file__).resolve().parents[1] / "verification" / "demo_cases.json"


@pytest.fixture(scope="module")
def line() -> dict:
    case = Case.model_validate(json.loads(DEMO.read_text(encoding="utf-8"))[0])
    recorded = golden.outputs("demo/first", case, OfflineVerifier())
    return json.loads(json.dumps(recorded, sort_keys=True))  # as --check reads it back


def _changed(line: dict, change) -> dict:
    other = copy.deepcopy(line)
    change(other)
    return other


def _scored(line: dict) -> dict:
    return next(verdict for verdict in line["verdicts"] if verdict["release_score"] is not None)


def test_a_verdicts_diagnostics_or_a_scores_fifth_decimal_change_no_decision(line) -> None:
    def diagnostics(other: dict) -> None:
        other["verdicts"][0]["extra"] = {"probability": 0.5}

    def fifth_decimal(other: dict) -> None:
        verdict = _scored(other)
        verdict["release_score"] = repr(round(float(verdict["release_score"]), 4) + 0.00001)

    for change in (diagnostics, fifth_decimal):
        other = _changed(line, change)
        assert other != line
        assert golden.decisions(other) == golden.decisions(line)


def test_a_state_a_final_answer_or_a_scores_fourth_decimal_is_a_changed_decision(line) -> None:
    def state(other: dict) -> None:
        claim = other["candidates"][0]["claims"][0]
        claim["state"] = "SUPPORTED" if claim["state"] != "SUPPORTED" else "CONTRADICTED"

    def final_answer(other: dict) -> None:
        other["final_answer"] = (other["final_answer"] or "") + " And more."

    def fourth_decimal(other: dict) -> None:
        verdict = _scored(other)
        verdict["release_score"] = repr(float(verdict["release_score"]) + 0.0002)

    for change in (state, final_answer, fourth_decimal):
        assert golden.decisions(_changed(line, change)) != golden.decisions(line)
