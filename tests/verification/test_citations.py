"""The evidence shown is the evidence used: a verdict cites only what grounds or contradicts its claim."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verification.claims.extraction import ExtractedClaim, extract_claims
from verification.claims.sentences import split_sentences
from verification.decision.offline import OfflineVerifier
from verification.retrieval.index import SourceIndex
from verification.types import Case, Source, State

_ROOT = Path(__file__).resolve().parents[2]
DEMO_CASES = [
    Case.model_validate(raw)
    for path in (_ROOT / "verification" / "demo_cases.json", _ROOT / "reviewconsole" / "intake" / "fixtures" /
                 "demo_cases.json")
    for raw in json.loads(path.read_text(encoding="utf-8"))
]
PRICING = Source(
    id="pricing-page",
    title="Pricing",
    text=(
        "Pricing\nTeam plan: $20 per user per month, billed monthly, with up to 10 seats.\n"
        "Pay annually and save 15%.\nSingle sign-on (SAML) is available on the Enterprise plan only."
    ),
)
FAQ = Source(id="sales-faq", text="The Team plan includes email support with a one business day response time.")


def _verdicts(case: Case):
    claims = extract_claims(case.answer or "")
    return list(zip(claims, OfflineVerifier().verify(claims, case.sources), strict=True))


@pytest.mark.parametrize("case", DEMO_CASES, ids=lambda case: case.external_id)
def test_every_cited_span_is_an_exact_slice_that_says_what_it_covers(case):
    texts = {source.id: source.text for source in case.sources}
    for claim, verdict in _verdicts(case):
        for span in verdict.evidence:
            assert texts[span.source_id][span.start : span.end] == span.quote
            assert span.covers, (claim.text, span.quote)
            # What a span covers is written as the claim writes it.
            assert all(item in claim.text for item in span.covers), (claim.text, span.covers)


@pytest.mark.parametrize("case", DEMO_CASES, ids=lambda case: case.external_id)
def test_no_claim_cites_the_whole_of_its_sources(case):
    sentences = sum(len(split_sentences(source.text)) for source in case.sources)
    for claim, verdict in _verdicts(case):
        assert len(verdict.evidence) < sentences, claim.text
        if verdict.state is State.INSUFFICIENT_EVIDENCE:
            assert len(verdict.evidence) <= 2


def test_a_heading_and_an_unrelated_sentence_are_not_cited_for_a_supported_claim():
    claims = extract_claims("Annual billing saves 15%.")
    (verdict,) = OfflineVerifier().verify(claims, [PRICING, FAQ])
    assert verdict.state is State.SUPPORTED
    assert [span.quote for span in verdict.evidence] == ["Pay annually and save 15%."]
    assert verdict.evidence[0].covers == ("Annual", "saves", "15%")


def test_a_refutation_cites_only_the_contradicting_sentence_and_what_it_contradicts():
    claims = extract_claims("The Team plan costs $25 per user per month.")
    (verdict,) = OfflineVerifier().verify(claims, [PRICING, FAQ])
    assert verdict.state is State.REFUTED
    assert len(verdict.evidence) == 1
    assert verdict.evidence[0].quote.startswith("Team plan: $20 per user per month")
    assert verdict.evidence[0].covers[0] == "$25"
    assert "Team plan" in verdict.evidence[0].covers


def test_a_claim_needing_two_sentences_cites_both_and_each_covers_its_part():
    source = Source(id="spec", text="The X200 costs $99 in stores. It ships with a 2-year warranty. Colours vary.")
    claims = extract_claims("The X200 costs $99 and ships with a 2-year warranty.")
    (verdict,) = OfflineVerifier().verify(claims, [source])
    assert verdict.state is State.SUPPORTED
    covers = {span.quote: span.covers for span in verdict.evidence}
    assert set(covers) == {"The X200 costs $99 in stores.", "It ships with a 2-year warranty."}
    assert "$99" in covers["The X200 costs $99 in stores."]
    assert "2-year" in covers["It ships with a 2-year warranty."]


def test_insufficient_evidence_cites_nothing_that_shares_only_a_function_word():
    source = Source(
        id="policy",
        text="Thefts must be reported to the police within 48 hours.\nThe excess for theft claims is £100.",
    )
    claims = extract_claims("We will always pay out within 5 working days.")
    (verdict,) = OfflineVerifier().verify(claims, [source])
    assert verdict.state is State.INSUFFICIENT_EVIDENCE
    assert verdict.evidence == ()


def test_a_claim_not_checked_cites_nothing():
    text = "Upgrading is quick and painless."
    claim = ExtractedClaim(id="k1", text=text, start=0, end=len(text), checkable=False)
    (verdict,) = OfflineVerifier().verify([claim], [PRICING])
    assert verdict.state is State.NOT_VERIFIABLE
    assert verdict.evidence == ()
    assert verdict.release_score is None


def test_the_index_hands_out_the_title_as_the_subject_of_a_spec_sheet():
    index = SourceIndex([Source(id="s", title="Arden 14 specifications", text="Weight: 1.2 kg")])
    assert {"arden", "14"} <= index.subject_stems("s")
