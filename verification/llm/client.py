"""The one interface every model role talks through, and running a role with validated output.

Every role (verifier, question_writer, critic, reviser, generator) sends chat messages and asks for one
JSON object matching a pydantic schema. `run_role` owns the part that is the same for all of them:
render the prompt template, call the model, validate, retry with a format reminder, and record the
provenance (model id, prompt template hash, attempts, each refused output) in a `ModelCallRecord`.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from pydantic import BaseModel, ValidationError

from verification.errors import PermanentError, TransientError
from verification.types import ModelCallRecord, ModelFailure, sha256_text

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.shared_params import ResponseFormatJSONSchema

Message = dict[str, str]
OutputT = TypeVar("OutputT", bound=BaseModel)

MAX_ATTEMPTS = 3
"""Calls per role before its output is given up as invalid."""


@dataclass(frozen=True)
class ModelReply:
    """What a model server returned for one call."""

    text: str
    """The raw content of the reply, before any validation."""
    model: str
    """The model id the server reported, or the one asked for when it reported none."""
    tokens: int = 0
    """Tokens the server reported for the call (prompt and completion); 0 when it reported none."""


class ChatModel(Protocol):
    """A chat model that answers with one JSON object shaped by a pydantic schema."""

    model_id: str
    """The model asked for; recorded with every judgement it makes."""

    def complete_json(self, *, role: str, messages: list[Message], schema: type[BaseModel]) -> ModelReply:
        """One call. Raises TransientError (retry later) or PermanentError (configuration is wrong)."""
        ...


@dataclass(frozen=True)
class PromptTemplate:
    """A role's prompt: a system message and a user message with `$name` placeholders."""

    role: str
    """The model role this prompt is for."""
    system: str
    """The fixed instructions."""
    user: str
    """The per-call message; `$name` placeholders are filled by `render`."""

    @property
    def sha256(self) -> str:
        """Identity of the template (not of a rendered prompt), recorded with every call it makes."""
        return sha256_text(f"{self.role}\n{self.system}\n{self.user}")

    def render(self, **values: str) -> list[Message]:
        """The messages for one call; a missing placeholder is a programming error (KeyError)."""
        # string.Template, not str.format: prompts quote JSON, whose braces str.format would eat.
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": Template(self.user).substitute(values)},
        ]


@dataclass(frozen=True)
class RoleResult(Generic[OutputT]):
    """The outcome of running one role: validated output, or None after the last refused attempt."""

    output: OutputT | None
    """The validated output; None when every attempt failed validation."""
    record: ModelCallRecord
    """Provenance: model, prompt hash, attempts and each refused output."""

    @property
    def ok(self) -> bool:
        """Whether the role produced valid output."""
        return self.output is not None


_FORMAT_REMINDER = (
    "Your previous reply was refused: {error}\n"
    "Reply again with exactly one JSON object that matches the required schema and nothing else."
)


def run_role(
    model: ChatModel,
    prompt: PromptTemplate,
    schema: type[OutputT],
    *,
    values: Mapping[str, str],
    check: Callable[[OutputT], OutputT] | None = None,
    max_attempts: int = MAX_ATTEMPTS,
) -> RoleResult[OutputT]:
    """Run `prompt` on `model` until its reply validates against `schema` (and `check`, if given).

    `check` validates what a schema cannot (a quote must exist in the sources) and may return a
    normalised output; it refuses by raising ValueError. A refused reply is retried with a reminder
    naming the error, up to `max_attempts` calls in all. Transport errors are not retried here: they
    propagate as TransientError / PermanentError for the caller's own retry policy.
    """
    messages = prompt.render(**values)
    failures: list[ModelFailure] = []
    reported_model = model.model_id
    tokens = 0
    for attempt in range(1, max_attempts + 1):
        reply = model.complete_json(role=prompt.role, messages=messages, schema=schema)
        tokens += reply.tokens
        reported_model = reply.model or model.model_id
        try:
            output = schema.model_validate_json(_strip_code_fence(reply.text))
            if check is not None:
                output = check(output)
        except (ValidationError, ValueError) as exc:
            error = describe_error(exc)
            failures.append(ModelFailure(raw_output=reply.text, error=error))
            messages = [
                *messages,
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": _FORMAT_REMINDER.format(error=error)},
            ]
            continue
        return RoleResult(output, _record(prompt, reported_model, attempt, failures, tokens))
    return RoleResult(None, _record(prompt, reported_model, max_attempts, failures, tokens))


