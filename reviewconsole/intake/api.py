"""The client API (/api/v1/): submit a case, read its outcome. Token auth, JSON in and out."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods
from pydantic import ValidationError

from reviewconsole.intake import selectors, services
from reviewconsole.intake.constitutions import constitution_version
from reviewconsole.intake.models import Case, Client
from reviewconsole.intake.openapi import openapi_document
from verification import types as contract


class ApiError(Exception):
    """A refused request: HTTP status, a machine-readable code, and the fields at fault."""

    def __init__(self, status: int, code: str, errors: list[dict[str, str]]):
        super().__init__(code)
        self.status = status
        self.code = code
        self.errors = errors

    def response(self) -> JsonResponse:
        message = "; ".join(f"{e['field']}: {e['message']}" if e["field"] else e["message"] for e in self.errors)
        return JsonResponse({"error": self.code, "message": message, "errors": self.errors}, status=self.status)


def _field_error(status: int, code: str, field: str, message: str) -> ApiError:
    return ApiError(status, code, [{"field": field, "message": message}])


def _authenticate(request: HttpRequest) -> Client:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _field_error(401, "unauthorized", "Authorization", "send 'Authorization: Bearer <token>'")
    client = services.client_for_token(token.strip())
    if client is None:
        raise _field_error(401, "unauthorized", "Authorization", "unknown or revoked token")
    return client


def _read_json(request: HttpRequest) -> Any:
    length = request.headers.get("Content-Length")
    if length is not None and (not length.isdigit() or int(length) > settings.API_MAX_BODY_BYTES):
        raise _field_error(413, "too_large", "body", f"the body must be at most {settings.API_MAX_BODY_BYTES} bytes")
    content_type = request.content_type or ""
    if content_type != "application/json":
        raise _field_error(415, "unsupported_media_type", "Content-Type", "must be application/json")
    try:
        body = request.body
    except RequestDataTooBig:
        raise _field_error(
            413, "too_large", "body", f"the body must be at most {settings.API_MAX_BODY_BYTES} bytes"
        ) from None
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _field_error(400, "malformed_json", "body", f"not valid JSON: {error}") from None


def _validate_submission(data: Any) -> contract.Case:
    if not isinstance(data, dict):
        raise _field_error(400, "invalid", "body", "must be a JSON object")
    nul_fields = list(_fields_with_nul(data, ""))
    if nul_fields:
        # PostgreSQL text cannot hold U+0000; refuse it here rather than fail at the insert.
        raise ApiError(400, "invalid", [{"field": f, "message": "must not contain NUL (\\u0000)"} for f in nul_fields])
    try:
        submission = contract.Case.model_validate(data)
    except ValidationError as error:
        raise ApiError(400, "invalid", [_pydantic_error(e) for e in error.errors()]) from None
    limits = [
        ("question", len(submission.question), settings.API_MAX_QUESTION_CHARS, "characters"),
        ("answer", len(submission.answer or ""), settings.API_MAX_ANSWER_CHARS, "characters"),
        ("sources", len(submission.sources), settings.API_MAX_SOURCES, "sources"),
    ] + [
        (f"sources.{index}.text", len(source.text), settings.API_MAX_SOURCE_CHARS, "characters")
        for index, source in enumerate(submission.sources)
    ]
    errors = [
        {"field": field, "message": f"at most {limit} {unit} (got {size})"}
        for field, size, limit, unit in limits
        if size > limit
    ]
    if errors:
        raise ApiError(400, "too_large", errors)
    if submission.answer is not None and not submission.answer.strip():
        raise _field_error(400, "invalid", "answer", "must not be blank")
    return submission


def _fields_with_nul(value: Any, path: str):
    if isinstance(value, str):
        if "\x00" in value:
            yield path or "body"
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            if "\x00" in str(key):
                yield child
            else:
                yield from _fields_with_nul(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _fields_with_nul(item, f"{path}.{index}" if path else str(index))


def _pydantic_error(error: dict[str, Any]) -> dict[str, str]:
    field = ".".join(str(part) for part in error["loc"]) or "body"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "missing":
        message = "is required"
    return {"field": field, "message": message}


def case_payload(case: Case) -> dict[str, Any]:
    decision = selectors.case_latest_decision(case)
    return {
        "id": case.pk,
        "external_id": case.external_id,
        "status": case.status,
        "status_url": reverse("api-case", args=[case.pk]),
        "terminal": case.terminal or None,
        "reason": case.reason or None,
        # The only text a client may show its user: set once the answer is released or approved.
        "released_answer": selectors.case_released_answer(case),
        "constitution": case.constitution_name or None,
        "constitution_version": case.constitution_version or None,
        "submitted_at": case.submitted_at.isoformat(),
        "finished_at": case.finished_at.isoformat() if case.finished_at else None,
        "error": case.error or None,
        "decision": decision,
        "run_record": case.run_record,
    }


@csrf_exempt
@require_http_methods(["POST"])
def cases(request: HttpRequest) -> JsonResponse:
    """POST /api/v1/cases: 202 with the new case, or 200 with the case already submitted under that id."""
    try:
        client = _authenticate(request)
        submission = _validate_submission(_read_json(request))
        if submission.constitution is not None and constitution_version(submission.constitution) is None:
            raise _field_error(400, "invalid", "constitution", f"no constitution named {submission.constitution!r}")
    except ApiError as error:
        return error.response()
    # The submission pins the version in force now: a version published later does not change this case.
    case, created = services.case_submit(client=client, submission=submission)
    case.refresh_from_db()
    response = JsonResponse(case_payload(case), status=202 if created else 200)
    response["Location"] = reverse("api-case", args=[case.pk])
    return response


@require_GET
def case_detail(request: HttpRequest, case_id: int) -> JsonResponse:
    """GET /api/v1/cases/{id}: status, run record and any decision. Only the submitting client sees it."""
    try:
        client = _authenticate(request)
    except ApiError as error:
        return error.response()
    case = Case.objects.filter(pk=case_id, client=client).first()
    if case is None:
        return _field_error(404, "not_found", "id", f"no case {case_id} for this client").response()
    return JsonResponse(case_payload(case))


@require_GET
def openapi(request: HttpRequest) -> JsonResponse:
    return JsonResponse(openapi_document())
