"""The OpenAPI document the API serves covers every route and every status the views answer with.

Each response below is also checked against the document as it arrives (conftest's `api_responses`), as
is every response of the other API tests.
"""

from __future__ import annotations

import json
import re

from django.db import OperationalError
from django.test import override_settings
from django.urls import URLPattern, reverse

from reviewconsole.api import urls
from reviewconsole.intake import quotas
from reviewconsole.intake.quota_counters import LocalCounters
from reviewconsole.review.models import DecisionKind
from tests.reviewconsole.api.conftest import case_body, post_case


def test_every_route_of_the_api_is_a_path_of_the_document(client, db):
    document = client.get("/api/v1/openapi.json").json()

    routes = {
        reverse(pattern.name, kwargs=dict.fromkeys(pattern.pattern.converters, 1)).removeprefix("/api/v1")
        for pattern in urls.urlpatterns
        if isinstance(pattern, URLPattern) and pattern.name
    }
    documented = {re.sub(r"\{[^}]+\}", "1", path) for path in document["paths"]}
    assert routes == documented == {"/cases", "/cases/1", "/openapi.json"}


def test_the_document_lists_exactly_the_statuses_the_api_answers_with(
    client, api_client, other_api_client, api_responses, monkeypatch
):
    # The document's own routes first: its 500 below breaks it.
    client.get("/api/v1/openapi.json")
    client.post("/api/v1/openapi.json")

    created = post_case(client, api_client, case_body())
    post_case(client, api_client, case_body())  # the same case again: 200
    post_case(client, api_client, case_body(question="Another question"))  # same external_id: 409
    post_case(client, api_client, case_body(sources=[]))
    post_case(client, None, case_body())
    client.get("/api/v1/cases", **api_client.auth)
    client.get("/api/v1/cases", {"limit": 0}, **api_client.auth)
    client.get("/api/v1/cases")
    client.put("/api/v1/cases", **api_client.auth)
    client.post("/api/v1/cases", data="question=x", content_type="text/plain", **api_client.auth)
    with override_settings(API_MAX_BODY_BYTES=100):
        post_case(client, api_client, case_body(external_id="large"))

    case_url = created.json()["status_url"]
    client.get(case_url, **api_client.auth)
    client.get(case_url)
    client.get(case_url, **other_api_client.auth)
    client.delete(case_url, **api_client.auth)
    client.get("/api/v1/no-such-endpoint")

    monkeypatch.setattr(quotas, "_LOCAL", LocalCounters())
    with override_settings(CLIENT_REQUESTS_PER_SECOND=1):  # 429: a second request within the second
        client.get(case_url, **other_api_client.auth)
        client.get(case_url, **other_api_client.auth)
        post_case(client, other_api_client, case_body(external_id="limited"))
        client.get("/api/v1/cases", **other_api_client.auth)

    def database_down(*args, **kwargs):
        raise OperationalError("the server closed the connection")

    with monkeypatch.context() as outage:  # 503
        outage.setattr("reviewconsole.intake.services.case_submit", database_down)
        outage.setattr("reviewconsole.api.selectors.case_status", database_down)
        outage.setattr("reviewconsole.api.selectors.client_cases", database_down)
        post_case(client, api_client, case_body(external_id="unavailable"))
        client.get(case_url, **api_client.auth)
        client.get("/api/v1/cases", **api_client.auth)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("reviewconsole.intake.services.case_submit", broken)
    monkeypatch.setattr("reviewconsole.api.selectors.case_status", broken)
    monkeypatch.setattr("reviewconsole.api.views.openapi_document", broken)
    monkeypatch.setattr("reviewconsole.api.selectors.client_cases", broken)
    post_case(client, api_client, case_body(external_id="fails"))
    client.get(case_url, **api_client.auth)
    client.get("/api/v1/cases", **api_client.auth)
    client.get("/api/v1/openapi.json")

    document = api_responses.document
    documented = {
        (path, method, int(status))
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        for status in operation["responses"]
    }
    answered = {(seen.path, seen.method, seen.status) for seen in api_responses.seen}
    assert answered - {("", "get", 404)} == documented
    assert ("", "get", 404) in answered  # the catch-all, in the error shape


def test_the_request_schema_is_the_engines_case_contract(client, db):
    document = client.get("/api/v1/openapi.json").json()

    request = document["paths"]["/cases"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    case_schema = document["components"]["schemas"]["Case"]
    assert request == {"$ref": "#/components/schemas/Case"}
    assert set(case_schema["required"]) == {"question", "sources"}
    assert case_schema["additionalProperties"] is False
    # A response's `run_record` is the engine's own RunRecord, repairs keyed "from" as they are sent.
    repair = document["components"]["schemas"]["Repair"]
    assert "from" in repair["properties"] and "from_" not in json.dumps(repair)


def test_the_documented_decision_kinds_are_the_ones_reviewers_make(client, db):
    document = client.get("/api/v1/openapi.json").json()

    kind = document["components"]["schemas"]["Decision"]["properties"]["kind"]
    assert sorted(kind["enum"]) == sorted(DecisionKind.values)
