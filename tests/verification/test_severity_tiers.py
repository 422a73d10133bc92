"""Severity tiers: a constitution may let a MINOR claim that cannot be released as written go out removed
or with its note, instead of holding the whole answer; never a CRITICAL or MODERATE one."""

from __future__ import annotations

import pytest

from verification.engine import check_case
from verification.loop.contract import Operation
from verification.policy.constitution import DEFAULT, Constitution, MinorTier, Policy
from verification.types import Case, Reason, Severity, Source, State, Terminal

APP = Source(id="app", text=(
    "The Larkspur app offers a dark theme for night-time use. Exports are available as PDF files. "
    "Our support team works from Lisbon, Portugal."
))
DARK_MODE = "The app can switch to dark colours at night."
"""MINOR, and SUPPORTED below the release threshold (0.53 against 0.65, the threshold of answers whose claims
leave a word unsaid by the retrieved sentences): a paraphrase the scorer doubts."""
EXPORTS = "Exports are available as PDF files."
NOTE = "We could not confirm this in our documentation."


def _tier(tier: MinorTier, note: str = "") -> Constitution:
    policy = DEFAULT.policy.model_copy(update={"minor_unsupported": tier, "minor_note": note})
    return DEFAULT.model_copy(update={"policy": policy})


def _check(answer: str, constitution: Constitution, **options: str) -> object:
    return check_case(Case(question="What does the app offer?", answer=answer, sources=[APP]),
                      constitution=constitution, **options)


def test_by_default_a_doubtful_minor_claim_holds_the_answer_like_any_other() -> None:
    record = _check(f"{DARK_MODE} {EXPORTS}", DEFAULT)

    assert record.terminal is Terminal.REVIEW and record.reason is Reason.BELOW_RELEASE_THRESHOLD
    [dark_mode, _] = record.candidates[-1].claims
    assert dark_mode.severity is Severity.MINOR and dark_mode.state is State.SUPPORTED


def test_remove_releases_the_answer_without_the_minor_claim_and_says_so() -> None:
    record = _check(f"{DARK_MODE} {EXPORTS}", _tier(MinorTier.REMOVE))

    assert record.terminal is Terminal.PERMIT and record.reason is Reason.MINOR_CLAIMS_REMOVED
    assert record.final_answer == EXPORTS
    [repair] = record.repairs
    assert (repair.operation, repair.target_claim_ids, repair.outcome) == (Operation.OMIT_CLAIM, ["k1"], "ACCEPTED")
    assert [c.id for c in record.candidates[-1].claims] == ["k2"]


def test_note_releases_the_claim_followed_by_the_note_which_is_no_claim_of_its_own() -> None:
    record = _check(f"{DARK_MODE} {EXPORTS}", _tier(MinorTier.NOTE, NOTE))

    assert record.terminal is Terminal.PERMIT and record.reason is Reason.MINOR_CLAIMS_NOTED
    assert record.final_answer == f"{DARK_MODE} {NOTE} {EXPORTS}"
    final = record.candidates[-1]
    assert final.operation == Operation.NOTE_CLAIM and [c.text for c in final.claims] == [DARK_MODE, EXPORTS]
    assert record.repairs[-1].target_claim_ids == ["k1"]


def test_a_claim_that_is_not_supported_and_one_below_the_threshold_are_let_out_together() -> None:
    answer = f"The app offers a light theme only. {DARK_MODE} {EXPORTS}"
    record = _check(answer, _tier(MinorTier.REMOVE), repair="none")

    assert record.candidates[0].claims[0].state is State.INSUFFICIENT_EVIDENCE
    assert record.terminal is Terminal.PERMIT and record.final_answer == EXPORTS
    assert record.repairs[-1].target_claim_ids == ["k1", "k2"]


def test_a_moderate_claim_below_the_threshold_still_holds_the_answer() -> None:
    record = _check("Our support team is based in Lisbon. " + EXPORTS, _tier(MinorTier.REMOVE))

    [team, _] = record.candidates[-1].claims
    assert team.severity is Severity.MODERATE
    assert record.terminal is Terminal.REVIEW and record.reason is Reason.BELOW_RELEASE_THRESHOLD
    assert record.repairs == []


def test_under_note_a_contradicted_minor_claim_is_taken_out_not_noted() -> None:
    # Without repairs, so that the contradiction is still in the answer when the loop ends.
    record = _check(f"The app offers no dark theme. {DARK_MODE} {EXPORTS}", _tier(MinorTier.NOTE, NOTE), repair="none")

    contradicted = record.candidates[0].claims[0]
    assert (contradicted.severity, contradicted.state) == (Severity.MINOR, State.REFUTED)
    assert record.terminal is Terminal.PERMIT and record.reason is Reason.MINOR_CLAIMS_NOTED
    assert record.final_answer == f"{DARK_MODE} {NOTE} {EXPORTS}"


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ({"minor_unsupported": "note"}, 'minor_note: required when minor_unsupported is "note"'),
        ({"minor_unsupported": "note", "minor_note": "Not confirmed"}, "minor_note: must be one sentence ending"),
        ({"minor_unsupported": "sometimes"}, "minor_unsupported"),
        ({"minor_note": "x" * 199 + "."  + "y"}, "minor_note"),
    ],
)
def test_the_policy_refuses_a_tier_it_cannot_apply(policy: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Policy.model_validate(policy)
