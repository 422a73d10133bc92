"""Chain-of-verification on the model path, driven by a scripted model double."""

from __future__ import annotations

import json

import pytest

from tests.verification.conftest import LARKSPUR_CLAIMS, LARKSPUR_SOURCES
from tests.verification.replies import NO_FINDINGS, claim_in, passages_in, verdict_json
from tests.verification.verifiers import calibrated, every_claim
from verification.claims.extraction import extract_claims
from verification.engine import check_case
from verification.llm.client import ModelRequest, ScriptedModel
from verification.llm.cove import (
    QUESTION_PROMPT,
    VERIFY_PROMPT,
    ModelVerifier,
    align_quote,
    question_misses,
    template_question,
)
from verification.types import Case, Reason, Source, State, Terminal


def _question_for(request: ModelRequest) -> str:
    # A good question names the claim's figures, as the prompt asks.
    claim = claim_in(request.text)
    figures = [word for word in claim.split() if word.isdigit()]
    return json.dumps({"question": f"Larkspur policy: is it {' to '.join(figures)} days? ({claim})"})


def _supported(request: ModelRequest) -> str:
    return verdict_json(request.text)


def test_invalid_output_three_times_makes_the_claim_unresolved_with_every_attempt_recorded(
    larkspur_case: Case,
) -> None:
    bad = [
        '{"state": "SUPPORTED"}',
        "I think it is true.",
        '{"state": "MAYBE", "quotes": [], "rationale": "", "confidence": 1}',
    ]

    def verifier(request: ModelRequest) -> str:
        if "90 days" in claim_in(request.text):
            attempt = sum(1 for m in request.messages if m["role"] == "assistant")
            return bad[attempt]
        return verdict_json(request.text)

    model = ScriptedModel(
        {"question_writer": _question_for, "verifier": verifier, "critic": lambda _: NO_FINDINGS}, model_id="m-7"
    )

    record = check_case(larkspur_case, model=model, constitution=every_claim())

    claims = {claim.text: claim for claim in record.candidates[0].claims}
    unresolved = claims[LARKSPUR_CLAIMS[2]]
    assert unresolved.state is State.UNRESOLVED
    assert unresolved.method == "model:m-7:invalid-output"
    assert unresolved.model_record is not None
    assert unresolved.model_record.attempts == 3
    assert [f.raw_output for f in unresolved.model_record.failures] == bad
    errors = [f.error for f in unresolved.model_record.failures]
    assert errors[0].startswith("quotes: Field required")
    assert errors[1].startswith("Invalid JSON")
    assert errors[2].startswith("state: Input should be")
    assert unresolved.evidence, "the passages the verifier was shown are kept for the reviewer"
    assert record.terminal is Terminal.REVIEW and record.reason is Reason.UNRESOLVED_CLAIM
    assert record.review_package is not None and unresolved.id in record.review_package.target_failures
    # 3 question-writer calls + 2 verifier calls + 3 attempts on the unresolved claim + 1 critic call.
    assert record.metrics.model_calls == 9
    assert record.metrics.verifier_calls == 3


def test_success_on_the_second_attempt_records_two_attempts_and_the_first_output(larkspur_case: Case) -> None:
    def verifier(request: ModelRequest) -> str:
        if not any(m["role"] == "assistant" for m in request.messages):
            return '{"state": "SUPPORTED", "quotes": [], "rationale": "trust me", "confidence": 0.9}'
        return verdict_json(request.text)

    model = ScriptedModel({"question_writer": _question_for, "verifier": verifier, "critic": lambda _: NO_FINDINGS})

    record = check_case(larkspur_case, model=model, constitution=calibrated(ModelVerifier(model), every_claim()))

    for claim in record.candidates[0].claims:
        assert claim.state is State.SUPPORTED
        assert claim.model_record is not None and claim.model_record.attempts == 2
        [failure] = claim.model_record.failures
        assert "trust me" in failure.raw_output
        assert failure.error == "quotes: a SUPPORTED verdict needs at least one quote from the passages"
        assert claim.model_record.prompt_sha256 == VERIFY_PROMPT.sha256
    assert record.terminal is Terminal.PERMIT and record.reason is Reason.ALL_SUPPORTED


def test_a_quote_missing_from_the_sources_is_invalid_output_and_found_quotes_get_exact_offsets() -> None:
    source = Source(id="s1", text="Refunds reach the original payment method in 5 to 10\n  business days.")
    [claim] = extract_claims("The refund appears in 5 to 10 business days.")
    replies = [
        json.dumps(
            {
                "state": "SUPPORTED",
                "quotes": [{"source_id": "s1", "quote": "refunds take a week"}],
                "rationale": "r",
                "confidence": 0.8,
            }
        ),
        json.dumps(
            {
                "state": "SUPPORTED",
                "quotes": [{"source_id": "s1", "quote": "“in 5 to 10 business days”"}],
                "rationale": "r",
                "confidence": 0.8,
            }
        ),
    ]
    model = ScriptedModel({"verifier": replies})

    [verdict] = ModelVerifier(model, write_questions=False).verify([claim], [source])

    assert verdict.state is State.SUPPORTED
    assert verdict.model_record is not None and verdict.model_record.attempts == 2
    assert "not found in any source: 'refunds take a week'" in verdict.model_record.failures[0].error
    [span] = verdict.evidence
    assert source.text[span.start : span.end] == span.quote == "in 5 to 10\n  business days"


