"""A bare yes or no asserts what its question asks: it is checked as the statement its question makes and
released where the sources support that statement; otherwise the offline rules never reject it unseen, a
person or the model (shown that statement, or the question) decides, and beside a statement that says it,
it is left out."""

from __future__ import annotations

import pytest

from tests.verification.fake_openai import MODEL_NAME, FakeOpenAIServer, Received
from tests.verification.replies import claim_in, cove_reply, role_of
from verification.claims.extraction import extract_claims
from verification.claims.polar import asserted
from verification.engine import check_case
from verification.llm.client import OpenAIChatModel
from verification.types import Case, Reason, Source, State, Terminal

CANCEL = "Can I cancel my subscription at any time?"
POLICY = Source(id="policy", text="You may cancel your subscription at any time. Refunds are issued within 14 days.")


@pytest.mark.parametrize("answer", ["Yes.", "yes", "Of course.", "Yes, you can."])
def test_a_yes_is_checked_as_its_question_and_released_where_the_sources_prove_it(answer: str) -> None:
    record = check_case(Case(question=CANCEL, answer=answer, sources=[POLICY]))

    # Before, every bare yes went to a person, however plainly the policy said it.
    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.ALL_SUPPORTED)
    assert record.final_answer == answer
    (claim,) = record.candidates[-1].claims
    assert (claim.state, claim.method, claim.release_score) == (State.SUPPORTED, "offline:proof", 1.0)
    assert '"you can cancel your subscription at any time"' in claim.rationale


@pytest.mark.parametrize(
    ("answer", "claim_text"), [("No", "No"), ("Nope!", "Nope!"), ("It is not.", "It is not."),
                               ("No, they are not.", "they are not.")]
)
def test_a_no_the_sources_contradict_goes_to_a_person_never_rejected_unseen(answer: str, claim_text: str) -> None:
    record = check_case(Case(question=CANCEL, answer=answer, sources=[POLICY]))

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM)
    (claim,) = record.candidates[-1].claims
    assert (claim.text, claim.state, claim.method) == (claim_text, State.INSUFFICIENT_EVIDENCE, "offline:polar-answer")
    assert claim.release_score == 0.0 and "yes or no" in claim.rationale
    # What was checked is named: the question as the statement the no makes.
    assert '"you cannot cancel your subscription at any time"' in claim.rationale
    assert record.final_answer == answer  # nothing repaired away: a person reads it as written


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("Are refunds issued within 30 days?", '"30 days"'),  # the source says 14
        ("Is the Team plan billed monthly?", '"Team"'),  # the source says so of the Pro plan
    ],
)
def test_a_yes_to_what_the_sources_contradict_is_never_released_nor_rejected(question: str, why: str) -> None:
    sources = [POLICY, Source(id="plans", text="The Pro plan is billed monthly. The Team plan is billed yearly.")]

    record = check_case(Case(question=question, answer="Yes.", sources=sources))

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM)
    (claim,) = record.candidates[-1].claims
    assert (claim.state, claim.method) == (State.INSUFFICIENT_EVIDENCE, "offline:polar-answer")
    assert why in claim.rationale


def test_a_yes_to_more_than_the_sources_say_is_not_released() -> None:
    record = check_case(Case(question="Can I cancel my subscription by phone?", answer="Yes.", sources=[POLICY]))

    # "by phone" is in no source: whatever its score, it is held for a person.
    assert record.terminal is Terminal.REVIEW and record.final_answer == "Yes."
    assert record.candidates[-1].claims[0].method != "offline:proof"


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        (CANCEL, "Yes.", "you can cancel your subscription at any time"),
        (CANCEL, "No.", "you cannot cancel your subscription at any time"),
        ("Am I eligible for a refund?", "Yes", "you are eligible for a refund"),
        ("Hi! Do you ship to Canada?", "Yep.", "you do ship to Canada"),
        # A yes to "both" says of each what the question asks, a no only that not both are.
        ("Are Jane and Elle both women's magazines?", "yes", "Jane and Elle are women's magazines"),
        ("Are Jane and Elle both women's magazines?", "no", "Jane and Elle are not both women's magazines"),
        ("Did both Carl Boese and Franco Zeffirelli direct films?", "Yes.",
         "did Carl Boese and Franco Zeffirelli direct films"),
        ("Are all plans billed monthly?", "Yes.", "are all plans billed monthly"),  # "all" is no "both"
        # A subject of several words keeps the auxiliary where the question has it: the checks read words.
        ("Is the Pro plan billed monthly?", "No.", "is not the Pro plan billed monthly"),
    ],
)
def test_the_statement_a_yes_or_no_makes_of_its_question(question: str, answer: str, statement: str) -> None:
    assert asserted(question, answer) == statement
    (claim,) = extract_claims(answer, question)
    assert (claim.statement, claim.context) == (statement, "")


