"""The shapes /api/v1/ answers with, as pydantic models.

The views build every body from these models and openapi.py generates the document from the same
models, so the two cannot say different things. What a client submits is the engine's own case
contract (`verification.types.Case`); the run record inside a case's status is the engine's
`RunRecord`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema, field_validator

from reviewconsole.intake.models import CaseStatus as StoredStatus
from verification import types as contract

# Offsets written as "+00:00", as the API always has (pydantic alone would write "Z").
Timestamp = Annotated[
    datetime,
    PlainSerializer(lambda value: value.isoformat(), return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]

# Where a case is, as the API names it: the stored status's values, under a name of its own in the
# document (the response below is "CaseStatus").
# Built from the stored statuses so the two cannot drift apart; mypy sees no members in an enum built
# from a computed list, and needs none (values are converted with `Status(value)`).
Status = StrEnum("Status", [(value, value) for value in StoredStatus.values])  # type: ignore[misc]
Status.__doc__ = "Where the case is: queued, running, or one of its outcomes."


class _Shape(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


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


class FieldError(_Shape):
    """One thing wrong with a request."""

    field: str
    """The field at fault, dotted for nested ones ("sources.0.text"); empty when no one field is."""
    message: str
    """What is wrong with it."""


class Error(_Shape):
    """Every refused or failed request, whatever the endpoint and status."""

    error: ErrorCode
    """What kind of error it is."""
    message: str
    """Every field error in one line, for a log."""
    errors: list[FieldError]
    """Each field at fault, with what is wrong with it."""

    @classmethod
    def of(cls, code: ErrorCode, errors: list[FieldError]) -> Error:
        message = "; ".join(f"{e.field}: {e.message}" if e.field else e.message for e in errors)
        return cls(error=code, message=message, errors=errors)


# The review app's decision kinds, spelled out, so that renaming one there cannot change the published contract.
DecisionKindName = Literal["APPROVE", "EDIT", "REJECT"]


class Decision(_Shape):
    """A reviewer's latest decision on the case."""

    kind: DecisionKindName
    """APPROVE releases `candidate`, REJECT releases nothing; EDIT is a reviewer's rewrite awaiting approval."""
    candidate: str
    """The id of the version decided on; it is one of `run_record.candidates`."""
    reason_code: str | None
    """Why it was rejected, as a code."""
    note: str | None
    """The reviewer's note."""
    override: bool
    """Whether the reviewer approved over claims that still failed, giving a written reason."""
    adjudicated: bool
    """Whether a review lead took it, settling two independent reviews of the case that disagreed."""
    decided_at: Timestamp
    """When."""


class CaseSummary(_Shape):
    """A case as a list of cases gives it: everything of its status but the run record."""

    id: int
    """The case's id."""
    external_id: str | None
    """The client's own id for the case, as submitted."""
    status: Status
    """Where the case is."""
    status_url: str
    """Where to read this again."""
    terminal: contract.Terminal | None
    """How the engine's run ended; null until it has."""
    reason: contract.Reason | None
    """Why the run ended so; null until it has."""
    released_answer: str | None
    """The only text to show the end user: set when released or approved by a person."""
    constitution: str | None
    """The constitution the case runs under: the one it named, or "default" when it named none."""
    constitution_version: str | None
    """The version of it pinned when the case was submitted (the engine's version string)."""
    constitution_version_number: int | None
    """That version's number, as the console shows it ("default v3")."""
    submitted_at: Timestamp
    """When the case was submitted."""
    finished_at: Timestamp | None
    """When its run finished."""
    error: str | None
    """Why the run failed, when the status is FAILED."""
    decision: Decision | None
    """The latest reviewer's decision, if any."""
    updated_at: Timestamp
    """When what this shows last changed: the case's outcome, or a reviewer's decision once it is shown."""


class CaseStatus(CaseSummary):
    """A case as its client sees it: where it is, its run record and any reviewer's decision."""

    run_record: contract.RunRecord | None
    """The engine's run record; its candidates are the case's stored chain, a reviewer's edits included."""


class CasePage(_Shape):
    """One page of a client's cases, newest first."""

    cases: list[CaseSummary]
    """The cases of this page, newest (highest id) first; a page may hold fewer than `limit` while more follow."""
    next_cursor: str | None
    """Pass it as `cursor`, with the same filters, for the next page; null on the last page."""
    next_url: str | None
    """The next page's URL, filters and cursor included; null on the last page."""


MAX_PAGE_SIZE = 100
_EXAMPLE_TIME = "2026-01-02T03:04:05+00:00"


class CaseListQuery(_Shape):
    """The query parameters of `GET /cases`; a filter left out does not filter. Filters combine with AND."""

    status: list[Status] = []
    """Only cases in one of these statuses (repeat the parameter, or separate values with commas)."""
    terminal: list[contract.Terminal] = []
    """Only cases whose run ended in one of these terminal states (repeated, or comma-separated)."""
    constitution: str | None = None
    """Only cases that run under this constitution ("default" for cases that named none)."""
    external_id: str | None = None
    """Only the case submitted under this external_id."""
    updated_since: AwareDatetime | None = None
    """Only cases whose `updated_at` is at or after this time (ISO 8601 with its offset; encode "+" as %2B)."""
    limit: int = Field(default=50, ge=1, le=MAX_PAGE_SIZE)
    """At most this many cases a page."""
    cursor: str | None = None
    """Where the page starts: the `next_cursor` of the page before."""

    @field_validator("updated_since", mode="before")
    @classmethod
    def _iso_time(cls, value: object) -> object:
        # Pydantic would also read a number as seconds since 1970; the API takes what its document says.
        if isinstance(value, str):
            try:
                datetime.fromisoformat(value)
            except ValueError:
                raise ValueError(f"must be an ISO 8601 time with its offset, such as {_EXAMPLE_TIME}") from None
        return value
