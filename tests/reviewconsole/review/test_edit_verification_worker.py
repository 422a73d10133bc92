"""A reviewer's edit on the real stack: the worker verifying it is killed, the sweeper returns the edit,
and a new worker finishes it."""

from __future__ import annotations

import threading
import time

import pytest
from django.utils import timezone

from reviewconsole.review.models import EditVerification, EditVerificationStatus
from reviewconsole.sweeper import sweep_claims
from tests.reviewconsole.review.conftest import FIXED_ANSWER, escalate_case, latest, on_version, refund_case
from tests.verification.fake_openai import FakeOpenAIServer, Received, Reply

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# Short limits, so the dead run's deadline (the hard limit and a little slack) passes within the test.
LIMITS = {"CELERY_TASK_SOFT_TIME_LIMIT": "8", "CELERY_TASK_TIME_LIMIT": "10", "AUDIT_EXPORT_TIME_LIMIT": "10"}


@pytest.fixture(autouse=True)
def _needs_postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")


class _HangingModel:
    """A model server that holds every request until released; whoever asked is dead by then."""

    def __init__(self) -> None:
        self.released = threading.Event()
        self.arrived = threading.Event()

    def __call__(self, received: Received) -> Reply:
        self.arrived.set()
        self.released.wait(timeout=60)
        return Reply(status=503)


def test_a_reverification_whose_worker_was_killed_is_returned_by_the_sweeper_and_finished_by_another(
    request, client, reviewer, webhook_client, start_worker
):
    case = escalate_case(webhook_client, refund_case())  # in-process, before any worker listens
    request.getfixturevalue("live_broker")
    model = _HangingModel()
    server = FakeOpenAIServer(responder=model).start()
    try:
        first = start_worker(LLM_BASE_URL=server.base_url, LLM_MODEL="fake-llm-7b", LLM_API_KEY="test", **LIMITS)
        client.force_login(reviewer)
        assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
        edited = client.post(f"/review/cases/{case.pk}/edit", on_version(latest(case), text=FIXED_ANSWER))
        assert edited.status_code == 302
        edit = latest(case)
        assert model.arrived.wait(timeout=30), first.log()[-3000:]
        first.kill()  # mid-verification: nothing acknowledges the message or settles the verification
    finally:
        model.released.set()
        server.stop()

    verification = EditVerification.objects.get(candidate=edit)
    assert (verification.status, verification.attempts) == (EditVerificationStatus.RUNNING, 1)
    assert "the edit is being verified" in client.get(f"/review/cases/{case.pk}/").content.decode()
    assert sweep_claims.apply().get() == 0, "its worker may still be verifying it"
    time.sleep(max(0.0, (verification.run_deadline - timezone.now()).total_seconds() + 1))

    assert sweep_claims.apply().get() == 1
    verification.refresh_from_db()
    assert (verification.status, verification.claim_token) == (EditVerificationStatus.PENDING, None)
    second = start_worker(**LIMITS)  # no model: the offline verifier
    deadline = time.monotonic() + 60
    while not verification.is_finished:
        assert time.monotonic() < deadline, second.log()[-3000:]
        time.sleep(0.2)
        verification.refresh_from_db()

    assert (verification.status, verification.terminal, verification.attempts) == (
        EditVerificationStatus.DONE, "PERMIT", 2
    ), verification.error
    assert sorted(edit.claims.values_list("state", flat=True)) == ["SUPPORTED", "SUPPORTED"]
    approved = client.post(f"/review/cases/{case.pk}/approve", on_version(edit))
    assert approved.status_code == 302