@pytest.mark.parametrize(
    "question",
    ["Which plan can I cancel?", "Can I cancel? Will I get a refund?", "Can't I cancel at any time?", "Cancel now"],
)
def test_a_question_that_is_not_one_yes_or_no_question_makes_no_statement(question: str) -> None:
    assert asserted(question, "Yes.") is None
    (claim,) = extract_claims("Yes.", question)
    assert (claim.statement, claim.context) == ("Yes.", question)  # read with its question, by a person


def test_a_yes_to_a_question_that_makes_no_statement_goes_to_a_person() -> None:
    record = check_case(Case(question="Which plans can I cancel?", answer="Yes.", sources=[POLICY]))

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM)
    assert record.candidates[-1].claims[0].method == "offline:polar-answer"


def test_a_yes_to_both_is_supported_where_the_sources_say_it_of_each_without_saying_both() -> None:
    source = Source(id="about", text="Jane and Elle are American women's magazines.")

    record = check_case(Case(question="Are Jane and Elle both women's magazines?", answer="Yes", sources=[source]))

    (claim,) = record.candidates[-1].claims
    # Before, the "both" the source never states held it back as a polar answer it did not support.
    assert claim.state is State.SUPPORTED and claim.method != "offline:polar-answer"
    assert '"Jane and Elle are women\'s magazines"' in claim.rationale


@pytest.mark.parametrize("answer", ["R&B", "B", "A."])
def test_an_answer_of_letters_names_something_and_is_no_yes_or_no(answer: str) -> None:
    source = Source(id="song", text="The song is an R&B ballad. Option B is the cheaper one.")

    record = check_case(Case(question="What genre is the song?", answer=answer, sources=[source]))

    (claim,) = record.candidates[-1].claims
    assert claim.method != "offline:polar-answer" and "yes or no" not in claim.rationale
    # No rule compares letters with the sources, so a person reads it: never rejected unseen.
    assert (record.terminal, claim.method) == (Terminal.REVIEW, "offline:wordless")


def test_lower_case_yes_is_a_bare_answer_not_a_verb() -> None:
    (claim,) = extract_claims("yes", CANCEL)

    assert claim.statement == "you can cancel your subscription at any time"


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


def test_a_yes_before_the_statement_that_says_it_is_released_with_it() -> None:
    answer = "Yes. You can cancel your subscription at any time."

    record = check_case(Case(question=CANCEL, answer=answer, sources=[POLICY]))

    assert (record.terminal, record.reason, record.final_answer) == (Terminal.PERMIT, Reason.ALL_SUPPORTED, answer)
    assert [claim.state for claim in record.candidates[0].claims] == [State.SUPPORTED, State.SUPPORTED]


def test_a_bare_answer_the_sources_never_name_is_still_rejected() -> None:
    source = Source(id="about", text="The Oberoi Group is a hotel company with its head office in Delhi.")

    record = check_case(Case(question="Which city is the head office in?", answer="Mumbai", sources=[source]))

    assert (record.terminal, record.reason) == (Terminal.REJECT, Reason.NOTHING_SUPPORTED)


@pytest.fixture
def asked(fake_server: FakeOpenAIServer) -> list[str]:
    """The claims the fake model is asked to verify or write a question for, as it is shown them."""
    shown: list[str] = []

    def respond(received: Received):  # type: ignore[no-untyped-def]
        if role_of(received.system) in ("verifier", "question_writer"):
            shown.append(claim_in(received.text))
        return cove_reply(received)

    fake_server.responder = respond
    return shown


def test_with_a_model_a_no_goes_to_it_as_its_statement(asked: list[str], client_model: OpenAIChatModel) -> None:
    record = check_case(Case(question=CANCEL, answer="No.", sources=[POLICY]), model=client_model, repair="none")

    (claim,) = record.candidates[-1].claims
    assert claim.method == f"model:{MODEL_NAME}" and claim.escalation is not None
    assert "yes or no" in claim.escalation
    # The model is shown the statement the no makes, never the claim's one word alone.
    assert asked and all(text == "you cannot cancel your subscription at any time" for text in asked)


def test_with_a_model_a_yes_to_a_question_that_makes_no_statement_goes_to_it_with_its_question(
    asked: list[str], client_model: OpenAIChatModel
) -> None:
    question = "Which plans can I cancel at any time?"

    check_case(Case(question=question, answer="Yes.", sources=[POLICY]), model=client_model, repair="none")

    assert asked and all(text == f"Yes. (the answer to: {question})" for text in asked)
