"""The shapes the review console's API sends and takes, as pydantic models.

Written to match the API's OpenAPI document (`/api/v1/openapi.json`); the console's test suite compares
them with it, so a change to the API that this client does not follow fails there. Models of what the API
sends ignore fields they do not know, so a console that adds a field does not break a deployed client.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Status(StrEnum):
    """Where a case is: queued, running, or one of its outcomes."""

    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    RELEASED = "RELEASED"
    ESCALATED = "ESCALATED"
    REJECTED = "REJECTED"
    FAILED = "FAILED"

    @property
    def final(self) -> bool:
        """Whether nothing more will happen to the case: released, rejected or failed."""
        return self in (Status.RELEASED, Status.REJECTED, Status.FAILED)


class Terminal(StrEnum):
    """How the engine's run of a case ended."""

    PERMIT = "PERMIT"
    REVIEW = "REVIEW"
    ABSTAIN = "ABSTAIN"
    REJECT = "REJECT"


class ErrorCode(StrEnum):
    """What kind of refusal or failure an error is."""

    INVALID = "invalid"
    MALFORMED_JSON = "malformed_json"
    TOO_LARGE = "too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    UNAUTHORIZED = "unauthorized"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    CONFLICT = "conflict"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"


DecisionKind = Literal["APPROVE", "EDIT", "REJECT"]


class _Sent(BaseModel):
    """What the API sends: fields it adds later are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class _Taken(BaseModel):
    """What the API takes: a misspelt field fails here, before a request is made."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(_Taken):
    """A piece of admissible evidence: the only text the answer is checked against."""

    id: str
    text: str
    title: str | None = None
    uri: str | None = None


class CaseSubmission(_Taken):
    """An answer to check, with the sources it was built from."""

    question: str
    sources: list[Source]
    answer: str | None = None
    """Optional only where the console has a model configured to draft one."""
    external_id: str | None = None
    """Your id for the case (a ticket or message id): sending it again returns the first case."""
    constitution: str | None = None
    """The constitution to judge it by; the console's default when left out."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything of yours; echoed back in the run record."""


class FieldError(_Sent):
    """One thing wrong with a request."""

    field: str
    """The field at fault, dotted for nested ones ("sources.0.text"); empty when no one field is."""
    message: str


class ErrorBody(_Sent):
    """The body of every refused or failed request."""

    error: ErrorCode | str
    message: str
    errors: list[FieldError]


class Decision(_Sent):
    """A reviewer's latest decision on a case."""

    kind: DecisionKind | str
    candidate: str
    reason_code: str | None
    note: str | None
    override: bool
    adjudicated: bool
    decided_at: datetime


class CaseSummary(_Sent):
    """A case as a list gives it: its status without the run record."""

    id: int
    external_id: str | None
    status: Status
    status_url: str
    terminal: Terminal | None
    reason: str | None
    """Why the run ended so (ALL_SUPPORTED, CRITICAL_CLAIM, ...); the console adds reasons over time."""
    released_answer: str | None
    """The only text to show your user: set once the engine released it or a person approved it."""
    constitution: str | None
    constitution_version: str | None
    constitution_version_number: int | None
    submitted_at: datetime
    finished_at: datetime | None
    error: str | None
    decision: Decision | None
    updated_at: datetime


class Case(CaseSummary):
    """A case with the engine's whole run record (candidates, claims, evidence, repairs)."""

    run_record: dict[str, Any] | None


class CasePage(_Sent):
    """One page of cases, newest first."""

    cases: list[CaseSummary]
    next_cursor: str | None
    next_url: str | None


class CaseEvent(_Sent):
    """What a webhook says about a case; fetch the case for the rest."""

    case_id: int
    external_id: str | None
    status: Status
    terminal: Terminal | None
    reason: str | None
    answer: str | None
    """The text you may release, or None when the case was not released."""
    error: str | None = None
    """Why the case failed (case.failed)."""
    decision: Decision | None = None
    """The reviewer's decision (case.decided)."""

    @field_validator("terminal", "reason", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        # A case that failed before its run ended has neither; the webhook sends them empty.
        return value or None


class WebhookEvent(_Sent):
    """One verified webhook delivery."""

    id: str
    """The message id (`webhook-id`): the same on every retry of an event, so use it to drop repeats."""
    type: str
    """case.released, case.escalated, case.rejected, case.decided, case.failed, or a type added later."""
    timestamp: datetime
    data: CaseEvent | dict[str, Any]
    """A `CaseEvent` for the case.* types; the raw data of a type this client does not know."""
