from __future__ import annotations

import json
from pathlib import Path

import pytest

from verification.claims.extraction import ExtractedClaim, extract_claims
from verification.decision.offline import OfflineVerifier
from verification.types import Case, Source, State

REFUNDS = Source(
    id="refund-policy",
    text=(
        "Annual plans can be refunded in full within 30 days of purchase. "
        "Approved refunds are returned to the original payment method within 5 to 10 business days."
    ),
)
PRICING = Source(id="pricing", text="The Team plan costs $20 per user per month and includes up to 10 seats.")
HISTORY = Source(
    id="history",
    text=(
        "Northwind was founded in 1987 by Maria Alvarez in Porto. "
        "Northwind was acquired by Contoso in 2015 in a deal worth $212.4 million."
    ),
)
LEAFLET = Source(
    id="leaflet",
    text="Adults: take 200 mg to 400 mg every 6 hours. Do not take more than 1,200 mg in 24 hours.",
)
CHANGELOG = Source(
    id="changelog", text="Version 4.2 does not support Python 3.12. Version 4.2 removed support for Windows 7."
)


def _verdict(text: str, *sources: Source):
    claims = extract_claims(text)
    assert len(claims) == 1, claims
    (verdict,) = OfflineVerifier().verify(claims, list(sources))
    return verdict


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Annual plans can be refunded in full within 30 days of purchase.", REFUNDS),
        ("Refunds are returned to the original payment method within 5 to 10 business days.", REFUNDS),
        ("The Team plan costs $20 per user per month.", PRICING),
        ("Northwind was founded in 1987 by Maria Alvarez.", HISTORY),
        ("Contoso acquired Northwind in 2015.", HISTORY),
        ("Version 4.2 removed support for Windows 7.", CHANGELOG),
    ],
)
def test_supported(claim, source):
    verdict = _verdict(claim, source)
    assert verdict.state is State.SUPPORTED
    assert verdict.evidence and verdict.evidence[0].source_id == source.id


@pytest.mark.parametrize(
    ("claim", "source", "method", "quoted"),
    [
        ("Annual plans can be refunded within 60 days of purchase.", REFUNDS, "offline:typed-mismatch", "30 days"),
        ("Northwind was acquired for $230M.", HISTORY, "offline:typed-mismatch", "$212.4 million"),
        ("Northwind was founded in 1992 by Maria Alvarez.", HISTORY, "offline:typed-mismatch", "1987"),
        ("Adults can take 200 mg every 4 hours.", LEAFLET, "offline:typed-mismatch", "6 hours"),
        ("Northwind acquired Contoso in 2015.", HISTORY, "offline:relation-mismatch", "acquired by Contoso"),
        ("Version 4.2 supports Python 3.12.", CHANGELOG, "offline:negation-mismatch", "does not support"),
    ],
)
def test_refuted_when_the_evidence_speaks_to_the_same_thing_and_disagrees(claim, source, method, quoted):
    verdict = _verdict(claim, source)
    assert verdict.state is State.REFUTED
    assert verdict.method == method
    assert quoted in verdict.evidence[0].quote
    assert source.text[verdict.evidence[0].start : verdict.evidence[0].end] == verdict.evidence[0].quote


@pytest.mark.parametrize(
    "claim",
    [
        "Refunds can also be paid out in cash at any of our Berlin offices.",
        "The Team plan comes with a dedicated account manager.",
        "Northwind opened a factory in Vietnam.",
    ],
)
def test_insufficient_evidence_when_the_sources_do_not_say(claim):
    verdict = _verdict(claim, REFUNDS, PRICING, HISTORY)
    assert verdict.state is State.INSUFFICIENT_EVIDENCE
    assert verdict.rationale


