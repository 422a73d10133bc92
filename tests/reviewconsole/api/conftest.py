"""A client application with a token, and realistic case bodies to submit."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client as HttpClient

from reviewconsole import redis_clients, stamps
from reviewconsole.intake.models import Client
from reviewconsole.intake.services import client_create
from tests.reviewconsole.api.api_contract import ApiResponses

REFUND_CASE: dict[str, Any] = {
    "external_id": "ticket-1001",
    "question": "Can I get a refund on my annual plan? I bought it 40 days ago.",
    "answer": (
        "You can request a full refund within 60 days of purchase. "
        "Approved refunds are returned to the original payment method within 5 to 10 business days."
    ),
    "sources": [
        {
            "id": "refund-policy",
            "title": "Refund policy",
            # The whole policy, as a client would send it: a release needs a claim's evidence to stand out
            # among the source's other sentences, as it does in the labelled data the gate is calibrated on.
            "text": (
                "Annual plans can be refunded in full within 30 days of purchase. "
                "Approved refunds are returned to the original payment method within 5 to 10 business days. "
                "Monthly plans are not refundable. Refund requests are made from the billing page of the account. "
                "A refund cancels the plan at the end of the day it is approved. "
                "Gift cards and vouchers are never refunded in cash. "
                "Partial refunds are not given for unused months of a monthly plan."
            ),
        }
    ],
    "metadata": {"ticket": 1001},
}

SUPPORTED_CASE: dict[str, Any] = {
    "external_id": "ticket-2002",
    "question": "How long do refunds take to arrive?",
    "answer": "Approved refunds are returned to the original payment method within 5 to 10 business days.",
    "sources": copy.deepcopy(REFUND_CASE["sources"]),
}


@dataclass
class ApiClient:
    client: Client
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}"}


@pytest.fixture(autouse=True)
def api_responses(monkeypatch) -> ApiResponses:
    """Every API response a test here produces must be one the served OpenAPI document describes."""
    responses = ApiResponses()
    send = HttpClient.request

    def checked(self, **request):
        response = send(self, **request)
        responses.observe(request, response)
        return response

    monkeypatch.setattr(HttpClient, "request", checked)
    return responses


@pytest.fixture
def fresh_stamps(monkeypatch) -> Iterator[None]:
    """This process starts with nothing cached under a stamp, no Redis connection and no memory of a
    Redis failure, and leaves nothing cached behind."""
    monkeypatch.setattr(redis_clients, "_clients", {})
    monkeypatch.setattr(stamps, "_quiet_until", 0.0)
    stamps.CONFIGURATION.forget()
    yield
    stamps.CONFIGURATION.forget()


@pytest.fixture
def api_client(db) -> ApiClient:
    client, token = client_create(name="support-bot")
    return ApiClient(client, token)


@pytest.fixture
def other_api_client(db) -> ApiClient:
    client, token = client_create(name="sales-bot")
    return ApiClient(client, token)


def case_body(**changes: Any) -> dict[str, Any]:
    body = copy.deepcopy(REFUND_CASE)
    body.update(changes)
    return body


def post_case(http, api: ApiClient | None, body: Any, **extra: Any):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    headers = api.auth if api else {}
    return http.post("/api/v1/cases", data=data, content_type="application/json", **headers, **extra)
