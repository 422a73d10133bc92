"""A bare yes or no asserts what its question asks: the offline rules never reject it unseen, a person or
the model (which is shown the question) decides, and beside a statement that says it, it is left out."""

from __future__ import annotations

import pytest

from tests.verification.fake_openai import MODEL_NAME, FakeOpenAIServer, Received
from tests.verification.replies import claim_in, cove_reply, role_of
from verification.claims.extraction import extract_claims
from verification.engine import check_case
from verification.llm.client import OpenAIChatModel
from verification.types import Case, Reason, Source, State, Terminal

CANCEL = "Can I cancel my subscription at any time?"
POLICY = Source(id="policy", text="You may cancel your subscription at any time. Refunds are issued within 14 days.")


@pytest.mark.parametrize("answer", ["Yes.", "yes", "No", "Nope!", "Of course.", "It is not."])
def test_a_bare_yes_or_no_goes_to_a_person_with_the_question_it_answers(answer: str) -> None:
    record = check_case(Case(question=CANCEL, answer=answer, sources=[POLICY]))

    # Before, a correct "yes" scored as unsupported words and the answer was rejected unseen.
    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM)
    (claim,) = record.candidates[-1].claims
    assert (claim.text, claim.state, claim.method) == (answer, State.INSUFFICIENT_EVIDENCE, "offline:polar-answer")
    assert claim.release_score == 0.0 and "yes or no" in claim.rationale
    assert record.final_answer == answer  # nothing repaired away: a person reads it as written


@pytest.mark.parametrize(
    ("answer", "claim_text"), [("Yes, you can.", "you can."), ("No, they are not.", "they are not.")]
)
def test_a_yes_or_no_followed_only_by_its_echo_asserts_the_question_too(answer: str, claim_text: str) -> None:
    record = check_case(Case(question=CANCEL, answer=answer, sources=[POLICY]))

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM)
    (claim,) = record.candidates[-1].claims
    assert (claim.text, claim.state, claim.method) == (claim_text, State.INSUFFICIENT_EVIDENCE, "offline:polar-answer")
    assert extract_claims(answer, CANCEL)[0].context == CANCEL  # the model is shown the question with it


def test_lower_case_yes_is_a_bare_answer_not_a_verb() -> None:
    (claim,) = extract_claims("yes", CANCEL)

    assert claim.context == CANCEL


@pytest.mark.parametrize(
    ("question", "answer", "source"),
    [
        ("Kann ich jederzeit kündigen?", "Ja.", "Sie können Ihr Abonnement jederzeit kündigen."),
        ("いつでも解約できますか？", "いいえ。", "サブスクリプションはいつでも解約できます。"),
        ("我可以随时取消订阅吗？", "是的。", "您可以随时取消订阅。"),
    ],
    ids=["German", "Japanese", "Chinese"],
)
def test_a_bare_yes_or_no_in_another_language_is_read_the_same_way(question: str, answer: str, source: str) -> None:
    record = check_case(Case(question=question, answer=answer, sources=[Source(id="policy", text=source)]))

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM)
    (claim,) = record.candidates[-1].claims
    assert (claim.state, claim.method) == (State.INSUFFICIENT_EVIDENCE, "offline:polar-answer")


def test_a_yes_followed_by_what_it_means_is_checked_and_released() -> None:
    record = check_case(Case(question=CANCEL, answer="Yes, you can cancel your subscription at any time.",
                             sources=[POLICY]))

    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.ALL_SUPPORTED)
    (claim,) = record.candidates[-1].claims
    assert claim.text == "you can cancel your subscription at any time." and claim.state is State.SUPPORTED


def test_a_yes_before_the_statement_that_says_it_is_left_out_and_the_statement_released() -> None:
    record = check_case(Case(question=CANCEL, answer="Yes. You can cancel your subscription at any time.",
                             sources=[POLICY]))

    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.REPAIRED)
    assert record.final_answer == "You can cancel your subscription at any time."
    assert record.candidates[0].claims[0].method == "offline:polar-answer"


def test_a_bare_answer_the_sources_never_name_is_still_rejected() -> None:
    source = Source(id="about", text="The Oberoi Group is a hotel company with its head office in Delhi.")

    record = check_case(Case(question="Which city is the head office in?", answer="Mumbai", sources=[source]))

    assert (record.terminal, record.reason) == (Terminal.REJECT, Reason.NOTHING_SUPPORTED)


def test_with_a_model_a_bare_yes_goes_to_it_with_its_question(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    asked: list[str] = []

    def respond(received: Received):  # type: ignore[no-untyped-def]
        if role_of(received.system) in ("verifier", "question_writer"):
            asked.append(claim_in(received.text))
        return cove_reply(received)

    fake_server.responder = respond

    record = check_case(Case(question=CANCEL, answer="Yes.", sources=[POLICY]), model=client_model, repair="none")

    (claim,) = record.candidates[-1].claims
    assert claim.method == f"model:{MODEL_NAME}" and claim.escalation is not None
    assert "yes or no" in claim.escalation
    # The model is shown what the yes answers, never the claim's one word alone.
    assert asked and all(text == f"Yes. (the answer to: {CANCEL})" for text in asked)