def test_conflicting_when_two_sources_disagree_about_the_claims_value():
    faq = Source(id="faq", text="Annual plans can be refunded within 60 days of purchase.")
    verdict = _verdict("Annual plans can be refunded within 30 days of purchase.", REFUNDS, faq)
    assert verdict.state is State.CONFLICTING
    assert {span.source_id for span in verdict.evidence[:2]} == {"refund-policy", "faq"}
    assert "30 days" in verdict.rationale and "60 days" in verdict.rationale


def test_an_opinion_is_checked_like_any_claim():
    # "I think" does not make a claim safe: no source says which plan is the best value.
    verdict = _verdict("I think the annual plan is the best value.", REFUNDS)
    assert verdict.state is State.INSUFFICIENT_EVIDENCE


def test_a_claim_marked_not_checkable_is_not_verifiable():
    claim = ExtractedClaim(id="k1", text="Welcome aboard.", start=0, end=15, checkable=False)
    (verdict,) = OfflineVerifier().verify([claim], [REFUNDS])
    assert verdict.state is State.NOT_VERIFIABLE


def test_verdicts_are_deterministic_and_in_claim_order():
    answer = (
        "Annual plans can be refunded within 60 days of purchase. The Team plan costs $20 per user per month. "
        "Northwind opened a factory in Vietnam."
    )
    claims = extract_claims(answer)
    sources = [REFUNDS, PRICING, HISTORY]
    first = OfflineVerifier().verify(claims, sources)
    second = OfflineVerifier().verify(claims, list(reversed(sources)))
    assert [v.state for v in first] == [State.REFUTED, State.SUPPORTED, State.INSUFFICIENT_EVIDENCE]
    assert [(v.state, v.confidence, v.method) for v in first] == [(v.state, v.confidence, v.method) for v in second]
    assert OfflineVerifier().config_fingerprint() == OfflineVerifier().config_fingerprint()


def test_demo_cases_are_valid_cases_and_cover_every_offline_state():
    path = Path(__file__).resolve().parents[2] / "verification" / "demo_cases.json"
    states = set()
    for raw in json.loads(path.read_text(encoding="utf-8")):
        case = Case.model_validate(raw)
        claims = extract_claims(case.answer or "")
        states |= {v.state for v in OfflineVerifier().verify(claims, case.sources)}
    # No NOT_VERIFIABLE: every sentence that is not a greeting, thanks or the like is checked.
    assert states == {State.SUPPORTED, State.REFUTED, State.INSUFFICIENT_EVIDENCE, State.CONFLICTING}


MINUTES = Source(id="minutes", text="The board approved the merger with Contoso on Monday. The vote was unanimous.")
ANNOUNCEMENT = Source(id="news", text="Shares of Contoso rose after Maria Alvarez announced the deal.")
SETTINGS = Source(
    id="settings", text="For new contracts, roaming is disabled by default; customers can turn it on in the app."
)


@pytest.mark.parametrize(
    ("claim", "source", "method", "quoted"),
    [
        ("The board rejected the merger with Contoso on Monday.", MINUTES, "offline:opposite-word", "approved"),
        ("Shares of Contoso rose after John Smith announced the deal.", ANNOUNCEMENT, "offline:name-swap",
         "Maria Alvarez"),
        # A short claim: its flipped word is one of only four, and still counts as the one change.
        ("Roaming is enabled automatically for all customers.", SETTINGS, "offline:opposite-word", "disabled"),
    ],
)
def test_refuted_when_one_word_or_name_of_the_source_is_swapped(claim, source, method, quoted):
    verdict = _verdict(claim, source)
    assert verdict.state is State.REFUTED
    assert verdict.method == method
    assert quoted in verdict.evidence[0].quote
    assert quoted.split()[0] in verdict.rationale
    assert source.text[verdict.evidence[0].start : verdict.evidence[0].end] == verdict.evidence[0].quote


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("The board approved the merger with Contoso on Monday.", MINUTES),
        ("Shares of Contoso rose after Maria Alvarez announced the deal.", ANNOUNCEMENT),
    ],
)
def test_the_unswapped_sentence_stays_supported(claim, source):
    assert _verdict(claim, source).state is State.SUPPORTED


