"""The real `openai` client against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from tests.verification.conftest import LARKSPUR_CLAIMS, LARKSPUR_SOURCES, NetworkBlocked, NetworkGuard
from tests.verification.fake_openai import MODEL_NAME, FakeOpenAIServer, Received, Reply
from tests.verification.replies import claim_in, cove_reply, role_of, verdict_json
from tests.verification.verifiers import calibrated, every_claim
from verification.engine import check_case
from verification.errors import PermanentError, TransientError
from verification.llm.client import OpenAIChatModel
from verification.llm.cove import VERIFY_PROMPT, ModelVerifier
from verification.types import Case, Origin, State, Terminal


def _by_role(server: FakeOpenAIServer, role: str) -> list[Received]:
    return [received for received in server.received if role_of(received.system) == role]


def test_one_verification_request_per_claim_without_the_draft_or_other_claims(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel, larkspur_case: Case
) -> None:
    fake_server.responder = cove_reply

    record = check_case(larkspur_case, model=client_model, constitution=every_claim())

    claims = record.candidates[0].claims
    assert [claim.text for claim in claims] == list(LARKSPUR_CLAIMS)
    assert all(claim.state is State.SUPPORTED for claim in claims)
    verifications = _by_role(fake_server, "verifier")
    assert len(verifications) == 3
    assert len(_by_role(fake_server, "question_writer")) == 3
    assert sorted(claim_in(r.text) for r in verifications) == sorted(LARKSPUR_CLAIMS)
    # The critic is the one role that reads the draft, by design; every verification call is blind to it.
    for received in [*verifications, *_by_role(fake_server, "question_writer")]:
        assert larkspur_case.answer not in received.text
        assert "Hello!" not in received.text
        others = [text for text in LARKSPUR_CLAIMS if text != claim_in(received.text)]
        assert not [text for text in others if text in received.text]
        assert received.body["model"] == "asked-model"
        response_format = received.body["response_format"]
        assert response_format["type"] == "json_schema"
    schema = verifications[0].body["response_format"]["json_schema"]["schema"]
    assert set(schema["required"]) == {"state", "quotes", "rationale", "confidence"}
    assert record.metrics.model_calls == 7  # 3 questions, 3 verifications, 1 critic


def test_records_carry_the_reported_model_id_and_the_prompt_hash(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel, larkspur_case: Case
) -> None:
    fake_server.responder = cove_reply

    record = check_case(larkspur_case, model=client_model, constitution=every_claim())

    for claim in record.candidates[0].claims:
        assert claim.model_record is not None
        assert claim.model_record.model == MODEL_NAME
        assert claim.model_record.prompt_sha256 == VERIFY_PROMPT.sha256
        assert claim.method == f"model:{MODEL_NAME}"
    assert record.verifier == "cove/1:asked-model"


def test_invalid_output_is_retried_with_a_format_reminder(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    def reply(received: Received) -> Reply:
        retried = any(m["role"] == "assistant" for m in received.body["messages"])
        return Reply(verdict_json(received.text) if retried else '{"state": "SUPPORTED", "quotes": []')

    fake_server.responder = reply
    case = Case(question="Refund timing?", answer=LARKSPUR_CLAIMS[1], sources=LARKSPUR_SOURCES)

    record = check_case(case, verifier=ModelVerifier(client_model, write_questions=False))

    [claim] = record.candidates[0].claims
    assert claim.state is State.SUPPORTED
    assert claim.model_record is not None and claim.model_record.attempts == 2
    assert claim.model_record.failures[0].raw_output == '{"state": "SUPPORTED", "quotes": []'
    first, second = fake_server.received
    assert second.body["messages"][: len(first.body["messages"])] == first.body["messages"]
    assistant, reminder = second.body["messages"][-2:]
    assert assistant == {"role": "assistant", "content": '{"state": "SUPPORTED", "quotes": []'}
    assert "Invalid JSON" in reminder["content"] and "required schema" in reminder["content"]


def test_the_calls_of_one_case_run_concurrently(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel, larkspur_case: Case
) -> None:
    # Each round of three calls is answered only once all three are waiting: sequential calls would
    # break the barrier, get a 500 and fail the check.
    barrier = threading.Barrier(3, timeout=5)

    def reply(received: Received) -> Reply:
        if role_of(received.system) == "critic":
            return cove_reply(received)  # one call per candidate, after the verifications
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return Reply(status=500)
        return cove_reply(received)

    fake_server.responder = reply

    record = check_case(larkspur_case, model=client_model, constitution=every_claim())

    assert fake_server.max_in_flight == 3
    assert [claim.state for claim in record.candidates[0].claims] == [State.SUPPORTED] * 3
    verifications = _by_role(fake_server, "verifier")
    assert max(r.started for r in verifications) < min(r.finished for r in verifications)


@pytest.mark.parametrize(
    ("status", "error"),
    [
        *[(status, TransientError) for status in (500, 502, 503, 429, 408)],
        *[(status, PermanentError) for status in (401, 403, 404, 400)],
    ],
)
def test_server_errors_and_rate_limits_are_transient_auth_and_other_client_errors_permanent(
    fake_server: FakeOpenAIServer,
    client_model: OpenAIChatModel,
    larkspur_case: Case,
    status: int,
    error: type[Exception],
) -> None:
    fake_server.responder = lambda received: Reply(status=status)
    with pytest.raises(error, match=f"HTTP {status}") as caught:
        check_case(larkspur_case, model=client_model, constitution=every_claim())
    # Transient and permanent are siblings: a worker must never retry an auth failure.
    assert isinstance(caught.value, TransientError) != isinstance(caught.value, PermanentError)


def test_a_timeout_is_transient(fake_server: FakeOpenAIServer) -> None:
    fake_server.responder = lambda received: Reply(content="{}", delay=1.0)
    model = OpenAIChatModel(base_url=fake_server.base_url, model="m", timeout=0.2, max_retries=0)
    case = Case(question="Refund timing?", answer=LARKSPUR_CLAIMS[1], sources=LARKSPUR_SOURCES)
    with pytest.raises(TransientError, match="unreachable"):
        check_case(case, model=model, constitution=every_claim())


def test_a_refused_connection_is_transient() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens on the port any more.
    model = OpenAIChatModel(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout=2, max_retries=0)
    case = Case(question="Refund timing?", answer=LARKSPUR_CLAIMS[1], sources=LARKSPUR_SOURCES)
    with pytest.raises(TransientError):
        check_case(case, model=model, constitution=every_claim())


def test_the_generator_drafts_a_missing_answer_which_is_then_verified(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    def reply(received: Received) -> Reply:
        if role_of(received.system) == "generator":
            return Reply(json.dumps({"answer": LARKSPUR_CLAIMS[1]}))
        return cove_reply(received)

    fake_server.responder = reply
    case = Case(question="How long does a refund take?", sources=LARKSPUR_SOURCES)

    # A model's confidences are on a scale of their own: calibrated here so the states alone decide.
    record = check_case(case, model=client_model, constitution=calibrated(ModelVerifier(client_model), every_claim()))

    [candidate] = record.candidates
    assert candidate.origin is Origin.GENERATOR and candidate.text == LARKSPUR_CLAIMS[1]
    assert record.terminal is Terminal.PERMIT
    [generation] = _by_role(fake_server, "generator")
    assert "How long does a refund take?" in generation.text and "5 to 10 business days" in generation.text
    assert record.metrics.model_calls == 4  # draft, question, verification, critic
    assert any("generator drafted" in note for note in record.notes)


def test_the_guard_refuses_hosts_beyond_loopback(network_guard: NetworkGuard) -> None:
    with pytest.raises(NetworkBlocked):
        socket.create_connection(("203.0.113.7", 443), timeout=1)
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("api.openai.com", 443)
    assert len(network_guard.blocked) == 2
    network_guard.blocked.clear()  # planned: this test is about the guard itself


def test_a_real_endpoint_is_never_reached(network_guard: NetworkGuard) -> None:
    model = OpenAIChatModel(base_url="https://api.openai.com/v1", model="gpt-4o", api_key="x", max_retries=0)
    case = Case(question="Refund timing?", answer=LARKSPUR_CLAIMS[1], sources=LARKSPUR_SOURCES)
    with pytest.raises(NetworkBlocked, match="api.openai.com"):
        check_case(case, model=model, constitution=every_claim())
    assert network_guard.blocked == ["api.openai.com"]
    network_guard.blocked.clear()  # planned: this test is about the guard itself
