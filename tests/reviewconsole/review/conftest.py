"""Escalated cases made the real way: submitted as a client would, then run through the engine."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from reviewconsole.intake.models import Case, Client
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.review.models import Escalation
from tests.reviewconsole.intake.conftest import REFUND_CASE
from verification import Case as Submission

# The engine refutes "60 days" against the 30-day policy, omits it, and sends the case to a person.
EARNINGS_CASE: dict[str, Any] = {
    "external_id": "earnings-q3",
    "question": "How did Norrland Freight do in the third quarter?",
    "answer": "Norrland Freight reported third-quarter revenue of $230 million, up 8% from a year earlier. "
    "Operating margin improved to 11.2%.",
    "sources": [
        {
            "id": "q3-release",
            "title": "Norrland Freight Q3 results",
            "text": "Norrland Freight today reported revenue of $212.4 million for the third quarter, an increase "
            "of 8% compared with the same quarter last year. Operating margin was 11.2%, compared with 9.8% a "
            "year ago.",
        }
    ],
}


def refund_case(**changes: Any) -> dict[str, Any]:
    body = copy.deepcopy(REFUND_CASE)
    body.update(changes)
    return body


@pytest.fixture
def webhook_client(db) -> Client:
    client, _ = client_create(name="support-bot", webhook_url="https://client.example/hooks")
    return client


def escalate_case(client: Client, body: dict[str, Any]) -> Case:
    """Submit and verify a case; it must end in the review queue."""
    case, _ = case_submit(client=client, submission=Submission.model_validate(body))
    verify_case.apply(args=(case.pk,))
    case.refresh_from_db()
    assert Escalation.objects.filter(case=case).exists(), (case.status, case.terminal, case.reason, case.error)
    return case


@pytest.fixture
def escalate(webhook_client) -> Callable[..., Case]:
    def make(body: dict[str, Any] | None = None, **changes: Any) -> Case:
        return escalate_case(webhook_client, {**(body or refund_case()), **changes})

    return make
