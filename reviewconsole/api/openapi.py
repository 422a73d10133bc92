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
        [
            (contract.Case, "validation"), (schemas.CaseListQuery, "validation"), (schemas.CaseStatus, "serialization"),
            (schemas.CasePage, "serialization"), (schemas.Error, "serialization"),
        ],
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


def _query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    """The query parameters of an operation, one per field of the model its view validates them with."""
    _, components = _schemas()
    shape = components[model.__name__]
    parameters = []
    for name, schema in shape["properties"].items():
        described = {key: value for key, value in schema.items() if key not in ("description", "default", "title")}
        # A parameter left out is the null of an optional field; the parameter itself is never null.
        branches = [branch for branch in described.pop("anyOf", []) if branch != {"type": "null"}]
        if len(branches) == 1:
            described.update(branches[0])
        parameters.append({
            "name": name, "in": "query", "required": name in shape.get("required", []),
            "description": schema.get("description", ""), "schema": described,
            **({"style": "form", "explode": True} if schema.get("type") == "array" else {}),
        })
    return parameters


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
                "get": {
                    "summary": "List the client's cases",
                    "description": "The client's own cases, newest first, a page at a time: follow `next_cursor` "
                    "(or `next_url`) until it is null. To keep up with changes, pass the latest `updated_at` seen "
                    "as `updated_since` (cases at that time are listed again).",
                    "parameters": _query_parameters(schemas.CaseListQuery),
                    "responses": _responses(
                        _Answer(200, "One page of cases.", schemas.CasePage),
                        _Answer(400, "A parameter is invalid or unknown; `errors` names each one."),
                        _UNAUTHORIZED,
                        _RATE_LIMITED,
                        _UNAVAILABLE,
                        _INTERNAL,
                    ),
                },
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
                        _not_allowed("GET or POST"),
                        _Answer(409, "A different case was already submitted under this external_id."),
                        _Answer(413, "Body or sources over the limits, or a body larger than the client's whole day of "
                                "`body_bytes_per_day`: it can never be accepted, so it is not a 429."),
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
