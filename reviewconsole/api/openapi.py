"""The OpenAPI 3.1 document of /api/v1/, generated from the models the views answer with (schemas.py)
and the engine's case contract, so the document cannot drift from what the API sends."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from django.conf import settings
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from reviewconsole.api import schemas
from verification import types as contract

_REF = "#/components/schemas/{model}"


@dataclass(frozen=True)
class _Answer:
    """One response an operation gives: its status, what it means, and the model of its body."""

    status: int
    description: str
    model: type[BaseModel] | None = schemas.Error


# Every operation can be refused these ways, and can fail.
_UNAUTHORIZED = _Answer(401, "Missing or unknown bearer token.")
_INTERNAL = _Answer(500, "An unexpected failure; it was logged.")
_RATE_LIMITED = _Answer(
    429,
    "Over one of the client's limits, which `errors[0].field` names: `requests_per_second`, `cases_per_day` or "
    "`body_bytes_per_day` (days are UTC days). Nothing was stored; retry after `Retry-After` seconds.",
)
_UNAVAILABLE = _Answer(503, "The database is not answering; nothing was stored. Retry after `Retry-After` seconds.")


def _not_allowed(method: str) -> _Answer:
    return _Answer(405, f"Another method than {method}; `Allow` names it.")


@cache
def _schemas() -> tuple[dict[type, dict[str, Any]], dict[str, Any]]:
    """Each model's reference, and every schema they need, for components.schemas."""
    refs, top = models_json_schema(
        [(contract.Case, "validation"), (schemas.CaseStatus, "serialization"), (schemas.Error, "serialization")],
        ref_template=_REF,
    )
    return {model: ref for (model, _mode), ref in refs.items()}, top["$defs"]


def _responses(*answers: _Answer) -> dict[str, Any]:
    refs, _ = _schemas()
    responses: dict[str, Any] = {}
    for answer in answers:
        schema = refs[answer.model] if answer.model is not None else {"type": "object"}
        responses[str(answer.status)] = {
            "description": answer.description,
            "content": {"application/json": {"schema": schema}},
        }
    return responses


def openapi_document() -> dict[str, Any]:
    refs, components = _schemas()
    limits = (
        f"Limits: body {settings.API_MAX_BODY_BYTES} bytes, {settings.API_MAX_SOURCES} sources, "
        f"{settings.API_MAX_SOURCE_CHARS} characters per source, answer {settings.API_MAX_ANSWER_CHARS} "
        f"and question {settings.API_MAX_QUESTION_CHARS} characters."
    )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Review console API",
            "version": "1",
            "description": "Submit an answer with its sources; poll for the outcome or receive a signed webhook. "
            + limits
            + " Every answer is JSON, errors in the `Error` shape; a path under /api/ that is none of these "
            "answers 404.",
        },
        "servers": [{"url": "/api/v1"}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": components,
        },
        "security": [{"bearer": []}],
        "paths": {
            "/cases": {
                "post": {
                    "summary": "Submit a case",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": refs[contract.Case]}}},
                    "responses": _responses(
                        _Answer(202, "Accepted; verification runs in the background.", schemas.CaseStatus),
                        _Answer(
                            200,
                            "The same case (same external_id and content) was already submitted; it is returned.",
                            schemas.CaseStatus,
                        ),
                        _Answer(
                            400,
                            "Invalid body (including JSON nested too deeply, and no answer when no model is "
                            "configured to draft one); `errors` names each field at fault.",
                        ),
                        _UNAUTHORIZED,
                        _not_allowed("POST"),
                        _Answer(409, "A different case was already submitted under this external_id."),
                        _Answer(413, "Body or sources over the limits."),
                        _Answer(415, "Content-Type is not application/json."),
                        _RATE_LIMITED,
                        _UNAVAILABLE,
                        _INTERNAL,
                    ),
                }
            },
            "/cases/{id}": {
                "get": {
                    "summary": "Status, run record and any decision of a case",
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": _responses(
                        _Answer(200, "The case.", schemas.CaseStatus),
                        _UNAUTHORIZED,
                        _Answer(404, "No such case for this client."),
                        _RATE_LIMITED,
                        _UNAVAILABLE,
                        _not_allowed("GET"),
                        _INTERNAL,
                    ),
                }
            },
            "/openapi.json": {
                "get": {
                    "summary": "This document",
                    "security": [],
                    "responses": _responses(
                        _Answer(200, "The OpenAPI document of this API.", None), _not_allowed("GET"), _INTERNAL
                    ),
                }
            },
        },
    }