def describe_error(exc: Exception) -> str:
    """One line naming each invalid field, such as "state: Input should be 'SUPPORTED', ..."."""
    if isinstance(exc, ValidationError):
        parts = []
        for error in exc.errors(include_url=False):
            where = ".".join(str(part) for part in error["loc"])
            message = str(error["msg"]).removeprefix("Value error, ")
            parts.append(f"{where}: {message}" if where else message)
        return "; ".join(parts)
    return str(exc)


def _record(
    prompt: PromptTemplate, model: str, attempts: int, failures: list[ModelFailure], tokens: int
) -> ModelCallRecord:
    return ModelCallRecord(
        role=prompt.role,
        model=model,
        prompt_sha256=prompt.sha256,
        attempts=attempts,
        failures=list(failures),
        tokens=tokens,
    )


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(?P<body>.*)\n\s*```\s*$", re.DOTALL)


def _strip_code_fence(text: str) -> str:
    # Small local models often wrap JSON in a Markdown fence even when asked not to; the content is
    # still the answer, so the fence is not worth a retry. The raw text is what gets recorded.
    match = _FENCE.match(text)
    return match.group("body") if match else text


def _json_schema_for(schema: type[BaseModel]) -> ResponseFormatJSONSchema:
    """The `response_format` payload asking a server for JSON that matches `schema`."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": True},
    }


# ---------------------------------------------------------------------------------------------
# OpenAI-compatible servers


class OpenAIChatModel:
    """Any OpenAI-compatible chat API (OpenAI, vLLM, Ollama, llama.cpp) through the `openai` SDK."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        temperature: float = 0.0,
    ) -> None:
        import openai

        self.model_id = model
        self.base_url = base_url
        self._temperature = temperature
        # Local servers ignore the key, but the SDK refuses to start without one.
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=max_retries
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> OpenAIChatModel | None:
        """Configured from LLM_BASE_URL, LLM_API_KEY, LLM_MODEL (and optional LLM_TIMEOUT_SECONDS).

        None when LLM_BASE_URL is unset: the engine then runs its offline verifier. The names are
        the console's own, so one environment configures both.
        """
        env = os.environ if environ is None else environ
        base_url = env.get("LLM_BASE_URL", "").strip()
        if not base_url:
            return None
        model = env.get("LLM_MODEL", "").strip()
        if not model:
            raise PermanentError("LLM_MODEL: must be set when LLM_BASE_URL is set")
        if "LLM_TIMEOUT" in env and "LLM_TIMEOUT_SECONDS" not in env:
            # The variable's old name: refuse it rather than silently run with the default timeout.
            raise PermanentError("LLM_TIMEOUT: renamed LLM_TIMEOUT_SECONDS; set that instead")
        raw_timeout = env.get("LLM_TIMEOUT_SECONDS", "").strip() or "60"
        try:
            timeout = float(raw_timeout)
        except ValueError:
            raise PermanentError(f"LLM_TIMEOUT_SECONDS: not a number of seconds: {raw_timeout!r}") from None
        if timeout <= 0:
            raise PermanentError(f"LLM_TIMEOUT_SECONDS: must be positive, got {raw_timeout!r}")
        return cls(base_url=base_url, model=model, api_key=env.get("LLM_API_KEY") or None, timeout=timeout)

    def complete_json(self, *, role: str, messages: list[Message], schema: type[BaseModel]) -> ModelReply:
        """One chat completion constrained to `schema`'s JSON Schema."""
        import openai

        try:
            completion = self._client.chat.completions.create(
                model=self.model_id,
                # The prompts' {"role", "content"} dicts are what the API takes; the SDK types each role as
                # its own TypedDict, which a dict of strings cannot be narrowed to.
                messages=cast("list[ChatCompletionMessageParam]", messages),
                response_format=_json_schema_for(schema),
                temperature=self._temperature,
            )
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise TransientError(f"{role}: model server unreachable at {self.base_url}: {exc}") from exc
        except openai.APIStatusError as exc:
            raise _status_error(role, exc) from exc
        tokens = completion.usage.total_tokens if completion.usage is not None else 0
        if not completion.choices:
            return ModelReply(text="", model=completion.model or self.model_id, tokens=tokens)
        message = completion.choices[0].message
        # A refusal is output like any other: it fails validation and is recorded verbatim.
        text = message.content if message.content is not None else (message.refusal or "")
        return ModelReply(text=text, model=completion.model or self.model_id, tokens=tokens)


def _status_error(role: str, exc: Any) -> TransientError | PermanentError:
    status = exc.status_code
    detail = f"{role}: model server answered HTTP {status}: {exc.message}"
    # 408/409 are the server's own "try again"; 429 and 5xx pass with time. Other 4xx need a fix.
    if status in (408, 409, 429) or status >= 500:
        return TransientError(detail)
    return PermanentError(detail)


# ---------------------------------------------------------------------------------------------
# A model double for tests


@dataclass(frozen=True)
class ModelRequest:
    """One request a `ScriptedModel` saw."""

    role: str
    """The role that asked."""
    messages: list[Message]
    """The messages as sent."""
    schema: type[BaseModel]
    """The output schema asked for."""

    @property
    def text(self) -> str:
        """All message contents joined: what the model had in view."""
        return "\n".join(message["content"] for message in self.messages)


ScriptedReply = str | BaseModel | Mapping[str, Any]
Responder = Callable[[ModelRequest], ScriptedReply]


class ScriptExhausted(AssertionError):
    """A `ScriptedModel` was asked more than its script answers."""


@dataclass
class ScriptedModel:
    """A model double: answers each role from a script and records every request it saw.

    A role's script is either one callable answering every request (use it when calls run
    concurrently and order is not fixed) or a sequence of replies consumed in order, each a canned
    string, a pydantic model or a dict (sent as JSON), or a callable of the request.
    """

    script: Mapping[str, Responder | Sequence[ScriptedReply | Responder]]
    """Replies per role."""
    model_id: str = "scripted"
    """The model id reported in records."""
    requests: list[ModelRequest] = field(default_factory=list)
    """Every request seen, in arrival order."""
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _used: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    def complete_json(self, *, role: str, messages: list[Message], schema: type[BaseModel]) -> ModelReply:
        """Answer from the script; raises ScriptExhausted when the role has no reply left."""
        request = ModelRequest(role=role, messages=[dict(m) for m in messages], schema=schema)
        with self._lock:
            self.requests.append(request)
            reply = self._next_reply(role)
        if callable(reply):
            reply = reply(request)
        return ModelReply(text=_as_text(reply), model=self.model_id)

    def requests_for(self, role: str) -> list[ModelRequest]:
        """The requests one role made, in arrival order."""
        return [request for request in self.requests if request.role == role]

    def _next_reply(self, role: str) -> ScriptedReply | Responder:
        if role not in self.script:
            raise ScriptExhausted(f"no script for role {role!r}")
        entry = self.script[role]
        if callable(entry):
            return entry
        index = self._used.get(role, 0)
        if isinstance(entry, str | BaseModel | Mapping) or index >= len(entry):
            raise ScriptExhausted(f"script for role {role!r} has no reply #{index + 1}")
        self._used[role] = index + 1
        return entry[index]


def _as_text(reply: ScriptedReply) -> str:
    if isinstance(reply, str):
        return reply
    if isinstance(reply, BaseModel):
        return reply.model_dump_json()
    return json.dumps(dict(reply))
