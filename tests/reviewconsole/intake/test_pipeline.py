"""The whole path on the real stack: HTTP submission, Redis, a real Celery worker, PostgreSQL.

Includes the fault a queue must survive: the worker is SIGKILLed in the middle of verify_case.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest

from reviewconsole.intake.models import Candidate, Case, CaseStatus
from reviewconsole.review.models import Escalation
from reviewconsole.webhooks.models import WebhookDelivery
from tests.reviewconsole.api.conftest import case_body
from tests.verification.fake_openai import FakeOpenAIServer, Received, Reply
from tests.verification.replies import cove_reply

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _needs_postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")


def _post_over_http(base_url: str, token: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"{base_url}/api/v1/cases",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 202
        return json.loads(response.read())


def _wait_for_status(case_id: int, statuses: set[str], timeout: float, worker) -> Case:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        case = Case.objects.get(pk=case_id)
        if case.status in statuses:
            return case
        time.sleep(0.2)
    raise AssertionError(f"case {case_id} still {case.status} after {timeout} s:\n{worker.log()[-3000:]}")


def test_a_case_submitted_over_http_is_verified_by_a_worker_and_escalated(
    live_server, live_broker, start_worker, api_client
):
    worker = start_worker()

    submitted = _post_over_http(live_server.url, api_client.token, case_body())

    case = _wait_for_status(submitted["id"], {CaseStatus.ESCALATED}, timeout=60, worker=worker)
    chain = case.run_record["candidates"]
    stored = list(Candidate.objects.filter(case=case).order_by("position"))
    assert [c.candidate_id for c in stored] == [c["id"] for c in chain]
    assert stored[0].origin == "CLIENT" and stored[0].claims.count() == len(chain[0]["claims"])
    assert Escalation.objects.get(case=case).reason == case.reason
    assert "intake.verify_case" in worker.log()


class _HangingModel:
    """A model server that holds every request until released, then answers like a good model."""

    def __init__(self) -> None:
        self.released = threading.Event()
        self.arrived = threading.Event()

    def __call__(self, received: Received) -> Reply:
        if not self.released.is_set():
            self.arrived.set()
            self.released.wait(timeout=60)
            return Reply(status=503)  # whoever asked is dead by now
        return cove_reply(received)


def test_a_worker_killed_mid_run_leaves_the_case_finished_exactly_once(
    live_server, live_broker, start_worker, api_client
):
    api_client.client.webhook_url = "http://127.0.0.1:9/hooks"
    api_client.client.save()
    model = _HangingModel()
    server = FakeOpenAIServer(responder=model).start()
    limits = {
        "LLM_BASE_URL": server.base_url,
        "LLM_MODEL": "fake-llm-7b",
        "LLM_API_KEY": "test",
        # Short limits so the dead run's hold and the unacknowledged message lapse within the test.
        "CELERY_TASK_SOFT_TIME_LIMIT": "8",
        "CELERY_TASK_TIME_LIMIT": "10",
        "AUDIT_EXPORT_TIME_LIMIT": "10",
        "RETRAINING_TIME_LIMIT": "10",
        "CELERY_BROKER_VISIBILITY_TIMEOUT": "15",
    }
    try:
        first = start_worker(**limits)
        submitted = _post_over_http(live_server.url, api_client.token, case_body())
        assert model.arrived.wait(timeout=30), first.log()
        assert Case.objects.get(pk=submitted["id"]).status == CaseStatus.RUNNING

        delivered = time.monotonic()
        first.kill()
        model.released.set()
        # Redis hands the unacknowledged message to a new worker once the visibility timeout has passed.
        time.sleep(max(0.0, delivered + 16 - time.monotonic()))
        second = start_worker(**limits)

        case = _wait_for_status(submitted["id"], {CaseStatus.ESCALATED, CaseStatus.RELEASED}, 90, second)
    finally:
        model.released.set()
        server.stop()

    assert case.attempts == 2
    assert Candidate.objects.filter(case=case, position=0).count() == 1
    assert Candidate.objects.filter(case=case).count() == len(case.run_record["candidates"])
    assert Escalation.objects.filter(case=case).count() == (1 if case.status == CaseStatus.ESCALATED else 0)
    assert WebhookDelivery.objects.filter(case=case).count() == 1
    assert case.verifier == "cascade/1"  # the model endpoint is set: the offline verifier first, then the model
