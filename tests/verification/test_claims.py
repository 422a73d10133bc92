from __future__ import annotations

from verification.claims import extract_claims
from verification.types import Severity


def test_conjoined_assertions_become_separate_claims_with_exact_spans():
    text = "The plan costs $20 and it includes 5 seats."
    claims = extract_claims(text)
    assert [c.text for c in claims] == ["The plan costs $20", "it includes 5 seats."]
    for claim in claims:
        assert text[claim.start : claim.end] == claim.text


def test_greetings_questions_and_sign_offs_are_not_claims():
    text = (
        "Hi Sam, thanks for getting in touch! Refunds are issued within 30 days of purchase. "
        "Would you like me to start one? Let me know if you need anything else. Hope this helps!"
    )
    assert [c.text for c in extract_claims(text)] == ["Refunds are issued within 30 days of purchase."]


def test_ids_follow_text_order():
    claims = extract_claims("Acme was founded in 1987. It has 200 employees. Its office is in Boston.")
    assert [c.id for c in claims] == ["k1", "k2", "k3"]
    assert [c.start for c in claims] == sorted(c.start for c in claims)


def test_opinion_and_advice_are_not_checkable_but_typed_facts_are():
    claims = extract_claims(
        "I think the annual plan is the better deal. You should back up your files first. "
        "Please contact support within 14 days to cancel."
    )
    assert [c.checkable for c in claims] == [False, False, True]


def test_claims_carry_commitments_and_severity():
    (claim,) = extract_claims("Take 400 mg every 6 hours.")
    assert {c.kind for c in claim.commitments} >= {"number", "duration"}
    assert claim.severity is Severity.CRITICAL


def test_bullet_markers_are_left_out_of_the_span():
    text = "Plan details:\n- The Team plan includes 10 seats\n- Annual billing saves 15%"
    claims = extract_claims(text)
    assert [c.text for c in claims] == ["The Team plan includes 10 seats", "Annual billing saves 15%"]
    assert all(text[c.start : c.end] == c.text for c in claims)


def test_empty_answer_has_no_claims():
    assert extract_claims("") == []
    assert extract_claims("Thanks!") == []


def test_an_assertion_after_yes_or_no_is_a_claim_without_the_answer_word():
    text = "Yes, both bands are American rock bands. Sure!"
    claims = extract_claims(text)
    assert [claim.text for claim in claims] == ["both bands are American rock bands."]
    assert text[claims[0].start : claims[0].end] == claims[0].text