def test_a_negation_elsewhere_in_the_source_sentence_does_not_refute():
    # "never" applies to "had active mining", which the claim does not assert.
    source = Source(
        id="history",
        text="Barton was the site of a large fire in the early 1900s, after which it never had active mining again.",
    )
    verdict = _verdict("Barton was the site of a large fire in the early 1900s.", source)
    assert verdict.state is State.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("Her application has not yet been approved.", "hasn't yet been approved"),
        ("Her application hasn't yet been approved.", "has not yet been approved"),
        ("Her application cannot yet be approved.", "can not yet be approved"),
    ],
)
def test_a_not_yet_is_the_same_denial_with_a_contraction_or_without(claim, said):
    # "yet" completes the negation: what is denied is "approved", whichever way the "not" is written.
    source = Source(id="status", text=f"Her application {said}, but she says she has seen no reason why it will not.")
    assert _verdict(claim, source).state is State.SUPPORTED
    approved = "Her application has been approved." if "has" in claim else "Her application can be approved."
    assert _verdict(approved, source).state is State.REFUTED


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("The Classic plan is sold to new customers.", "The Classic plan is no longer sold to new customers."),
        ("The Classic plan is no longer sold.", "The Classic plan is sold to new customers."),
        ("Her application has been approved.", "Her application has not yet been approved by the board."),
    ],
)
def test_a_no_longer_or_a_not_yet_denies_the_word_after_it(claim, source):
    assert _verdict(claim, Source(id="plans", text=source)).state is State.REFUTED


@pytest.mark.parametrize(
    ("claim", "source", "supported"),
    [
        # The same denial, with a prefix or with a "not".
        ("Support is not available on public holidays.", "Support is unavailable on public holidays.", True),
        ("Support is unavailable on public holidays.", "Support is not available on public holidays.", True),
        ("Gift cards are not refundable.", "Gift cards are non-refundable.", True),
        ("Gift cards are non-refundable.", "Gift cards are not refundable.", True),
        ("The museum cannot accept large bags.", "The museum is unable to accept large bags.", True),
        ("The institute studies Muslims in Europe.", "The institute studies Muslims in non-Muslim nations of Europe.",
         True),
        # A word put for itself negated by a prefix, either way round.
        ("Support is available on public holidays.", "Support is unavailable on public holidays.", False),
        ("Support is unavailable on public holidays.", "Support is available on public holidays.", False),
        ("Gift cards are refundable at any store.", "Gift cards are non-refundable at any store.", False),
        ("Gift cards are non-refundable at any store.", "Gift cards are refundable at any store.", False),
        ("The museum can accept large bags.", "The museum is unable to accept large bags.", False),
    ],
)
def test_a_denial_by_a_prefix_is_a_denial_and_its_word_put_for_it_a_change(claim, source, supported):
    state = _verdict(claim, Source(id="policy", text=source)).state
    assert (state is State.SUPPORTED) is supported, state


def test_a_bare_number_in_the_source_confirms_the_claims_count():
    source = Source(id="match", text="Attendance reached 63,000 at the ground on Saturday.")
    verdict = _verdict("A crowd of 63,000 fans was at the ground on Saturday.", source)
    assert verdict.state is State.SUPPORTED
    assert verdict.extra["features"]["value_unconfirmed"] == 0.0


def test_the_fingerprint_changes_with_the_token_model(monkeypatch):
    from verification.scorers import novelty

    before = OfflineVerifier().config_fingerprint()
    monkeypatch.setitem(novelty.TOKEN_WEIGHTS, "rarity", novelty.TOKEN_WEIGHTS["rarity"] + 1.0)
    assert OfflineVerifier().config_fingerprint() != before


