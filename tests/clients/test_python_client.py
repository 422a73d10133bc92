"""The Python client against a live console: the suite's server, PostgreSQL, real workers over Redis, a real
webhook receiver, and a reviewer deciding in a real browser.

One assistant's day: an answer released by itself, one a person approves while the assistant waits (async),
its cases listed, its webhooks verified (a tampered one refused), a 400 naming the field, a 429 retried
after its Retry-After."""

from __future__ import annotations

import asyncio
import re
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from reviewconsole_client import (
    AsyncReviewConsole,
    Case,
    CaseEvent,
    InvalidRequest,
    RateLimited,
    RetryPolicy,
    ReviewConsole,
    Status,
    WaitTimeout,
    WebhookVerificationError,
    verify_webhook,
)

from reviewconsole.intake.models import Client
from reviewconsole.intake.services import client_create
from tests.reviewconsole.api.conftest import REFUND_CASE, SUPPORTED_CASE

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WORKER_SECONDS = 120


@pytest.fixture(autouse=True)
def _needs_postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")


def _run_finished(console: ReviewConsole, case_id: int) -> Case:
    deadline = time.monotonic() + WORKER_SECONDS
    while (case := console.get(case_id)).status in (Status.QUEUED, Status.RUNNING):
        assert time.monotonic() < deadline, f"case {case_id} still {case.status}"
        time.sleep(0.2)
    return case


async def _wait_async(url: str, token: str, case_id: int) -> Case:
    async with AsyncReviewConsole(url, token) as console:
        return await console.wait_for_decision(case_id, timeout=WORKER_SECONDS)


def test_an_assistant_submits_waits_for_a_person_lists_and_verifies_webhooks(
    live_server, live_broker, start_worker, receiver, as_person, reviewer, settings, request
):
    settings.REVIEW_UNDO_SECONDS = 0  # the decision is the client's at once, and its webhook goes out at once
    account, token = client_create(name="support-bot", webhook_url=receiver.url)
    start_worker(WEBHOOK_ALLOWED_NETWORKS="127.0.0.1/32")
    console = ReviewConsole(live_server.url, token)
    # Closed at the end: a kept-alive connection would hold a thread of the live server, and its database session.
    request.addfinalizer(console.close)

    # Released by the engine: waiting returns it, with the text the assistant may show.
    supported = console.submit(**SUPPORTED_CASE)
    assert supported.status == Status.QUEUED
    released = console.wait_for_decision(supported.id, timeout=WORKER_SECONDS)
    assert (released.status, released.released_answer) == (Status.RELEASED, SUPPORTED_CASE["answer"])
    assert console.submit(**SUPPORTED_CASE).id == supported.id  # the same external_id: the first case

    # Escalated: a short wait times out with the case as it stands; a person then approves it in the browser
    # while the assistant waits (the async client, in a thread of its own).
    refund = console.submit(**REFUND_CASE)
    assert _run_finished(console, refund.id).status == Status.ESCALATED
    with pytest.raises(WaitTimeout) as short_wait:
        console.wait_for_decision(refund.id, timeout=0.5)
    assert short_wait.value.case.status == Status.ESCALATED and short_wait.value.case.released_answer is None
    with ThreadPoolExecutor(1) as waiting:
        decided_later = waiting.submit(asyncio.run, _wait_async(live_server.url, token, refund.id))
        page = as_person("rita")
        page.keyboard.press("n")
        page.wait_for_url(f"**/review/cases/{refund.id}/")
        page.keyboard.press("a")
        page.get_by_role("button", name=re.compile(r"^Approve c\d$")).click()
        page.get_by_text(f"Approved case {refund.id}.").wait_for()
        decided = decided_later.result(timeout=WORKER_SECONDS)
    assert decided.status == Status.RELEASED and decided.decision is not None
    assert decided.decision.kind == "APPROVE"
    assert decided.released_answer == "You can request a full refund within 30 days of purchase. " + (
        "Approved refunds are returned to the original payment method within 5 to 10 business days.")

    # Listed newest first, a page at a time, filtered.
    first_page = console.list_cases(limit=1)
    assert [case.id for case in first_page.cases] == [refund.id] and first_page.next_cursor
    assert [case.id for case in console.iter_cases(limit=1)] == [refund.id, supported.id]
    assert [case.id for case in console.list_cases(external_id="ticket-2002").cases] == [supported.id]
    assert console.list_cases(status=["ESCALATED", "REJECTED"]).cases == []
    since = console.list_cases(updated_since=decided.updated_at).cases
    assert [(case.id, case.decision and case.decision.kind) for case in since] == [(refund.id, "APPROVE")]

    # Every webhook verifies and parses; a changed body, or one signed long ago, is refused.
    deadline = time.monotonic() + WORKER_SECONDS
    while len(receiver.requests) < 3:
        assert time.monotonic() < deadline, [request.body for request in receiver.requests]
        time.sleep(0.2)
    events = [verify_webhook(r.body, r.headers, secret=account.webhook_secret) for r in receiver.requests]
    assert sorted((event.data.case_id, event.type) for event in events if isinstance(event.data, CaseEvent)) == [
        (supported.id, "case.released"), (refund.id, "case.decided"), (refund.id, "case.escalated")
    ]
    decided_event = next(event for event in events if event.type == "case.decided")
    assert isinstance(decided_event.data, CaseEvent) and decided_event.data.decision is not None
    assert decided_event.data.decision.kind == "APPROVE" and decided_event.id.startswith("msg_")
    delivery = next(r for r in receiver.requests if "case.released" in r.body)
    with pytest.raises(WebhookVerificationError, match="no signature matches"):
        verify_webhook(delivery.body.replace("5 to 10", "1 to 2"), delivery.headers, secret=account.webhook_secret)
    with pytest.raises(WebhookVerificationError, match="more than the 300 s allowed"):
        verify_webhook(delivery.body, delivery.headers, secret=account.webhook_secret, now=time.time() + 600)

    # A refusal names the field, and is not sent again.
    with pytest.raises(InvalidRequest) as refused:
        console.submit(question="Where is my parcel?", sources=[{"id": "faq", "text": ""}], answer="In transit.")
    assert (refused.value.status, refused.value.field) == (400, "sources.0.text")


def test_a_429_is_sent_again_after_its_retry_after_and_raised_once_retries_are_spent(live_server, settings, request):
    settings.CLIENT_REQUESTS_PER_SECOND = 0
    account, token = client_create(name="busy-bot")
    Client.objects.filter(pk=account.pk).update(requests_per_second=1)
    statuses: list[int] = []
    http = httpx.Client(event_hooks={"response": [lambda response: statuses.append(response.status_code)]})
    request.addfinalizer(http.close)
    console = ReviewConsole(live_server.url, token, http=http)

    started = time.monotonic()
    console.list_cases()
    assert console.list_cases().cases == []
    assert statuses == [200, 429, 200] and time.monotonic() - started >= 0.9

    impatient = ReviewConsole(live_server.url, token, retry=RetryPolicy(max_retries=0))
    request.addfinalizer(impatient.close)
    with pytest.raises(RateLimited) as limited:
        impatient.list_cases()
        impatient.list_cases()
    assert (limited.value.field, limited.value.retry_after) == ("requests_per_second", 1.0)
