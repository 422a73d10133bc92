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

from pydantic import BaseModel, ConfigDict, PlainSerializer, WithJsonSchema

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


class CaseStatus(_Shape):
    """A case as its client sees it: where it is, its run record and any reviewer's decision."""

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
    run_record: contract.RunRecord | None
    """The engine's run record; its candidates are the case's stored chain, a reviewer's edits included."""
