"""A request's body read as JSON, and a submission validated: every refusal names the field at fault."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db.models import CharField
from django.http import HttpRequest
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from reviewconsole.api.errors import ApiError, field_error
from reviewconsole.api.schemas import ErrorCode, FieldError
from reviewconsole.intake.constitutions import constitution_pin
from reviewconsole.intake.models import Source as StoredSource
from reviewconsole.policy.engine import configured_model
from reviewconsole.policy.models import ConstitutionVersion
from verification import types as contract

# Deeper than any case needs (metadata included), and far from Python's recursion limit.
MAX_JSON_DEPTH = 32


def _stored_chars(field: str) -> int:
    """What the database holds of a source's `field`; the contract itself sets no limit."""
    column = StoredSource._meta.get_field(field)
    if not isinstance(column, CharField) or column.max_length is None:
        raise TypeError(f"Source.{field} has no max_length to check submissions against")
    return column.max_length


_TITLE_CHARS = _stored_chars("title")
_URI_CHARS = _stored_chars("uri")



def read_json(request: HttpRequest) -> Any:
    length = request.headers.get("Content-Length")
    if length is not None and (not length.isdigit() or int(length) > settings.API_MAX_BODY_BYTES):
        raise _too_large_body()
    content_type = request.content_type or ""
    if content_type != "application/json":
        raise field_error(415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Content-Type", "must be application/json")
    if length is None and request.META.get("wsgi.input_terminated"):
        # A chunked body (no Content-Length): Django reads none without a length, but a server that ends the
        # input where the body ends (gunicorn does, and says so) lets it be read to its end, and no further.
        chunked = request.META["wsgi.input"].read(settings.API_MAX_BODY_BYTES + 1)
        if len(chunked) > settings.API_MAX_BODY_BYTES:
            raise _too_large_body()
        request._body = chunked  # what request.body answers from now on
    try:
        body = request.body
    except RequestDataTooBig:
        raise _too_large_body() from None
    too_deep = field_error(400, ErrorCode.MALFORMED_JSON, "body", f"nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise field_error(400, ErrorCode.MALFORMED_JSON, "body", f"not valid JSON: {error}") from None
    except _NumberRefused as refused:
        raise field_error(400, ErrorCode.MALFORMED_JSON, "body", str(refused)) from None
    except RecursionError:
        raise too_deep from None
    if _depth(data) > MAX_JSON_DEPTH:
        raise too_deep
    return data


def _too_large_body() -> ApiError:
    message = f"the body must be at most {settings.API_MAX_BODY_BYTES} bytes"
    return field_error(413, ErrorCode.TOO_LARGE, "body", message)


class _NumberRefused(ValueError):
    """A number the database cannot store as sent, or that Python will not read."""


# Far more than any identifier or amount needs, far below the 4,300 digits past which Python refuses.
MAX_INT_DIGITS = 100


def _refuse_constant(name: str) -> float:
    raise _NumberRefused(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NumberRefused(f"the number {text[:40]} is too large to store")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _NumberRefused(f"an integer of {digits} digits; at most {MAX_INT_DIGITS} are stored")
    return int(text)


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in `value`; counted without recursion, whatever the depth."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def validate_submission(data: Any) -> tuple[contract.Case, ConstitutionVersion]:
    """The submission as the engine's contract, and the constitution version it will be pinned to."""
    if not isinstance(data, dict):
        raise field_error(400, ErrorCode.INVALID, "body", "must be a JSON object")
    unstorable = list(_unstorable_text(data, ""))
    if unstorable:
        # PostgreSQL text holds neither U+0000 nor a lone surrogate (not UTF-8): refuse them here, naming
        # the field, rather than fail at the insert.
        raise ApiError(400, ErrorCode.INVALID, unstorable)
    try:
        submission = contract.Case.model_validate(data)
    except ValidationError as error:
        raise ApiError(400, ErrorCode.INVALID, [pydantic_error(e) for e in error.errors()]) from None
    limits = [
        ("question", len(submission.question), settings.API_MAX_QUESTION_CHARS, "characters"),
        ("answer", len(submission.answer or ""), settings.API_MAX_ANSWER_CHARS, "characters"),
        ("sources", len(submission.sources), settings.API_MAX_SOURCES, "sources"),
    ] + [
        (f"sources.{index}.{name}", len(value), limit, "characters")
        for index, source in enumerate(submission.sources)
        for name, value, limit in (
            ("text", source.text, settings.API_MAX_SOURCE_CHARS),
            ("title", source.title or "", _TITLE_CHARS),
            ("uri", source.uri or "", _URI_CHARS),
        )
    ]
    errors = [
        FieldError(field=field, message=f"at most {limit} {unit} (got {size})")
        for field, size, limit, unit in limits
        if size > limit
    ]
    if errors:
        raise ApiError(400, ErrorCode.TOO_LARGE, errors)
    if submission.answer is not None and not submission.answer.strip():
        raise field_error(400, ErrorCode.INVALID, "answer", "must not be blank")
    if submission.answer is None and configured_model() is None:
        # Only a model can draft a missing answer; refused now rather than stored to fail in the worker.
        raise field_error(400, ErrorCode.INVALID, "answer", "is required: no model is configured to draft one")
    # Resolved once here and handed to case_submit, which pins exactly this version.
    pin = constitution_pin(submission.constitution)
    if pin is None:
        raise field_error(400, ErrorCode.INVALID, "constitution", f"no constitution named {submission.constitution!r}")
    return submission, pin


def _unstorable_text(value: Any, path: str) -> Iterator[FieldError]:
    """Each string (or object key) in `value` that the database cannot store, by its field's path."""
    if isinstance(value, str):
        problem = text_problem(value)
        if problem:
            yield FieldError(field=path or "body", message=problem)
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            problem = text_problem(str(key))
            if problem:
                yield FieldError(field=child.encode("utf-8", "backslashreplace").decode("ascii", "replace"),
                                 message=f"its name {problem}")
            else:
                yield from _unstorable_text(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unstorable_text(item, f"{path}.{index}" if path else str(index))


def text_problem(text: str) -> str:
    if "\x00" in text:
        return "must not contain NUL (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode: it holds a lone surrogate (\\ud800-\\udfff)"
    return ""


def pydantic_error(error: ErrorDetails) -> FieldError:
    field = ".".join(str(part) for part in error["loc"]) or "body"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "missing":
        message = "is required"
    return FieldError(field=field, message=message)