PAINTING = Source(id="museum", text="Saint Luke drawing the Madonna, 1491-1510, Groeninge museum, Bruges.")
CATALOGUE = Source(
    id="catalogue", text="Full implementation of the new name takes place over the 2018-2019 academic year."
)


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # The same range written with an en dash, and with its second year shortened.
        ("The panel of Saint Luke drawing the Madonna dates from c. 1491–1510.", PAINTING),
        ("Full implementation of the new name takes place during the 2018–19 academic year.", CATALOGUE),
    ],
)
def test_a_range_of_years_written_another_way_is_supported(claim, source):
    verdict = _verdict(claim, source)
    assert verdict.state is State.SUPPORTED


CALL = Source(
    id="call",
    text=(
        "Sales agent: Our Gold plan includes dental coverage and vision care. "
        "Client: That sounds good. Will the portal work on my phone? "
        "Sales agent: Yes, the portal works on any phone."
    ),
)
EARNINGS = Source(
    id="earnings",
    text="Net revenue saw a decrease of 4% in the quarter, driven by lower hardware sales in Europe.",
)


def test_refuted_when_the_claim_denies_what_the_source_states_and_never_denies():
    # Worded too differently for the close-sentence comparison: only the denial rule can see it.
    verdict = _verdict(
        "In a long phone call on Tuesday, the client was told the premium Gold option "
        "does not include dental coverage.",
        CALL,
    )
    assert verdict.state is State.REFUTED
    assert verdict.method == "offline:denied"
    assert '"include"' in verdict.rationale
    assert "includes dental coverage" in verdict.evidence[0].quote


def test_a_negation_inside_a_condition_is_not_a_denial():
    verdict = _verdict("The client should call the agent if the portal does not work on his phone.", CALL)
    assert verdict.method != "offline:denied"


def test_refuted_when_the_claim_uses_the_opposite_of_a_word_the_source_has_in_the_same_place():
    # A summary does not repeat its source sentence; the flip is still "increase" for "decrease".
    verdict = _verdict(
        "In its quarterly report, the firm's net revenue showed an increase of 4% compared with a year earlier.",
        EARNINGS,
    )
    assert verdict.state is State.REFUTED
    assert verdict.method == "offline:opposite-word"
    assert "increase" in verdict.rationale and "decrease" in verdict.rationale


def test_a_claim_of_two_words_that_flips_one_is_refuted():
    verdict = _verdict("The store is open.", Source(id="sign", text="The store is closed."))

    assert verdict.state is State.REFUTED
    assert verdict.method == "offline:opposite-word"


def test_a_flip_stands_though_another_sentence_uses_the_claims_word_of_something_else():
    rules = Source(id="rules", text="Pets are not allowed. Smoking is prohibited everywhere. Parking is free.")

    flipped = _verdict("Smoking is allowed.", rules)

    assert flipped.state is State.REFUTED
    assert flipped.method == "offline:opposite-word" and "prohibited" in flipped.rationale


def test_an_opposite_said_of_something_else_in_the_next_clause_is_no_flip():
    # "increase" is said of the dividend; the debt, in the clause before it, is reduced, as the claim says.
    source = Source(id="call", text="The first phase consists of the debt reduction; an increase in the common "
                                    "dividend to $0.13 per share; and an expanded share repurchase program.")
    verdict = _verdict("The company is raising its dividend to $0.13 per share and decreasing net debt.", source)

    assert verdict.method != "offline:opposite-word"


def test_a_function_word_is_not_read_as_the_opposite_of_its_negation():
    # "with" is in no source's vocabulary (it is a function word), so its absence proves nothing.
    source = Source(id="call", text="Agent: we offer competitive prices without compromising the quality of service.")
    verdict = _verdict(
        "During the call the agent promised customers low premiums with excellent quality service.", source
    )
    assert verdict.method != "offline:opposite-word"


def test_a_denial_the_source_also_makes_in_halting_speech_is_not_refuted():
    # The source's "not" is eight words before "elderly": any doubt counts against calling it wrong.
    source = Source(
        id="meeting",
        text="Designer: voice recognition is hard to learn. Well, hard, it's not for the for the e for the elderly.",
    )
    verdict = _verdict("The designer said voice recognition is hard to learn, but not for elderly users.", source)
    assert verdict.method != "offline:denied"


