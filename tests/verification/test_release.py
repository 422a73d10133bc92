"""The release gate: exact binomial bounds, the calibrated threshold, and the gate in a run."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from verification.decision import calibration as release
from verification.decision.bounds import auroc, binomial_cdf
from verification.decision.calibration import LabelledScores, UnknownGroup, calibrate, upper_bound
from verification.decision.offline import OfflineVerifier
from verification.decision.strata import STRATA, answer_stratum
from verification.decision.verifier import identity
from verification.engine import check_case
from verification.policy.constitution import DEFAULT
from verification.types import Case, Reason, Source, State, Terminal

ROOT = Path(__file__).resolve().parents[2]


def test_binomial_cdf_matches_exact_values() -> None:
    assert binomial_cdf(5, 10, 0.5) == pytest.approx(638 / 1024)
    assert binomial_cdf(0, 20, 0.05) == pytest.approx(0.95**20)
    assert binomial_cdf(20, 20, 0.3) == 1.0


def test_upper_bound_with_no_failures_is_the_exact_clopper_pearson_value() -> None:
    # With k = 0 the bound solves (1 - p)^n = delta.
    assert upper_bound(0, 59, 0.95) == pytest.approx(1 - 0.05 ** (1 / 59), abs=1e-9)
    assert upper_bound(0, 58, 0.95) > 0.05 > upper_bound(0, 59, 0.95)


def test_upper_bound_covers_the_observed_rate_and_tightens_with_more_data() -> None:
    small, large = upper_bound(5, 100, 0.95), upper_bound(50, 1000, 0.95)
    assert small > 0.05 and large > 0.05
    assert large < small
    # The bound is where seeing k or fewer becomes a 5% event.
    assert binomial_cdf(5, 100, small) == pytest.approx(0.05, abs=1e-6)


def _spread(count: int, low: float, high: float) -> list[float]:
    return [low + (high - low) * i / (count - 1) for i in range(count)]


def test_threshold_is_the_lowest_whose_bound_stays_within_budget() -> None:
    group = LabelledScores(name="support-desk", consistent=_spread(400, 0.5, 1.0), inconsistent=_spread(400, 0.0, 0.9))
    calibration = calibrate([group], max_unsafe_release_rate=0.05, verifier="offline/test")

    assert calibration.met
    (bound,) = calibration.groups
    assert bound.unsafe_upper_bound <= 0.05
    released = sum(score >= calibration.threshold for score in group.inconsistent)
    assert bound.unsafe_released == released
    # One more inconsistent answer released would break the bound: the threshold is not needlessly high.
    assert upper_bound(released + 1, 400, 0.95) > 0.05
    assert 0 < bound.automation < 1


def test_every_group_is_bounded_so_the_strictest_group_sets_the_threshold() -> None:
    easy = LabelledScores(name="easy", consistent=_spread(300, 0.6, 1.0), inconsistent=_spread(300, 0.0, 0.5))
    hard = LabelledScores(name="hard", consistent=_spread(300, 0.6, 1.0), inconsistent=_spread(300, 0.0, 0.95))
    both = calibrate([easy, hard], max_unsafe_release_rate=0.05, verifier="offline/test")
    alone = calibrate([hard], max_unsafe_release_rate=0.05, verifier="offline/test")

    assert both.threshold == alone.threshold
    assert all(group.unsafe_upper_bound <= 0.05 for group in both.groups)


def test_too_few_labels_to_bound_the_rate_releases_nothing() -> None:
    # Ten inconsistent answers cannot show a rate under 5% at 95% confidence, whatever the scores.
    group = LabelledScores(name="pilot", consistent=[0.9] * 10, inconsistent=[0.0] * 10)
    calibration = calibrate([group], max_unsafe_release_rate=0.05, verifier="offline/test")

    assert not calibration.met
    assert calibration.groups[0].automation == 0.0


def test_a_group_without_inconsistent_answers_is_refused() -> None:
    with pytest.raises(ValueError, match="has no inconsistent answers"):
        calibrate([LabelledScores(name="all-good", consistent=[0.9], inconsistent=[])], verifier="v")


def test_auroc_counts_ties_as_half() -> None:
    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.5], [0.5]) == 0.5
    assert auroc([0.1], [0.9]) == 0.0


# ---------------------------------------------------------------------------------------------
# The built-in calibration and the gate in a run

LAPTOP = Source(id="spec-sheet", text="The Arden 14 has a 14-inch display. Its battery lasts up to 18 hours.")


@pytest.mark.parametrize("scorer", ["learned", "rules"])
def test_the_builtin_calibration_was_computed_for_the_verifier_as_it_is_now(scorer: str) -> None:
    from verification.scorers import make_scorer

    verifier = OfflineVerifier(make_scorer(scorer))
    data = json.loads(release.builtin_path(scorer).read_text(encoding="utf-8"))
    # A verifier changed without recalibrating would have no threshold: every answer would go to a person.
    assert data["verifier"] == identity(verifier), (
        f"recalibrate: python -m verification calibrate --tune --save-builtin --offline --scorer {scorer}"
    )
    assert {group["name"] for group in data["groups"]} >= {"wice/hold", "summedits/hold"}


def test_a_run_records_the_threshold_it_applied_and_what_backs_it() -> None:
    case = Case(question="How long does the battery last?", answer="The Arden 14 battery lasts up to 18 hours.",
                sources=[LAPTOP])
    record = check_case(case)

    expected = release.builtin_calibration(identity(OfflineVerifier()), DEFAULT.policy.max_unsafe_release_rate)
    assert expected is not None and record.release_threshold == expected.threshold
    assert "5%" in (record.release_calibration or "") and "wice/hold" in (record.release_calibration or "")
    assert all(claim.release_score is not None for claim in record.candidates[0].claims)


def _with_threshold(threshold: float, *, met: bool = True):
    calibration = release.ReleaseCalibration(
        threshold=threshold, max_unsafe_release_rate=0.05, confidence=0.95, verifier=identity(OfflineVerifier()),
        groups=[], computed="2026-11-30T00:00:00+00:00", met=met,
    )
    policy = DEFAULT.policy.model_copy(update={"release_calibration": calibration})
    return DEFAULT.model_copy(update={"policy": policy})


def test_a_supported_answer_below_the_threshold_goes_to_a_person() -> None:
    case = Case(question="How long does the battery last?", answer="The Arden 14 battery lasts up to 18 hours.",
                sources=[LAPTOP])
    released = check_case(case, constitution=_with_threshold(0.0))
    held = check_case(case, constitution=_with_threshold(0.999))

    assert released.terminal is Terminal.PERMIT
    assert held.terminal is Terminal.REVIEW and held.reason is Reason.BELOW_RELEASE_THRESHOLD
    assert "below the release threshold 1.00" in (held.review_package.policy_reason or "")
    assert held.final_answer == case.answer  # nothing was repaired away: a person decides


def test_a_calibration_that_could_not_be_met_releases_nothing() -> None:
    case = Case(question="How long does the battery last?", answer="The Arden 14 battery lasts up to 18 hours.",
                sources=[LAPTOP])
    record = check_case(case, constitution=_with_threshold(0.0, met=False))
    assert record.terminal is Terminal.REVIEW and record.reason is Reason.BELOW_RELEASE_THRESHOLD


# ---------------------------------------------------------------------------------------------
# python -m verification calibrate


def _calibrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "verification", "calibrate", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=False)


def _labelled(consistent: bool, answer: str, group: str = "support") -> dict:
    return {"question": "What is the refund window?", "answer": answer, "consistent": consistent, "group": group,
            "sources": [{"id": "policy", "text": "Annual plans can be refunded in full within 30 days of purchase."}]}


def test_calibrate_reads_labelled_cases_and_writes_the_threshold_with_its_provenance(tmp_path: Path) -> None:
    lines = [_labelled(True, "Annual plans can be refunded in full within 30 days of purchase.")] * 3
    lines += [_labelled(False, "Annual plans can be refunded in full within 90 days of purchase.")] * 80
    path = tmp_path / "labelled.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    output = tmp_path / "calibration.json"

    result = _calibrate(str(path), "--offline", "--output", str(output))

    assert result.returncode == 0, result.stderr
    calibration = release.ReleaseCalibration.model_validate_json(output.read_text(encoding="utf-8"))
    (group,) = calibration.groups
    assert (group.name, group.consistent, group.inconsistent, group.unsafe_released) == ("support", 3, 80, 0)
    assert calibration.met and group.automation == 1.0
    assert group.unsafe_upper_bound == pytest.approx(upper_bound(0, 80, 0.95), abs=1e-4)
    assert "support" in result.stderr and "automation 100.0%" in result.stderr


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({k: v for k, v in _labelled(True, "x").items() if k != "consistent"}, "line 1: consistent: required"),
        ({**_labelled(True, "x"), "consistent": "yes"}, "line 1: consistent: required, true or false"),
        ({**_labelled(True, "x"), "group": ""}, "line 1: group: must be a non-empty string"),
        ({**_labelled(True, "x"), "sources": []}, "line 1: sources"),
    ],
)
def test_calibrate_names_the_field_of_a_bad_line(tmp_path: Path, line: dict, message: str) -> None:
    path = tmp_path / "labelled.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = _calibrate(str(path), "--offline")
    assert result.returncode == 2
    assert message in result.stderr


@pytest.mark.parametrize("rate", ["0", "1", "1.5", "five"])
def test_calibrate_refuses_a_budget_outside_zero_and_one(tmp_path: Path, rate: str) -> None:
    result = _calibrate("--tune", "--max-unsafe-release-rate", rate)
    assert result.returncode == 2 and "--max-unsafe-release-rate" in result.stderr


def test_calibrate_needs_a_file_or_the_tune_splits() -> None:
    result = _calibrate()
    assert result.returncode == 2 and "give one LABELLED.jsonl file or --tune" in result.stderr



def test_a_verifier_without_a_calibration_for_its_configuration_sends_the_answer_to_a_person() -> None:
    from tests.verification.verifiers import KeywordVerifier

    case = Case(question="How long does the battery last?", answer="The Arden 14 battery lasts up to 18 hours.",
                sources=[LAPTOP])
    record = check_case(case, verifier=KeywordVerifier({}))

    assert record.terminal is Terminal.REVIEW and record.reason is Reason.NOT_CALIBRATED
    assert record.release_threshold is None and record.release_calibration is None
    assert any("no release calibration for verifier keyword/1" in note for note in record.notes)


def test_the_same_verifier_with_other_weights_has_no_calibration(monkeypatch: pytest.MonkeyPatch) -> None:
    from verification.scorers.cross_encoder import shipped

    case = Case(question="How long does the battery last?", answer="The Arden 14 battery lasts up to 18 hours.",
                sources=[LAPTOP])
    assert check_case(case).reason is not Reason.NOT_CALIBRATED
    stack = shipped().stack
    assert stack is not None
    monkeypatch.setitem(stack, "model", stack["model"] + 0.01)
    record = check_case(case)
    assert record.terminal is Terminal.REVIEW and record.reason is Reason.NOT_CALIBRATED


def test_a_constitution_of_one_group_releases_at_that_groups_own_bounded_threshold() -> None:
    strict = LabelledScores(name="strict", consistent=[0.9] * 50, inconsistent=[0.1] * 100 + [0.85] * 10)
    easy = LabelledScores(name="easy", consistent=[0.7] * 50, inconsistent=[0.1] * 200)
    pooled = calibrate([strict, easy], verifier="v 1")
    easy_own = pooled.for_group("easy")
    # The strict group sets the pooled threshold; the easy group's own descent goes further down, and
    # its bound still holds on the easy group.
    assert pooled.threshold > 0.85
    assert easy_own.threshold <= 0.7 and easy_own.groups[0].name == "easy"
    assert easy_own.groups[0].unsafe_upper_bound <= 0.05 and easy_own.groups[0].automation == 1.0
    # No group given: the pooled threshold. A group the calibration does not know is an error naming it,
    # never a silent fallback to the pooled threshold.
    assert pooled.for_group(None) is pooled
    with pytest.raises(UnknownGroup, match="calibration_group: 'other' is not a group of the calibration in force "
                                           r"\(its groups: strict, easy\)"):
        pooled.for_group("other")


def test_a_constitution_calibrated_for_another_verifier_is_not_applied_to_these_scores() -> None:
    # Calibrated on a model verifier's confidences, which are not on the offline verifier's scale: its
    # threshold of 0 would release anything SUPPORTED. The built-in calibration applies instead.
    calibration = release.ReleaseCalibration(
        threshold=0.0, max_unsafe_release_rate=0.05, confidence=0.95, verifier="cove/gpt-x 0123abcd",
        groups=[], computed="2026-11-30T00:00:00+00:00",
    )
    constitution = DEFAULT.model_copy(
        update={"policy": DEFAULT.policy.model_copy(update={"release_calibration": calibration})}
    )
    case = Case(question="How long does the battery last?", answer="The Arden 14 battery lasts up to 18 hours.",
                sources=[LAPTOP])

    record = check_case(case, constitution=constitution)

    builtin = release.builtin_calibration(identity(OfflineVerifier()), 0.05)
    assert builtin is not None
    assert record.release_threshold == builtin.for_answer(record.candidates[-1].claims).threshold
    assert any("made for verifier cove/gpt-x" in note and "set aside" in note for note in record.notes)
    # The record names the exact configuration that judged it, in the form calibrations name it.
    assert builtin.verifier == f"{record.verifier} {record.verifier_fingerprint}"


def test_a_groups_bound_is_its_own_where_it_has_one_and_the_pooled_one_otherwise() -> None:
    strict = LabelledScores(name="strict", consistent=[0.9] * 50, inconsistent=[0.1] * 100 + [0.85] * 10)
    easy = LabelledScores(name="easy", consistent=[0.7] * 50, inconsistent=[0.1] * 200)
    pooled = calibrate([strict, easy], verifier="v 1")
    strict_bound, easy_bound = pooled.group_bound("strict"), pooled.group_bound("easy")
    assert strict_bound is not None and strict_bound == pooled.groups[0]  # the strict group set the pooled one
    assert easy_bound is not None and easy_bound.automation == 1.0 and easy_bound.name == "easy"
    assert pooled.group_bound("other") is None


def _stratum(name: str, group: str, consistent: list[float], inconsistent: list[float]) -> LabelledScores:
    return LabelledScores(name=group, stratum=name, consistent=consistent, inconsistent=inconsistent)


def test_each_stratum_releases_at_its_own_threshold_bounded_on_its_own_answers() -> None:
    # Answers whose words are all in the retrieved sentences separate well; the others do not. Pooled, the
    # partial answers hold everything at 0.9; by stratum, aligned answers release from 0.6.
    groups = [
        _stratum("aligned", "desk", [0.6] * 100, [0.2] * 300),
        _stratum("partial", "desk", [0.95] * 100, [0.1] * 200 + [0.85] * 20),
    ]
    calibration = calibrate(groups, verifier="v 1")

    assert calibration.threshold > 0.85
    assert [stratum.name for stratum in calibration.strata] == list(STRATA)
    aligned = calibration.for_stratum("aligned")
    assert aligned.threshold == 0.6 and aligned.met
    assert aligned.groups[0].name == "aligned" and aligned.groups[0].unsafe_upper_bound <= 0.05
    assert aligned.groups[0].automation == 1.0
    assert calibration.for_stratum("partial").threshold > 0.85
    # The groups are one pooled group whatever their strata: the pooled bound is on all their answers.
    assert [group.name for group in calibration.groups] == ["desk"]
    assert calibration.groups[0].inconsistent == 520


def test_a_stratum_too_thinly_labelled_to_bound_anything_releases_at_the_pooled_threshold() -> None:
    groups = [_stratum("partial", "desk", [0.9] * 100, [0.1] * 300), _stratum("proven", "desk", [1.0] * 8, [])]
    calibration = calibrate(groups, verifier="v 1")

    proven = next(stratum for stratum in calibration.strata if stratum.name == "proven")
    assert proven.pooled and proven.threshold is None
    assert calibration.for_stratum("proven").threshold == calibration.threshold
    assert calibration.for_stratum("proven").met


def test_a_stratum_labelled_enough_that_no_threshold_bounds_releases_nothing_on_a_score() -> None:
    # 100 inconsistent bare answers all score as high as the consistent ones: no threshold keeps them back.
    groups = [_stratum("partial", "desk", [0.9] * 100, [0.1] * 300), _stratum("bare", "desk", [0.8] * 50, [0.8] * 100)]
    calibration = calibrate(groups, verifier="v 1")

    bare = calibration.for_stratum("bare")
    # Only the top of the scale (1, a proof) passes its descent: no score below it releases.
    assert bare.threshold == 1.0 and bare.groups[0].automation == 0.0 and bare.groups[0].unsafe_released == 0
    assert calibration.for_stratum("partial").groups[0].automation == 1.0


def test_a_stratum_pooled_over_data_sets_keeps_the_bound_in_each_of_them() -> None:
    # Together the two sets' aligned answers would allow 0.5; one set alone releases too many at 0.5.
    groups = [
        _stratum("aligned", "careful", [0.9] * 50, [0.1] * 900),
        _stratum("aligned", "sloppy", [0.9] * 50, [0.1] * 80 + [0.5] * 20),
    ]
    calibration = calibrate(groups, verifier="v 1")

    assert calibration.for_stratum("aligned").threshold > 0.5


def test_a_stratum_the_calibration_lacks_is_an_error_naming_it() -> None:
    calibration = calibrate([_stratum("partial", "desk", [0.9] * 100, [0.1] * 300)], verifier="v 1")

    with pytest.raises(UnknownGroup, match="stratum: 'guessed' is not a stratum of the calibration in force"):
        calibration.for_stratum("guessed")
    # A calibration made without strata (a team's own, from reviewer labels) has one threshold for all.
    plain = calibrate([LabelledScores(name="desk", consistent=[0.9] * 100, inconsistent=[0.1] * 300)], verifier="v")
    assert plain.strata == [] and plain.for_stratum("partial") is plain


@dataclass(frozen=True)
class _Claim:
    state: State
    release_score: float | None
    stratum: str | None


def test_an_answer_is_in_the_stratum_of_its_weakest_claim() -> None:
    proven, partial = _Claim(State.SUPPORTED, 1.0, "proven"), _Claim(State.SUPPORTED, 0.8, "partial")
    opinion = _Claim(State.NOT_VERIFIABLE, None, None)
    model = _Claim(State.SUPPORTED, 0.9, None)

    assert answer_stratum([proven, opinion]) == "proven"
    assert answer_stratum([proven, partial, opinion]) == "partial"
    # A claim the model decided has its own path's calibration: the answer has no stratum.
    assert answer_stratum([proven, model]) is None
    assert answer_stratum([opinion]) is None
