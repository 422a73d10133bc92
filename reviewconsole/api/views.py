"""The client API (/api/v1/): submit a case, read its outcome. Token auth, JSON in and out."""

from __future__ import annotations

import base64
import functools
import json
import logging
import math
from collections.abc import Callable, Iterator
from typing import Any, get_origin

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.db.models import CharField
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from reviewconsole import stamps
from reviewconsole.api import selectors
from reviewconsole.api.openapi import openapi_document
from reviewconsole.api.schemas import CaseListQuery, CasePage, Error, ErrorCode, FieldError
from reviewconsole.intake import quotas, services
from reviewconsole.intake.constitutions import constitution_pin
from reviewconsole.intake.models import Client
from reviewconsole.intake.models import Source as StoredSource
from reviewconsole.policy.engine import configured_model
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.server_errors import DATABASE_RETRY_SECONDS
from verification import types as contract

logger = logging.getLogger(__name__)

# Deeper than any case needs (metadata included), and far from Python's recursion limit.
MAX_JSON_DEPTH = 32
UNAVAILABLE_RETRY_SECONDS = DATABASE_RETRY_SECONDS


def _stored_chars(field: str) -> int:
    """What the database holds of a source's `field`; the contract itself sets no limit."""
    column = StoredSource._meta.get_field(field)
    if not isinstance(column, CharField) or column.max_length is None:
        raise TypeError(f"Source.{field} has no max_length to check submissions against")
    return column.max_length


_TITLE_CHARS = _stored_chars("title")
_URI_CHARS = _stored_chars("uri")


def _json(body: BaseModel, status: int = 200) -> JsonResponse:
    """Every body the API sends is one of the models of schemas.py, so it is what the document says."""
    return JsonResponse(body.model_dump(mode="json", by_alias=True), status=status)


class ApiError(Exception):
    """A refused request: HTTP status, a machine-readable code, and the fields at fault."""

    def __init__(self, status: int, code: ErrorCode, errors: list[FieldError]):
        super().__init__(code)
        self.status = status
        self.code = code
        self.errors = errors

    def response(self) -> JsonResponse:
        return _json(Error.of(self.code, self.errors), status=self.status)


def _field_error(status: int, code: ErrorCode, field: str, message: str) -> ApiError:
    return ApiError(status, code, [FieldError(field=field, message=message)])


def api_view(*methods: str) -> Callable[[Callable[..., JsonResponse]], Callable[..., JsonResponse]]:
    """An API endpoint: token-authenticated, so exempt from CSRF; every answer, errors too, is JSON.

    A method not in `methods` gets 405 naming the allowed ones; an ApiError becomes its response; a
    client over one of its limits, a 429 naming it with Retry-After (a 413 naming it, when no retry can
    pass); a database that does not answer, a
    503 with Retry-After; anything else is logged and answered with a
    JSON 500 rather than the console's HTML page.
    """

    def decorate(view: Callable[..., JsonResponse]) -> Callable[..., JsonResponse]:
        @csrf_exempt
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
            if request.method not in methods:
                allowed = ", ".join(methods)
                message = f"{request.method} is not allowed here; use {allowed}"
                response = _field_error(405, ErrorCode.METHOD_NOT_ALLOWED, "method", message).response()
                response["Allow"] = allowed
                return response
            try:
                # The token and the constitution are checked under one read of the stamp that guards
                # their caches: one round trip to Redis a request.
                with stamps.CONFIGURATION.one_read():
                    return view(request, *args, **kwargs)
            except ApiError as error:
                return error.response()
            except quotas.OverLimit as over:
                if over.retry_after is None:
                    # Refused for good (a body larger than a whole day's bytes): a retry would be refused again.
                    return _field_error(413, ErrorCode.TOO_LARGE, over.limit.value, over.message).response()
                response = _field_error(429, ErrorCode.RATE_LIMITED, over.limit.value, over.message).response()
                response["Retry-After"] = str(over.retry_after)
                return response
            except (OperationalError, InterfaceError):
                # The database went away (a restart, a failover): nothing was stored; the client retries.
                logger.warning("API request %s %s: the database is not answering", request.method, request.path)
                response = _field_error(503, ErrorCode.UNAVAILABLE, "", "the database is not answering; retry "
                                        f"in {UNAVAILABLE_RETRY_SECONDS} seconds").response()
                response["Retry-After"] = str(UNAVAILABLE_RETRY_SECONDS)
                return response
            except Exception:
                logger.exception("API request %s %s failed", request.method, request.path)
                return _field_error(500, ErrorCode.INTERNAL, "", "internal error; it was logged").response()

        return wrapper

    return decorate