def test_the_fingerprint_changes_with_a_stage_version(monkeypatch):
    # A cached verdict and a calibration are keyed by the fingerprint: a stage whose decisions change
    # bumps its version, and nothing computed before may be reused.
    from verification.checks.typed_mismatch import TypedMismatch

    before = OfflineVerifier().config_fingerprint()
    monkeypatch.setattr(TypedMismatch, "version", TypedMismatch.version + 1)
    assert OfflineVerifier().config_fingerprint() != before


def test_the_fingerprint_names_the_scorer_and_its_model_file():
    import hashlib

    from verification.scorers import make_scorer
    from verification.scorers.cross_encoder import MODEL_DIR

    learned, rules = make_scorer("learned"), make_scorer("rules")
    assert OfflineVerifier(learned).config_fingerprint() != OfflineVerifier(rules).config_fingerprint()
    # Another model file is another scale of scores, with its own calibration.
    assert learned.fingerprint()["model_sha256"] == hashlib.sha256(
        (MODEL_DIR / "model.int8.onnx").read_bytes()).hexdigest()


def test_each_verdict_carries_a_release_score():
    claims = extract_claims(
        "Annual plans can be refunded within 60 days of purchase. The Team plan costs $20 per user per month. "
        "Northwind opened a factory in Vietnam. The Team plan is $20 a user each month."
    )
    refuted, proven, insufficient, supported = OfflineVerifier().verify(claims, [REFUNDS, PRICING, HISTORY])
    assert refuted.state is State.REFUTED and refuted.release_score == 0.0
    # A proof tops the scale; a claim the score supports releases on its probability.
    assert proven.method == "offline:proof" and proven.release_score == 1.0
    assert supported.state is State.SUPPORTED and supported.release_score == supported.extra["probability"]
    assert insufficient.state is State.INSUFFICIENT_EVIDENCE
    assert insufficient.release_score == insufficient.extra["probability"]


def test_every_grounding_finding_is_a_known_method():
    # A grounding rule's reason becomes the verdict's method: a new one must join `Grounding.reasons`, so
    # the method names the registry lists stay complete.
    import re
    from pathlib import Path

    from verification.decision.methods import offline_methods

    folder = Path(__file__).resolve().parents[2] / "verification" / "checks" / "grounding"
    reasons = set()
    for path in folder.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        reasons |= set(re.findall(r'Finding\(\s*State\.\w+,\s*[^,]+,\s*"([a-z-]+)"', text))
        reasons |= set(re.findall(r'unsaid_in_every\([^,]+,\s*[^,]+,\s*"([a-z-]+)"', text))
    assert reasons, "no finding found: the pattern above is stale"
    assert {f"offline:{reason}" for reason in reasons} <= set(offline_methods())


def test_the_scorer_reads_only_the_claims_no_rule_settles():
    from verification.scorers.rules import RulesScorer

    read: list[str] = []

    class Reading(RulesScorer):
        def probabilities(self, assessments):
            read.extend(assessment.claim_text for assessment in assessments)
            return super().probabilities(assessments)

    source = Source(id="plans",
                    text="The Team plan costs $20 per month. Refunds are paid to the card used within 30 days.")
    claims = extract_claims("The Team plan costs $40 per month. The Team plan costs $20 per month. "
                            "Refunds go back to your card within a month.")
    refuted, copied, paraphrased = OfflineVerifier(Reading()).verify(claims, [source])
    assert refuted.state is State.REFUTED and "probability" not in refuted.extra
    assert copied.state is State.SUPPORTED and copied.stratum == "proven" and "probability" not in copied.extra
    # Only the paraphrase, which no rule settles, is scored.
    assert read == ["Refunds go back to your card within a month."]
    assert "probability" in paraphrased.extra
