"""POST /api/v1/cases and GET /api/v1/cases/{id}, as a client application sees them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from reviewconsole.intake.models import Candidate, Case, CaseStatus, Source
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.review.models import Escalation
from tests.reviewconsole.api.conftest import SUPPORTED_CASE, case_body, post_case


def _submit(http, api, body, capture):
    with capture(execute=True):
        return post_case(http, api, body)


def test_submitting_a_case_answers_202_and_the_run_escalates_the_refuted_claim(
    client, api_client, django_capture_on_commit_callbacks
):
    response = _submit(client, api_client, case_body(), django_capture_on_commit_callbacks)

    assert response.status_code == 202
    body = response.json()
    case = Case.objects.get(pk=body["id"])
    assert response["Location"] == f"/api/v1/cases/{case.pk}" == body["status_url"]
    assert [s.source_id for s in Source.objects.filter(case=case)] == ["refund-policy"]

    detail = client.get(body["status_url"], **api_client.auth).json()
    assert detail["status"] == CaseStatus.ESCALATED
    assert detail["terminal"] in {"REVIEW", "ABSTAIN"}
    assert detail["released_answer"] is None
    first = detail["run_record"]["candidates"][0]
    states = {claim["text"]: claim["state"] for claim in first["claims"]}
    assert states["You can request a full refund within 60 days of purchase."] == "REFUTED"
    assert Candidate.objects.filter(case=case).count() == len(detail["run_record"]["candidates"])
    assert Escalation.objects.get(case=case).reason == detail["reason"]


def test_a_fully_supported_answer_is_released_to_the_client(client, api_client, django_capture_on_commit_callbacks):
    response = _submit(client, api_client, SUPPORTED_CASE, django_capture_on_commit_callbacks)

    detail = client.get(response.json()["status_url"], **api_client.auth).json()
    assert detail["status"] == CaseStatus.RELEASED
    assert detail["terminal"] == "PERMIT"
    assert detail["released_answer"] == SUPPORTED_CASE["answer"]


def test_the_same_case_again_returns_the_first_case(client, api_client, django_capture_on_commit_callbacks):
    first = _submit(client, api_client, case_body(), django_capture_on_commit_callbacks)
    again = _submit(client, api_client, case_body(), django_capture_on_commit_callbacks)

    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["id"] == first.json()["id"]
    assert again["Location"] == first["Location"]
    assert Case.objects.count() == 1


def test_another_case_under_a_used_external_id_is_a_409_that_says_so(client, api_client):
    first = post_case(client, api_client, case_body())
    case_id = first.json()["id"]
    sources = [{"id": "refund-policy", "text": "Annual plans can be refunded within 14 days."}]

    again = post_case(client, api_client, case_body(question="A different question", sources=sources))

    assert again.status_code == 409
    assert again.json() == {
        "error": "conflict",
        "message": f"external_id: case {case_id} was already submitted under 'ticket-1001' "
        "with a different question, sources",
        "errors": [
            {
                "field": "external_id",
                "message": f"case {case_id} was already submitted under 'ticket-1001' "
                "with a different question, sources",
            }
        ],
    }
    assert Case.objects.count() == 1 and Source.objects.count() == 1
    assert Case.objects.get().question == case_body()["question"]


def test_a_body_without_an_answer_is_refused_and_leaves_its_external_id_free(client, api_client):
    # No model is configured here, so nothing could draft the answer: refused before anything is stored.
    body = {key: value for key, value in case_body().items() if key != "answer"}

    refused = post_case(client, api_client, body)

    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {"field": "answer", "message": "is required: no model is configured to draft one"}
    ]
    assert Case.objects.count() == 0 and Source.objects.count() == 0
    corrected = post_case(client, api_client, case_body())
    assert corrected.status_code == 202
    assert Case.objects.get().answer == case_body()["answer"]


@pytest.mark.parametrize("constitution", [None, "default"])
def test_a_submission_looks_its_constitution_up_once(client, api_client, constitution):
    body = case_body() if constitution is None else case_body(constitution=constitution)
    # A first submission, not counted: whatever a fresh database does once is not what is measured.
    assert post_case(client, api_client, case_body(external_id="warm-up")).status_code == 202
    table = ConstitutionVersion._meta.db_table

    with CaptureQueriesContext(connection) as queries:
        response = post_case(client, api_client, body)

    assert response.status_code == 202
    lookups = [query["sql"] for query in queries if f'FROM "{table}"' in query["sql"]]
    assert len(lookups) == 1, lookups
    case = Case.objects.get(pk=response.json()["id"])
    assert case.constitution_pin == constitution_in_force("default")
    assert response.json()["constitution_version"] == case.constitution_pin.short_sha


def test_external_ids_are_scoped_to_their_client(client, api_client, other_api_client):
    assert post_case(client, api_client, case_body()).status_code == 202
    assert post_case(client, other_api_client, case_body()).status_code == 202
    assert Case.objects.count() == 2


def test_a_client_cannot_read_another_clients_case(client, api_client, other_api_client):
    case_id = post_case(client, api_client, case_body()).json()["id"]
    response = client.get(f"/api/v1/cases/{case_id}", **other_api_client.auth)
    assert response.status_code == 404
    assert response.json()["errors"] == [{"field": "id", "message": f"no case {case_id} for this client"}]


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ("{not json", "body", "not valid JSON"),
        ("[]", "body", "must be a JSON object"),
        (case_body(question=""), "question", "at least 1 character"),
        (case_body(question="   "), "question", "must not be blank"),
        ({k: v for k, v in case_body().items() if k != "question"}, "question", "is required"),
        (case_body(sources=[]), "sources", "at least 1 item"),
        (case_body(sources=[{"id": "a", "text": " "}]), "sources.0.text", "must not be blank"),
        (case_body(sources=[{"id": "a"}]), "sources.0.text", "is required"),
        (case_body(sources=[{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]), "sources", "duplicate id 'a'"),
        (case_body(sources="a string"), "sources", "valid list"),
        (case_body(answer="  "), "answer", "must not be blank"),
        (case_body(metadata=[1, 2]), "metadata", "valid dictionary"),
        (case_body(colour="blue"), "colour", "Extra inputs are not permitted"),
        (case_body(constitution="no-such-policy"), "constitution", "no constitution named 'no-such-policy'"),
        (case_body(constitution="default\u0000"), "constitution", "must not contain NUL"),
        (case_body(sources=[{"id": "a", "text": "5 days\u0000"}]), "sources.0.text", "must not contain NUL"),
        (case_body(metadata={"note": ["ok", "bad\u0000"]}), "metadata.note.1", "must not contain NUL"),
        (case_body(answer=None), "answer", "is required"),
        (case_body(sources=[{"id": "a", "text": "x", "title": "t" * 501}]), "sources.0.title", "at most 500"),
        (case_body(sources=[{"id": "a", "text": "x", "uri": "u" * 2001}]), "sources.0.uri", "at most 2000"),
    ],
)
def test_bad_bodies_get_400_naming_the_field_and_store_nothing(client, api_client, body, field, fragment):
    response = post_case(client, api_client, body)

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert any(e["field"] == field and fragment in e["message"] for e in errors), errors
    assert Case.objects.count() == 0 and Source.objects.count() == 0


@override_settings(API_MAX_SOURCES=2, API_MAX_SOURCE_CHARS=100)
def test_too_many_or_too_large_sources_are_refused(client, api_client):
    many = case_body(sources=[{"id": str(i), "text": "Refunds take 5 days."} for i in range(3)])
    large = case_body(sources=[{"id": "big", "text": "x" * 101}])

    too_many = post_case(client, api_client, many)
    too_large = post_case(client, api_client, large)

    assert too_many.status_code == 400
    assert too_many.json()["errors"] == [{"field": "sources", "message": "at most 2 sources (got 3)"}]
    assert too_large.json()["errors"] == [{"field": "sources.0.text", "message": "at most 100 characters (got 101)"}]
    assert Case.objects.count() == 0


@override_settings(API_MAX_BODY_BYTES=20_000, DATA_UPLOAD_MAX_MEMORY_SIZE=20_000)
def test_an_oversized_body_is_refused_before_it_is_parsed(client, api_client):
    body = json.dumps(case_body(sources=[{"id": "a", "text": "y" * 30_000}]))
    response = post_case(client, api_client, body)
    assert response.status_code == 413
    assert response.json()["errors"][0]["field"] == "body"
    assert Case.objects.count() == 0


def test_wrong_content_type_is_refused(client, api_client):
    response = client.post("/api/v1/cases", data="question=x", content_type="text/plain", **api_client.auth)
    assert response.status_code == 415
    assert response.json()["errors"][0]["field"] == "Content-Type"


@pytest.mark.parametrize("header", [None, "Token abc", "Bearer ", "Bearer rc_not-a-real-token"])
def test_missing_or_wrong_token_gets_401_and_stores_nothing(client, db, header):
    extra = {"HTTP_AUTHORIZATION": header} if header is not None else {}
    response = client.post("/api/v1/cases", data=json.dumps(case_body()), content_type="application/json", **extra)
    assert response.status_code == 401
    assert response.json()["errors"][0]["field"] == "Authorization"
    assert Case.objects.count() == 0


def test_a_deactivated_client_is_refused(client, api_client):
    api_client.client.is_active = False
    api_client.client.save()
    assert post_case(client, api_client, case_body()).status_code == 401


def test_the_openapi_document_describes_the_contract(client, db):
    document = client.get("/api/v1/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    assert set(document["paths"]) == {"/cases", "/cases/{id}", "/openapi.json"}
    case_schema = document["components"]["schemas"]["Case"]
    assert set(case_schema["required"]) == {"question", "sources"}
    assert {"external_id", "answer", "constitution", "metadata"} <= set(case_schema["properties"])
    assert "RunRecord" in document["components"]["schemas"]


def test_a_retry_without_external_id_is_a_second_case_as_the_api_docs_warn(
    client, api_client, django_capture_on_commit_callbacks
):
    body = case_body()
    del body["external_id"]

    first = _submit(client, api_client, body, django_capture_on_commit_callbacks)
    again = _submit(client, api_client, body, django_capture_on_commit_callbacks)

    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["id"] != first.json()["id"]
    assert Case.objects.filter(external_id__isnull=True).count() == 2
    api_docs = " ".join((Path(__file__).resolve().parents[3] / "docs" / "api.md").read_text().split())
    assert "`external_id` is optional" in api_docs
    assert "a retry (after a timeout, say) makes a duplicate case" in api_docs