def _authenticate(request: HttpRequest) -> Client:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _field_error(401, ErrorCode.UNAUTHORIZED, "Authorization", "send 'Authorization: Bearer <token>'")
    # Every request a client makes counts against its rate (quotas.OverLimit: a 429).
    client = quotas.client_admit(token.strip())
    if client is None:
        raise _field_error(401, ErrorCode.UNAUTHORIZED, "Authorization", "unknown or revoked token")
    return client


def _read_json(request: HttpRequest) -> Any:
    length = request.headers.get("Content-Length")
    if length is not None and (not length.isdigit() or int(length) > settings.API_MAX_BODY_BYTES):
        raise _too_large_body()
    content_type = request.content_type or ""
    if content_type != "application/json":
        raise _field_error(415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Content-Type", "must be application/json")
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
    too_deep = _field_error(400, ErrorCode.MALFORMED_JSON, "body", f"nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _field_error(400, ErrorCode.MALFORMED_JSON, "body", f"not valid JSON: {error}") from None
    except _NumberRefused as refused:
        raise _field_error(400, ErrorCode.MALFORMED_JSON, "body", str(refused)) from None
    except RecursionError:
        raise too_deep from None
    if _depth(data) > MAX_JSON_DEPTH:
        raise too_deep
    return data


def _too_large_body() -> ApiError:
    message = f"the body must be at most {settings.API_MAX_BODY_BYTES} bytes"
    return _field_error(413, ErrorCode.TOO_LARGE, "body", message)


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


def _validate_submission(data: Any) -> tuple[contract.Case, ConstitutionVersion]:
    """The submission as the engine's contract, and the constitution version it will be pinned to."""
    if not isinstance(data, dict):
        raise _field_error(400, ErrorCode.INVALID, "body", "must be a JSON object")
    unstorable = list(_unstorable_text(data, ""))
    if unstorable:
        # PostgreSQL text holds neither U+0000 nor a lone surrogate (not UTF-8): refuse them here, naming
        # the field, rather than fail at the insert.
        raise ApiError(400, ErrorCode.INVALID, unstorable)
    try:
        submission = contract.Case.model_validate(data)
    except ValidationError as error:
        raise ApiError(400, ErrorCode.INVALID, [_pydantic_error(e) for e in error.errors()]) from None
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
        raise _field_error(400, ErrorCode.INVALID, "answer", "must not be blank")
    if submission.answer is None and configured_model() is None:
        # Only a model can draft a missing answer; refused now rather than stored to fail in the worker.
        raise _field_error(400, ErrorCode.INVALID, "answer", "is required: no model is configured to draft one")
    # Resolved once here and handed to case_submit, which pins exactly this version.
    pin = constitution_pin(submission.constitution)
    if pin is None:
        raise _field_error(400, ErrorCode.INVALID, "constitution", f"no constitution named {submission.constitution!r}")
    return submission, pin


def _unstorable_text(value: Any, path: str) -> Iterator[FieldError]:
    """Each string (or object key) in `value` that the database cannot store, by its field's path."""
    if isinstance(value, str):
        problem = _text_problem(value)
        if problem:
            yield FieldError(field=path or "body", message=problem)
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            problem = _text_problem(str(key))
            if problem:
                yield FieldError(field=child.encode("utf-8", "backslashreplace").decode("ascii", "replace"),
                                 message=f"its name {problem}")
            else:
                yield from _unstorable_text(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unstorable_text(item, f"{path}.{index}" if path else str(index))


def _text_problem(text: str) -> str:
    if "\x00" in text:
        return "must not contain NUL (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode: it holds a lone surrogate (\\ud800-\\udfff)"
    return ""


def _pydantic_error(error: ErrorDetails) -> FieldError:
    field = ".".join(str(part) for part in error["loc"]) or "body"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "missing":
        message = "is required"
    return FieldError(field=field, message=message)


@api_view("GET", "POST")
def cases(request: HttpRequest) -> JsonResponse:
    """GET /api/v1/cases: the client's cases, filtered, a page at a time. POST: submit a case."""
    if request.method == "GET":
        return _case_list(request)
    return _case_submit(request)


def _case_list(request: HttpRequest) -> JsonResponse:
    client = _authenticate(request)
    query = _list_query(request)
    found = selectors.client_cases(client=client, query=query, before=_cursor_position(query.cursor))
    next_cursor = next_url = None
    if found.next_before is not None:
        next_cursor = _cursor(found.next_before)
        params = request.GET.copy()
        params["cursor"] = next_cursor
        next_url = f"{reverse('api-cases')}?{params.urlencode()}"
    return _json(CasePage(cases=found.cases, next_cursor=next_cursor, next_url=next_url))


_LIST_PARAMETERS = {
    name: get_origin(field.annotation) is list for name, field in CaseListQuery.model_fields.items()
}


def _list_query(request: HttpRequest) -> CaseListQuery:
    unknown = sorted(set(request.GET) - set(_LIST_PARAMETERS))
    if unknown:
        raise ApiError(400, ErrorCode.INVALID, [
            FieldError(field=name, message=f"not a parameter of this endpoint; it takes {', '.join(_LIST_PARAMETERS)}")
            for name in unknown
        ])
    given: dict[str, Any] = {}
    for name, repeatable in _LIST_PARAMETERS.items():
        if name not in request.GET:
            continue
        if repeatable:
            given[name] = [value for values in request.GET.getlist(name) for value in values.split(",")]
        else:
            given[name] = request.GET[name]
    unstorable = [
        FieldError(field=name, message=problem)
        for name in given for value in request.GET.getlist(name) if (problem := _text_problem(value))
    ]
    if unstorable:
        raise ApiError(400, ErrorCode.INVALID, unstorable)
    try:
        return CaseListQuery.model_validate(given)
    except ValidationError as error:
        raise ApiError(400, ErrorCode.INVALID, [_pydantic_error(e) for e in error.errors()]) from None


# A cursor is opaque to the client: the position the next page starts below, under a prefix that marks it as ours.
_CURSOR_PREFIX = "cases-before:"


def _cursor(before: int) -> str:
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{before}".encode()).decode().rstrip("=")


def _cursor_position(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        text = ""
    position = text.removeprefix(_CURSOR_PREFIX)
    digits = position.isascii() and position.isdigit() and len(position) <= MAX_INT_DIGITS
    if not text.startswith(_CURSOR_PREFIX) or not digits:
        raise _field_error(400, ErrorCode.INVALID, "cursor", "not a cursor this API gave; pass a page's next_cursor")
    return int(position)


def _case_submit(request: HttpRequest) -> JsonResponse:
    """202 with the new case, 200 with the same case submitted before, 409 when another case was submitted
    under that external_id."""
    client = _authenticate(request)
    submission, pin = _validate_submission(_read_json(request))
    # The submission pins the version in force now: a version published later does not change this case.
    try:
        case, created = services.case_submit(client=client, submission=submission, pin=pin,
                                             body_bytes=len(request.body))
    except services.ExternalIdTaken as taken:
        raise _field_error(409, ErrorCode.CONFLICT, "external_id", str(taken)) from None
    # The case as stored: a new one is answered from the row just written (the insert sets every field
    # the answer shows), a case submitted before as read back.
    response = _json(selectors.case_status(case), status=202 if created else 200)
    response["Location"] = reverse("api-case", args=[case.pk])
    return response


@api_view("GET")
def case_detail(request: HttpRequest, case_id: int) -> JsonResponse:
    """GET /api/v1/cases/{id}: status, run record and any decision. Only the submitting client sees it."""
    client = _authenticate(request)
    case = selectors.client_case(client=client, case_id=case_id)
    if case is None:
        raise _field_error(404, ErrorCode.NOT_FOUND, "id", f"no case {case_id} for this client")
    return _json(selectors.case_status(case))


@api_view("GET")
def openapi(request: HttpRequest) -> JsonResponse:
    """GET /api/v1/openapi.json: generated from the same models the other views answer with."""
    return JsonResponse(openapi_document())


@csrf_exempt
def not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Any other path under /api/: the API's 404, in the API's error shape, whatever the method."""
    return _field_error(404, ErrorCode.NOT_FOUND, "path", f"no API endpoint at {request.path}").response()
