"""The client API (/api/v1/): submit a case, read its outcome. Token auth, JSON in and out."""

from __future__ import annotations

import base64
import functools
import logging
from collections.abc import Callable
from typing import Any, get_origin

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from pydantic import ValidationError

from reviewconsole import stamps
from reviewconsole.api import body, selectors
from reviewconsole.api.errors import ApiError, field_error, json_response
from reviewconsole.api.openapi import openapi_document
from reviewconsole.api.schemas import CaseListQuery, CasePage, ErrorCode, FieldError
from reviewconsole.intake import quotas, services
from reviewconsole.intake.models import Client
from reviewconsole.server_errors import DATABASE_RETRY_SECONDS

logger = logging.getLogger(__name__)

UNAVAILABLE_RETRY_SECONDS = DATABASE_RETRY_SECONDS


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
                response = field_error(405, ErrorCode.METHOD_NOT_ALLOWED, "method", message).response()
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
                    return field_error(413, ErrorCode.TOO_LARGE, over.limit.value, over.message).response()
                response = field_error(429, ErrorCode.RATE_LIMITED, over.limit.value, over.message).response()
                response["Retry-After"] = str(over.retry_after)
                return response
            except (OperationalError, InterfaceError):
                # The database went away (a restart, a failover): nothing was stored; the client retries.
                logger.warning("API request %s %s: the database is not answering", request.method, request.path)
                response = field_error(503, ErrorCode.UNAVAILABLE, "", "the database is not answering; retry "
                                        f"in {UNAVAILABLE_RETRY_SECONDS} seconds").response()
                response["Retry-After"] = str(UNAVAILABLE_RETRY_SECONDS)
                return response
            except Exception:
                logger.exception("API request %s %s failed", request.method, request.path)
                return field_error(500, ErrorCode.INTERNAL, "", "internal error; it was logged").response()

        return wrapper

    return decorate


def _authenticate(request: HttpRequest) -> Client:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise field_error(401, ErrorCode.UNAUTHORIZED, "Authorization", "send 'Authorization: Bearer <token>'")
    # Every request a client makes counts against its rate (quotas.OverLimit: a 429).
    client = quotas.client_admit(token.strip())
    if client is None:
        raise field_error(401, ErrorCode.UNAUTHORIZED, "Authorization", "unknown or revoked token")
    return client



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
    return json_response(CasePage(cases=found.cases, next_cursor=next_cursor, next_url=next_url))


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
        for name in given for value in request.GET.getlist(name) if (problem := body.text_problem(value))
    ]
    if unstorable:
        raise ApiError(400, ErrorCode.INVALID, unstorable)
    try:
        return CaseListQuery.model_validate(given)
    except ValidationError as error:
        raise ApiError(400, ErrorCode.INVALID, [body.pydantic_error(e) for e in error.errors()]) from None


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
    digits = position.isascii() and position.isdigit() and len(position) <= body.MAX_INT_DIGITS
    if not text.startswith(_CURSOR_PREFIX) or not digits:
        raise field_error(400, ErrorCode.INVALID, "cursor", "not a cursor this API gave; pass a page's next_cursor")
    return int(position)


def _case_submit(request: HttpRequest) -> JsonResponse:
    """202 with the new case, 200 with the same case submitted before, 409 when another case was submitted
    under that external_id."""
    client = _authenticate(request)
    submission, pin = body.validate_submission(body.read_json(request))
    # The submission pins the version in force now: a version published later does not change this case.
    try:
        case, created = services.case_submit(client=client, submission=submission, pin=pin,
                                             body_bytes=len(request.body))
    except services.ExternalIdTaken as taken:
        raise field_error(409, ErrorCode.CONFLICT, "external_id", str(taken)) from None
    # The case as stored: a new one is answered from the row just written (the insert sets every field
    # the answer shows), a case submitted before as read back.
    response = json_response(selectors.case_status(case), status=202 if created else 200)
    response["Location"] = reverse("api-case", args=[case.pk])
    return response


@api_view("GET")
def case_detail(request: HttpRequest, case_id: int) -> JsonResponse:
    """GET /api/v1/cases/{id}: status, run record and any decision. Only the submitting client sees it."""
    client = _authenticate(request)
    case = selectors.client_case(client=client, case_id=case_id)
    if case is None:
        raise field_error(404, ErrorCode.NOT_FOUND, "id", f"no case {case_id} for this client")
    return json_response(selectors.case_status(case))


@api_view("GET")
def openapi(request: HttpRequest) -> JsonResponse:
    """GET /api/v1/openapi.json: generated from the same models the other views answer with."""
    return JsonResponse(openapi_document())


@csrf_exempt
def not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Any other path under /api/: the API's 404, in the API's error shape, whatever the method."""
    return field_error(404, ErrorCode.NOT_FOUND, "path", f"no API endpoint at {request.path}").response()
