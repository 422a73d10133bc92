"""Every answer of the API, errors included, is JSON in the API's one error shape, with the right status."""

from __future__ import annotations

import json

import pytest
from django.test import Client as HttpClient

from reviewconsole.intake.models import Case, Source
from tests.reviewconsole.api.conftest import case_body, post_case


def _assert_error_shape(response, status: int, field: str) -> dict:
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error", "message", "errors"}
    assert [error["field"] for error in body["errors"]] == [field]
    return body


@pytest.fixture
def csrf_checking_client() -> HttpClient:
    # The default test client skips CSRF checks; a client application's requests do not.
    return HttpClient(enforce_csrf_checks=True)


@pytest.mark.parametrize("method", ["put", "delete", "post", "patch"])
def test_writing_to_a_case_is_a_json_405_naming_get(csrf_checking_client, api_client, method):
    case_id = post_case(csrf_checking_client, api_client, case_body()).json()["id"]

    response = getattr(csrf_checking_client, method)(
        f"/api/v1/cases/{case_id}", data="{}", content_type="application/json", **api_client.auth
    )

    body = _assert_error_shape(response, 405, "method")
    assert response["Allow"] == "GET"
    assert body["error"] == "method_not_allowed"
    assert body["message"] == f"method: {method.upper()} is not allowed here; use GET"
    assert Case.objects.count() == 1


@pytest.mark.parametrize("method", ["patch", "put", "delete"])
def test_anything_but_get_and_post_on_the_cases_collection_is_a_json_405_naming_them(
    csrf_checking_client, api_client, method
):
    response = getattr(csrf_checking_client, method)("/api/v1/cases", **api_client.auth)

    _assert_error_shape(response, 405, "method")
    assert response["Allow"] == "GET, POST"


def test_the_openapi_document_takes_only_get(csrf_checking_client, db):
    response = csrf_checking_client.post("/api/v1/openapi.json")

    _assert_error_shape(response, 405, "method")
    assert response["Allow"] == "GET"


@pytest.mark.parametrize(
    "path", ["/api/v1/nothing-here", "/api/v1/cases/", "/api/v1/cases/abc", "/api/v2/cases", "/api/"]
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_unknown_api_paths_are_a_json_404(csrf_checking_client, db, path, method):
    response = getattr(csrf_checking_client, method)(path)

    body = _assert_error_shape(response, 404, "path")
    assert body == {
        "error": "not_found",
        "message": f"path: no API endpoint at {path}",
        "errors": [{"field": "path", "message": f"no API endpoint at {path}"}],
    }


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [33, 900, 5_000, 100_000])
def test_deeply_nested_json_is_a_400_and_stores_nothing(client, api_client, depth):
    # As the whole body, and as metadata inside an otherwise valid case.
    whole = post_case(client, api_client, _nested(depth))
    inside = post_case(client, api_client, json.dumps(case_body())[:-1] + f', "metadata": {{"x": {_nested(depth)}}}}}')

    for response in (whole, inside):
        body = _assert_error_shape(response, 400, "body")
        assert body["errors"][0]["message"] == "nested deeper than 32 levels"
    assert Case.objects.count() == 0 and Source.objects.count() == 0


def test_metadata_nested_within_the_limit_is_kept(client, api_client):
    metadata = {"x": json.loads(_nested(30))}

    response = post_case(client, api_client, case_body(metadata=metadata))

    assert response.status_code == 202
    assert Case.objects.get().metadata == metadata


def test_an_unexpected_failure_is_a_json_500(client, api_client, monkeypatch, caplog):
    def broken(**kwargs):
        raise RuntimeError("database gone")

    monkeypatch.setattr("reviewconsole.intake.services.case_submit", broken)

    response = post_case(client, api_client, case_body())

    body = _assert_error_shape(response, 500, "")
    assert body["error"] == "internal" and "database gone" not in response.content.decode()
    assert any("API request POST /api/v1/cases failed" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(("value", "field", "says"), [
    ("NaN", "body", "NaN is not a number JSON allows"),
    ("Infinity", "body", "Infinity is not a number JSON allows"),
    ("-Infinity", "body", "-Infinity is not a number JSON allows"),
    ("1e999", "body", "the number 1e999 is too large to store"),
    ("1" * 5000, "body", "an integer of 5000 digits; at most 100 are stored"),
    ('"\\ud800 tail"', "metadata.ticket", "must be valid Unicode"),
    ('["fine", "\\udfff"]', "metadata.ticket.1", "must be valid Unicode"),
    ('"nul \\u0000 inside"', "metadata.ticket", "must not contain NUL"),
])
def test_values_the_database_cannot_store_are_a_400_naming_the_field_and_nothing_is_stored(
    client, api_client, value, field, says
):
    text = json.dumps(case_body(metadata={"ticket": "PLACEHOLDER"})).replace('"PLACEHOLDER"', value)

    response = post_case(client, api_client, text)

    body = _assert_error_shape(response, 400, field)
    assert says in body["errors"][0]["message"]
    assert not Case.objects.exists() and not Source.objects.exists()


def test_a_key_with_a_lone_surrogate_is_refused_by_its_path(client, api_client):
    text = json.dumps(case_body(metadata={"PLACEHOLDER": 1})).replace('"PLACEHOLDER"', '"bad\\udc80key"')

    response = post_case(client, api_client, text)

    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["field"].startswith("metadata.bad") and error["message"].startswith("its name must be valid Unicode")
    assert not Case.objects.exists()


@pytest.mark.parametrize(
    "failing", ["reviewconsole.intake.services.case_submit", "reviewconsole.api.selectors.client_case"]
)
def test_a_database_that_does_not_answer_is_a_json_503_to_retry(client, api_client, monkeypatch, caplog, failing):
    from django.db import OperationalError

    def down(*args, **kwargs):
        raise OperationalError('connection to server at "10.0.0.5", port 5432 failed')

    monkeypatch.setattr(failing, down)
    if failing.endswith("case_submit"):
        response = post_case(client, api_client, case_body())
    else:
        response = client.get("/api/v1/cases/1", **api_client.auth)

    body = _assert_error_shape(response, 503, "")
    assert body["error"] == "unavailable" and "retry in 5 seconds" in body["message"]
    assert response["Retry-After"] == "5"
    assert "10.0.0.5" not in response.content.decode()  # the address is for the log
    assert "the database is not answering" in caplog.text