def test_a_doubtless_question_falls_back_to_the_template_naming_the_commitments() -> None:
    [claim] = extract_claims("Your data is kept for 90 days after cancelling.")
    # Asks about something nobody doubted, leaving the 90 days unchecked.
    model = ScriptedModel(
        {"question_writer": ['{"question": "Does Larkspur keep customer data?"}'], "verifier": [_supported]}
    )

    [verdict] = ModelVerifier(model).verify([claim], LARKSPUR_SOURCES)

    assert verdict.question == template_question(claim)
    assert "90 days" in verdict.question
    assert verdict.extra["question_source"] == "template:doubtless(90 days)"
    assert verdict.rationale.endswith("(Templated question asked: doubtless(90 days).)")
    assert verdict.extra["model_calls"] == 2
    [verify_request] = model.requests_for("verifier")
    assert f"Question: {template_question(claim)}" in verify_request.text
    assert "Does Larkspur keep customer data?" not in verify_request.text


def test_a_question_naming_the_commitments_is_used_as_written() -> None:
    [claim] = extract_claims("Your data is kept for 90 days after cancelling.")
    question = "How long does Larkspur keep account data after cancellation: 90 days?"
    model = ScriptedModel({"question_writer": [json.dumps({"question": question})], "verifier": [_supported]})

    [verdict] = ModelVerifier(model).verify([claim], LARKSPUR_SOURCES)

    assert verdict.question == question and verdict.extra["question_source"] == "question_writer"
    [writer_request] = model.requests_for("question_writer")
    assert writer_request.messages[0]["content"] == QUESTION_PROMPT.system
    assert "duration '90 days'" in writer_request.text


@pytest.mark.parametrize(
    ("question", "missing"),
    [
        ("Was Acme founded in 1999 by Jane Roe?", []),
        ("Who founded Acme, and was it in 1999?", ["Jane Roe"]),
        ("When was the company founded?", ["Acme", "1999", "Jane Roe"]),
        ("Did Roe found ACME in 1999?", []),
        ("", ["the claim"]),
    ],
)
def test_question_misses_names_what_the_question_leaves_unasked(question: str, missing: list[str]) -> None:
    [claim] = extract_claims("Acme was founded in 1999 by Jane Roe.")
    assert question_misses(question, claim) == missing


def test_money_is_mentioned_by_its_figure_whatever_the_spelling() -> None:
    [claim] = extract_claims("The Basic plan costs $1,200 per year.")
    assert question_misses("Does the Basic plan cost 1200 dollars a year?", claim) == []
    assert question_misses("Does the Basic plan cost 120 dollars a year?", claim) == ["$1,200"]


def test_no_passage_matching_means_insufficient_evidence_without_a_model_call() -> None:
    [claim] = extract_claims("The Basic plan costs $12 per month.")
    model = ScriptedModel({})

    [verdict] = ModelVerifier(model, write_questions=False).verify(
        [claim], [Source(id="s", text="Penguins live in the southern hemisphere.")]
    )

    assert verdict.state is State.INSUFFICIENT_EVIDENCE and model.requests == []


def test_align_quote_prefers_the_named_source_and_rejects_invented_text() -> None:
    sources = [Source(id="a", text="Data is kept for 30 days."), Source(id="b", text="Data is kept for 30 days.")]
    span = align_quote("Data is kept for 30 days", sources, prefer="b")
    assert span is not None and (span.source_id, span.start, span.end) == ("b", 0, 24)
    assert align_quote("Data is kept for 90 days", sources) is None
    assert align_quote(" … ", sources) is None


ANSWER = "Hello! " + " ".join(LARKSPUR_CLAIMS)


def test_verifier_never_sees_the_draft_or_other_claims() -> None:
    claims = extract_claims(ANSWER)
    model = ScriptedModel({"question_writer": _question_for, "verifier": _supported})

    verdicts = ModelVerifier(model).verify(claims, LARKSPUR_SOURCES)

    assert [v.state for v in verdicts] == [State.SUPPORTED] * 3
    assert len(model.requests_for("verifier")) == len(claims) == 3
    for request in model.requests:
        own = claim_in(request.text)
        assert ANSWER not in request.text
        assert [text for text in LARKSPUR_CLAIMS if text in request.text] == [own]
    for request in model.requests_for("verifier"):
        assert passages_in(request.text), "the verifier is shown passages from the sources"


def test_the_model_verifiers_confidence_is_the_release_score_of_what_it_supports(larkspur_case: Case) -> None:
    def verifier(request: ModelRequest) -> str:
        state = "REFUTED" if "90 days" in claim_in(request.text) else "SUPPORTED"
        return verdict_json(request.text, state)

    model = ScriptedModel(
        {"question_writer": _question_for, "verifier": verifier, "critic": lambda _: NO_FINDINGS}, model_id="m-7"
    )
    record = check_case(larkspur_case, model=model, repair="none", constitution=every_claim())

    scores = {claim.text: (claim.state, claim.release_score) for claim in record.candidates[0].claims}
    assert scores[LARKSPUR_CLAIMS[2]] == (State.REFUTED, 0.0)
    assert {score for state, score in scores.values() if state is State.SUPPORTED} == {0.9}
    # No calibration exists for a model verifier here: the record says release rests on states alone.
    assert record.release_threshold is None
    assert any("no release calibration for verifier" in note for note in record.notes)
