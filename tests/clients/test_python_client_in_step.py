"""The Python client's models against the OpenAPI document the console serves: every field the API sends or
takes, with its type, required or not, and every value of its enums. A change to the API that the client
does not follow fails here, naming the field."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import pytest
import reviewconsole_client as sdk
from pydantic import BaseModel

# The client's model for each schema of the document.
MODELS: dict[str, type[BaseModel]] = {
    "Case": sdk.CaseSubmission,
    "Source": sdk.Source,
    "CaseStatus": sdk.Case,
    "CaseSummary": sdk.CaseSummary,
    "CasePage": sdk.CasePage,
    "Decision": sdk.Decision,
    "Error": sdk.ErrorBody,
    "FieldError": sdk.FieldError,
}
ENUMS = {"Status": sdk.Status, "Terminal": sdk.Terminal, "ErrorCode": sdk.ErrorCode}
# The client's names for the document's, where they differ.
RENAMED = {model.__name__: name for name, model in MODELS.items()}

# Where the client takes more than the API sends, on purpose, so that a console adding a value does not break
# a deployed client: each difference must be listed here, and each listed one must still be a difference.
LOOSER = {
    ("CaseStatus", "reason"),  # a string: the engine adds reasons over time
    ("CaseSummary", "reason"),
    ("CaseStatus", "run_record"),  # the engine's whole record, as a dict: its own contract, versioned with it
    ("Decision", "kind"),  # a kind added later is still read
    ("Error", "error"),  # an error code added later is still read
}


@pytest.fixture(scope="module")
def document(django_db_blocker) -> dict[str, Any]:
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def _shape(schema: dict[str, Any]) -> Any:
    """What a schema says of a value's type, without its documentation or the limits the API checks itself."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return ("ref", RENAMED.get(name, name))
    if "anyOf" in schema:
        return ("anyOf", sorted((_shape(branch) for branch in schema["anyOf"]), key=repr))
    shape: dict[str, Any] = {key: schema[key] for key in ("type", "format", "enum") if key in schema}
    if "items" in schema:
        shape["items"] = _shape(schema["items"])
    if shape.get("type") == "object" and schema.get("additionalProperties") is True:
        shape["open"] = True
    return tuple(sorted(shape.items()))


def _fields(schema: dict[str, Any]) -> dict[str, tuple[Any, bool]]:
    required = set(schema.get("required", []))
    return {name: (_shape(field), name in required) for name, field in schema["properties"].items()}


def test_every_model_has_the_fields_types_and_required_fields_of_the_document(document):
    components = document["components"]["schemas"]
    differences = set()
    for name, model in MODELS.items():
        served = _fields(components[name])
        client = _fields(model.model_json_schema(ref_template="#/components/schemas/{model}"))
        assert sorted(client) == sorted(served), f"{name}: the client's fields differ from the API's"
        for field, (shape, required) in served.items():
            assert client[field][1] == required, f"{name}.{field}: required is {required} in the API"
            if client[field][0] != shape:
                differences.add((name, field))
    assert differences == LOOSER


def test_every_enum_has_the_values_of_the_document(document):
    components = document["components"]["schemas"]
    for name, enum in ENUMS.items():
        assert {member.value for member in enum} == set(components[name]["enum"]), name
    decision_kinds = components["Decision"]["properties"]["kind"]["enum"]
    assert set(typing.get_args(sdk.models.DecisionKind)) == set(decision_kinds)


def test_the_calls_the_client_makes_are_the_documents_operations(document):
    paths = document["paths"]
    assert {"get", "post"} <= set(paths["/cases"]) and "get" in paths["/cases/{id}"]
    parameters = {parameter["name"] for parameter in paths["/cases"]["get"]["parameters"]}
    for call in (sdk.ReviewConsole.list_cases, sdk.AsyncReviewConsole.list_cases):
        assert set(inspect.signature(call).parameters) - {"self"} == parameters
    for call in (sdk.ReviewConsole.submit, sdk.AsyncReviewConsole.submit):
        assert set(inspect.signature(call).parameters) - {"self"} == set(document["components"]["schemas"]["Case"][
            "properties"])
