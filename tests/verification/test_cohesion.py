"""The cohesion pass: dangling connectives go, nothing is added, pronouns without a referent are reported."""

from __future__ import annotations

import pytest

from verification.loop.cohesion import claim_core, restore_cohesion, strip_connective


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Therefore, we must cut costs.", "We must cut costs."),
        ("However margins shrank.", "Margins shrank."),
        ("This means that refunds take a week.", "Refunds take a week."),
        ("As a result, the plan costs more.", "The plan costs more."),
        ("Refunds take a week.", "Refunds take a week."),
        ("Thereafter the plan renews.", "Thereafter the plan renews."),
    ],
)
def test_strip_connective(sentence: str, expected: str) -> None:
    assert strip_connective(sentence) == expected


def test_only_the_sentence_after_a_cut_is_touched() -> None:
    text = "Revenue grew. Therefore, we must cut costs. However, hiring continues."
    cut = text.index("Therefore")

    result = restore_cohesion(text, [cut])

    assert result.text == "Revenue grew. We must cut costs. However, hiring continues."
    assert result.edits == ("removed the dangling 'Therefore,'",) and result.warnings == ()


@pytest.mark.parametrize("text", ["It charges in 45 minutes.", "He was introducing The Who.",
                                  "Her second album sold well.", "This change was made by the publisher."])
def test_a_pronoun_whose_referent_may_be_gone_is_reported_not_rewritten(text: str) -> None:
    result = restore_cohesion(text, [0])

    assert result.text == text and "opens with a pronoun" in result.warnings[0]


def test_claim_core_ignores_connectives_case_and_edge_punctuation() -> None:
    assert claim_core("Therefore, we must cut costs.") == claim_core("we must cut costs") == "we must cut costs"
