"""Running a model role: validation, retries with a format reminder, provenance."""

from __future__ import annotations

import json
import time

import pytest
from pydantic import BaseModel, ConfigDict

from tests.verification.fake_openai import FakeOpenAIServer, Reply
from verification.errors import PermanentError, TransientError
from verification.llm.client import (
    OpenAIChatModel,
    PromptTemplate,
    ScriptedModel,
    ScriptExhausted,
    run_role,
)


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str
    score: int


PROMPT = PromptTemplate(role="generator", system="Answer in JSON.", user="Question: $question")


def _run(model: ScriptedModel, **kwargs: object):
    return run_role(model, PROMPT, Answer, values={"question": "What is {x}?"}, **kwargs)


def test_first_valid_reply_is_one_attempt_with_provenance() -> None:
    model = ScriptedModel({"generator": ['{"answer": "yes", "score": 3}']}, model_id="m-1")

    result = _run(model)

    assert result.ok and result.output == Answer(answer="yes", score=3)
    assert result.record.role == "generator"
    assert result.record.model == "m-1"
    assert result.record.prompt_sha256 == PROMPT.sha256
    assert result.record.attempts == 1 and result.record.failures == []
    # Braces in values are kept as they are: templates substitute $names only.
    assert model.requests[0].messages[1]["content"] == "Question: What is {x}?"


def test_success_on_second_attempt_records_the_refused_output_and_reminds_of_the_error() -> None:
    model = ScriptedModel({"generator": ['{"answer": "yes"}', '{"answer": "yes", "score": 3}']})

    result = _run(model)

    assert result.output == Answer(answer="yes", score=3)
    assert result.record.attempts == 2
    [failure] = result.record.failures
    assert failure.raw_output == '{"answer": "yes"}'
    assert failure.error == "score: Field required"
    retry = model.requests[1].messages
    assert retry[:2] == model.requests[0].messages
    assert retry[2] == {"role": "assistant", "content": '{"answer": "yes"}'}
    assert retry[3]["role"] == "user" and "score: Field required" in retry[3]["content"]


def test_three_invalid_outputs_give_no_output_and_record_every_failure() -> None:
    replies = ["not json at all", '{"answer": 1, "score": 2}', '{"answer": "a", "score": 1, "x": 0}']
    model = ScriptedModel({"generator": replies})

    result = _run(model)

    assert not result.ok and result.output is None
    assert result.record.attempts == 3
    assert [f.raw_output for f in result.record.failures] == replies
    assert "Invalid JSON" in result.record.failures[0].error
    assert result.record.failures[1].error == "answer: Input should be a valid string"
    assert result.record.failures[2].error == "x: Extra inputs are not permitted"
    assert len(model.requests) == 3


def test_a_check_in_code_refuses_output_the_schema_accepts() -> None:
    def positive(answer: Answer) -> Answer:
        if answer.score <= 0:
            raise ValueError("score: must be positive")
        return answer

    model = ScriptedModel({"generator": ['{"answer": "a", "score": 0}', '{"answer": "a", "score": 5}']})

    result = _run(model, check=positive)

    assert result.output is not None and result.output.score == 5
    assert result.record.failures[0].error == "score: must be positive"


def test_a_markdown_fence_around_json_is_not_a_failure() -> None:
    fenced = '```json\n{"answer": "a", "score": 1}\n```'
    result = _run(ScriptedModel({"generator": [fenced]}))
    assert result.output == Answer(answer="a", score=1) and result.record.attempts == 1


def test_scripted_model_replies_with_callables_models_and_dicts_and_runs_out_loudly() -> None:
    model = ScriptedModel(
        {
            "generator": [
                {"answer": "from a dict", "score": 1},
                Answer(answer="from a model", score=2),
                lambda request: json.dumps({"answer": request.role, "score": len(request.messages)}),
            ]
        }
    )
    assert [_run(model).output.answer for _ in range(3)] == ["from a dict", "from a model", "generator"]
    with pytest.raises(ScriptExhausted):
        _run(model)
    with pytest.raises(ScriptExhausted, match="no script for role 'critic'"):
        run_role(model, PromptTemplate("critic", "s", "u"), Answer, values={})


def test_prompt_hash_identifies_the_template_not_the_values() -> None:
    other = PromptTemplate(role="generator", system="Answer in JSON!", user="Question: $question")
    assert PROMPT.sha256 != other.sha256
    assert len(PROMPT.sha256) == 64
    with pytest.raises(KeyError):
        PROMPT.render()


def test_from_env_is_none_without_a_base_url_and_reads_the_settings() -> None:
    assert OpenAIChatModel.from_env({}) is None
    assert OpenAIChatModel.from_env({"LLM_MODEL": "m"}) is None

    model = OpenAIChatModel.from_env(
        {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "qwen2.5", "LLM_TIMEOUT_SECONDS": "7.5"}
    )

    assert model is not None and model.model_id == "qwen2.5" and model.base_url == "http://127.0.0.1:9/v1"


def test_from_env_gives_up_on_a_slow_server_after_llm_timeout_seconds(fake_server: FakeOpenAIServer) -> None:
    # The console's variable: the same environment that configures the console configures the engine.
    fake_server.responder = lambda received: Reply(content='{"answer": "late", "score": 1}', delay=3.0)
    model = OpenAIChatModel.from_env(
        {"LLM_BASE_URL": fake_server.base_url, "LLM_MODEL": "m", "LLM_TIMEOUT_SECONDS": "0.2"}
    )
    assert model is not None

    started = time.monotonic()
    with pytest.raises(TransientError, match="unreachable"):
        model.complete_json(role="generator", messages=[{"role": "user", "content": "Hi"}], schema=Answer)

    assert time.monotonic() - started < 3.0  # gave up before the server's first reply


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"LLM_BASE_URL": "http://127.0.0.1:9/v1"}, "LLM_MODEL: must be set"),
        (
            {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "m", "LLM_TIMEOUT_SECONDS": "soon"},
            "LLM_TIMEOUT_SECONDS: not a number",
        ),
        (
            {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "m", "LLM_TIMEOUT_SECONDS": "0"},
            "LLM_TIMEOUT_SECONDS: must be positive",
        ),
        (
            {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "m", "LLM_TIMEOUT": "30"},
            "LLM_TIMEOUT: renamed LLM_TIMEOUT_SECONDS",
        ),
    ],
)
def test_from_env_refuses_incomplete_settings(env: dict[str, str], message: str) -> None:
    with pytest.raises(PermanentError, match=message):
        OpenAIChatModel.from_env(env)
