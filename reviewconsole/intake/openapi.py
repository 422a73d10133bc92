"""The OpenAPI 3.1 document of /api/v1/, with the case contract taken from the engine's own types."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.conf import settings

from verification import types as contract


def _error_response(description: str) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/Error"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


@cache
def _schemas() -> dict[str, Any]:
    case_schema = contract.Case.model_json_schema(ref_template="#/components/schemas/{model}")
    run_schema = contract.RunRecord.model_json_schema(ref_template="#/components/schemas/{model}", by_alias=True)
    schemas: dict[str, Any] = {}
    for schema in (case_schema, run_schema):
        schemas.update(schema.pop("$defs", {}))
    schemas["Case"] = case_schema
    schemas["RunRecord"] = run_schema
    schemas["Error"] = {
        "type": "object",
        "required": ["error", "message", "errors"],
        "properties": {
            "error": {
                "type": "string",
                "examples": ["invalid", "malformed_json", "too_large", "unauthorized", "conflict", "not_found"],
            },
            "message": {"type": "string"},
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["field", "message"],
                    "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
                },
            },
        },
    }
    schemas["CaseStatus"] = {
        "type": "object",
        "required": ["id", "status", "status_url"],
        "properties": {
            "id": {"type": "integer"},
            "external_id": {"type": ["string", "null"]},
            "status": {"enum": ["QUEUED", "RUNNING", "RELEASED", "ESCALATED", "REJECTED", "FAILED"]},
            "status_url": {"type": "string"},
            "terminal": {"type": ["string", "null"], "enum": ["PERMIT", "REVIEW", "ABSTAIN", "REJECT", None]},
            "reason": {"type": ["string", "null"]},
            "released_answer": {
                "type": ["string", "null"],
                "description": "The only text to show the end user: set when released or approved by a person.",
            },
            "constitution": {"type": ["string", "null"]},
            "constitution_version": {"type": ["string", "null"]},
            "submitted_at": {"type": "string", "format": "date-time"},
            "finished_at": {"type": ["string", "null"], "format": "date-time"},
            "error": {"type": ["string", "null"]},
            "decision": {"type": ["object", "null"]},
            "run_record": {"anyOf": [{"$ref": "#/components/schemas/RunRecord"}, {"type": "null"}]},
        },
    }
    return schemas


def openapi_document() -> dict[str, Any]:
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
            + limits,
        },
        "servers": [{"url": "/api/v1"}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": _schemas(),
        },
        "security": [{"bearer": []}],
        "paths": {
            "/cases": {
                "post": {
                    "summary": "Submit a case",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Case"}}},
                    },
                    "responses": {
                        "202": {
                            "description": "Accepted; verification runs in the background.",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CaseStatus"}}},
                        },
                        "200": {
                            "description": "The same case (same external_id and content) was already submitted; "
                            "it is returned.",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CaseStatus"}}},
                        },
                        "400": _error_response(
                            "Invalid body (including JSON nested too deeply, and no answer when no model is "
                            "configured to draft one); `errors` names each field at fault."
                        ),
                        "401": _error_response("Missing or unknown bearer token."),
                        "405": _error_response("Another method than POST; `Allow` names it."),
                        "409": _error_response("A different case was already submitted under this external_id."),
                        "413": _error_response("Body or sources over the limits."),
                        "415": _error_response("Content-Type is not application/json."),
                    },
                }
            },
            "/cases/{id}": {
                "get": {
                    "summary": "Status, run record and any decision of a case",
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {
                        "200": {
                            "description": "The case.",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CaseStatus"}}},
                        },
                        "401": _error_response("Missing or unknown bearer token."),
                        "404": _error_response("No such case for this client."),
                        "405": _error_response("Another method than GET; `Allow` names it."),
                    },
                }
            },
        },
    }
