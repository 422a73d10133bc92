"""The outbox end to end: rows written with the caller's change, signed POSTs to a real receiver,
backoff in the row, the failed state, the claim that keeps two workers from sending one attempt."""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from reviewconsole.intake.models import Case, Client
from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery
from reviewconsole.webhooks.services import (
    CASE_DECIDED,
    CASE_ESCALATED,
    deliveries_sweep,
    delivery_attempt_record,
    delivery_claim,
    delivery_retry,
    webhook_event_record,
)
from reviewconsole.webhooks.tasks import deliver_webhook, dispatch_due_webhooks
from reviewconsole.webhooks.transport import AttemptOutcome

from .conftest import PAYLOAD, make_client, make_due


@pytest.fixture(autouse=True)
def _schedule(settings):
    settings.WEBHOOK_BACKOFF_SECONDS = 30
    settings.WEBHOOK_BACKOFF_MAX_SECONDS = 3600
    settings.WEBHOOK_MAX_ATTEMPTS = 8
    settings.WEBHOOK_TIMEOUT_SECONDS = 5.0


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- Recording ---------------------------------------------------------------------------------------


def test_no_delivery_for_a_client_without_a_webhook_url(db, receiver, django_capture_on_commit_callbacks):
    polling = make_client("polls-only")
    case = Case.objects.create(client=polling, question="Q?")

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        delivery = webhook_event_record(case=case, event_type=CASE_ESCALATED, payload=PAYLOAD)

    assert delivery is None
    assert callbacks == []
    assert not WebhookDelivery.objects.exists()
    assert receiver.requests == []


def test_an_unknown_event_type_is_refused(case):
    with pytest.raises(ValueError, match="case.approved"):
        webhook_event_record(case=case, event_type="case.approved", payload=PAYLOAD)
    assert not WebhookDelivery.objects.exists()


def test_a_recorded_event_reaches_the_client_signed_and_is_delivered(case, receiver, record_sent):
    before = timezone.now()
    delivery = record_sent(case, CASE_DECIDED)

    [request] = receiver.requests
    assert request.path == "/hooks"
    assert request.verify_error == ""
    assert request.verified == {"type": "case.decided", "timestamp": request.verified["timestamp"], "data": PAYLOAD}
    assert before.isoformat() <= request.verified["timestamp"] <= timezone.now().isoformat()
    assert request.body == delivery.body
    assert request.headers["content-type"] == "application/json"
    assert re.fullmatch(r"msg_[0-9a-f]{32}", request.headers["webhook-id"])
    assert request.headers["webhook-id"] == delivery.message_id
    assert int(before.timestamp()) <= int(request.headers["webhook-timestamp"]) <= int(timezone.now().timestamp())

    assert delivery.status == DeliveryStatus.DELIVERED
    assert delivery.event_type == "case.decided"
    assert delivery.client == case.client and delivery.case == case
    assert delivery.attempts == 1
    assert delivery.last_status_code == 200
    assert delivery.last_reason == "HTTP 200 OK"
    assert delivery.delivered_at is not None and delivery.next_attempt_at is None


# --- Retries -----------------------------------------------------------------------------------------


def test_a_server_error_is_retried_when_due_with_the_same_message(case, receiver, record_sent):
    receiver.respond(500, 200)
    delivery = record_sent(case)

    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.attempts == 1
    assert delivery.last_status_code == 500
    assert delivery.last_reason == "HTTP 500 Internal Server Error"
    assert delivery.next_attempt_at - delivery.last_attempt_at == timedelta(seconds=30)

    assert dispatch_due_webhooks() == 0, "not due for another 30 s"
    assert len(receiver.requests) == 1

    make_due(delivery)
    assert dispatch_due_webhooks() == 1

    first, second = receiver.requests
    assert second.headers["webhook-id"] == first.headers["webhook-id"] == delivery.message_id
    assert second.body == first.body
    assert second.verify_error == ""
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED
    assert delivery.attempts == 2
    assert delivery.last_status_code == 200
    assert delivery.last_reason == "HTTP 200 OK"


def test_backoff_doubles_up_to_its_cap_then_the_delivery_fails_and_stays_failed(case, receiver, record_sent, settings):
    settings.WEBHOOK_BACKOFF_SECONDS = 10
    settings.WEBHOOK_BACKOFF_MAX_SECONDS = 25
    settings.WEBHOOK_MAX_ATTEMPTS = 4
    receiver.respond(503, 503, 503, 503)

    delivery = record_sent(case)
    delays = []
    while delivery.status == DeliveryStatus.PENDING:
        delays.append((delivery.next_attempt_at - delivery.last_attempt_at).total_seconds())
        make_due(delivery)
        dispatch_due_webhooks()
        delivery.refresh_from_db()

    assert delays == [10, 20, 25]
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.attempts == 4
    assert delivery.last_status_code == 503
    assert delivery.last_reason == "HTTP 503 Service Unavailable"
    assert delivery.next_attempt_at is None
    assert len(receiver.requests) == 4

    make_due(delivery)  # even with a due time, a failed delivery waits for a person
    assert dispatch_due_webhooks() == 0
    deliver_webhook(delivery.pk)
    assert len(receiver.requests) == 4


def test_connection_refused_is_recorded_as_an_error(db, record_sent, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = [ipaddress.ip_network("127.0.0.1/32")]  # where the test found a free port
    refusing = make_client("refusing", webhook_url=f"http://127.0.0.1:{_unused_port()}/hooks")
    delivery = record_sent(Case.objects.create(client=refusing, question="Q?"))

    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.attempts == 1
    assert delivery.last_status_code is None
    assert delivery.last_reason == "connection refused"
    assert delivery.next_attempt_at > timezone.now()


def test_an_unknown_host_is_recorded_as_an_error_and_retried(db, record_sent, dns):
    unknown = make_client("unknown-host", webhook_url="http://webhooks.example.invalid/hooks")
    delivery = record_sent(Case.objects.create(client=unknown, question="Q?"))

    assert dns.asked == ["webhooks.example.invalid"]
    assert delivery.status == DeliveryStatus.PENDING and delivery.next_attempt_at > timezone.now()
    assert delivery.last_status_code is None
    assert delivery.last_reason.startswith("webhooks.example.invalid does not resolve")


def test_a_slow_receiver_times_out_and_is_retried_later(case, receiver, record_sent, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.3
    receiver.delay_seconds = 2.0

    delivery = record_sent(case)

    assert len(receiver.requests) == 1
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.last_status_code is None
    assert delivery.last_reason == "timed out after 0.3 s"


def test_a_redirect_is_not_followed_and_counts_as_a_failure(case, receiver, record_sent):
    receiver.respond(302, headers={"Location": "/elsewhere"})

    delivery = record_sent(case)

    assert [request.path for request in receiver.requests] == ["/hooks"]
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.last_status_code == 302
    assert delivery.last_reason == "HTTP 302 Found: redirect not followed"


def test_a_client_that_lost_its_webhook_url_fails_without_a_request(case, receiver, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        delivery = webhook_event_record(case=case, event_type=CASE_ESCALATED, payload=PAYLOAD)
    Client.objects.filter(pk=case.client_id).update(webhook_url="")
    for callback in callbacks:
        callback()

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.last_reason == "client 'acme' has no webhook URL"
    assert receiver.requests == []


def test_a_client_with_a_broken_signing_secret_fails_without_a_request(case, receiver, record_sent):
    Client.objects.filter(pk=case.client_id).update(webhook_secret="whsec_a")  # not base64

    delivery = record_sent(case)

    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.last_reason.startswith("client 'acme' has no usable signing secret")
    assert receiver.requests == []


# --- Claims ------------------------------------------------------------------------------------------


def test_a_claimed_attempt_is_not_sent_by_a_second_worker(case, receiver):
    delivery = webhook_event_record(case=case, event_type=CASE_ESCALATED, payload=PAYLOAD)  # never committed

    first = delivery_claim(delivery_id=delivery.pk, now=timezone.now())
    assert first is not None
    assert delivery_claim(delivery_id=delivery.pk, now=timezone.now()) is None

    deliver_webhook(delivery.pk)  # a duplicate message for the same attempt
    assert dispatch_due_webhooks() == 0, "the claim holds the delivery past now"
    assert receiver.requests == []
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.SENDING, 1)


def test_a_failure_from_an_expired_claim_does_not_overwrite_the_newer_attempt(case):
    delivery = webhook_event_record(case=case, event_type=CASE_ESCALATED, payload=PAYLOAD)
    stale = delivery_claim(delivery_id=delivery.pk, now=timezone.now())
    current = delivery_claim(delivery_id=delivery.pk, now=stale.deadline + timedelta(seconds=1))
    assert current is not None

    ignored = delivery_attempt_record(
        claim=stale, outcome=AttemptOutcome(status_code=None, reason="timed out after 5 s"), now=timezone.now()
    )
    assert ignored is None
    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_reason) == (DeliveryStatus.SENDING, "")

    recorded = delivery_attempt_record(claim=current, outcome=AttemptOutcome(status_code=204), now=timezone.now())
    assert recorded.status == DeliveryStatus.DELIVERED
    assert recorded.attempts == 2 and recorded.last_status_code == 204


def test_an_attempt_abandoned_by_a_dead_worker_is_sent_by_the_sweeper_once_its_claim_runs_out(
    case, receiver, django_capture_on_commit_callbacks
):
    delivery = webhook_event_record(case=case, event_type=CASE_ESCALATED, payload=PAYLOAD)
    claim = delivery_claim(delivery_id=delivery.pk, now=timezone.now())  # then the worker dies
    assert claim is not None

    assert dispatch_due_webhooks() == 0
    assert deliveries_sweep(now=timezone.now()) == [], "its worker may still be sending"
    with django_capture_on_commit_callbacks(execute=True):
        assert deliveries_sweep(now=claim.deadline + timedelta(seconds=1)) == [delivery.pk]

    [request] = receiver.requests
    assert request.headers["webhook-id"] == delivery.message_id
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED
    assert delivery.attempts == 2


@pytest.mark.django_db(transaction=True)
def test_two_workers_with_the_same_due_delivery_send_it_once(case, receiver):
    receiver.respond(500)
    delivery = webhook_event_record(case=case, event_type=CASE_ESCALATED, payload=PAYLOAD)  # autocommit: sent now
    assert len(receiver.requests) == 1
    make_due(delivery)
    receiver.delay_seconds = 0.5  # both workers are in flight at once
    start = threading.Barrier(2)

    def worker() -> None:
        try:
            start.wait()
            deliver_webhook(delivery.pk)
        finally:
            connection.close()

    workers = [threading.Thread(target=worker) for _ in range(2)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=10)

    assert len(receiver.requests) == 2, "one first attempt, then one retry from the two workers"
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED
    assert delivery.attempts == 2


# --- Manual retry ------------------------------------------------------------------------------------


def test_retry_puts_a_failed_delivery_back_to_pending_and_sends_it(
    case, receiver, record_sent, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.respond(500)
    delivery = record_sent(case)
    assert delivery.status == DeliveryStatus.FAILED

    with django_capture_on_commit_callbacks() as callbacks:
        assert delivery_retry(delivery=delivery) is True
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.attempts == 0
    assert delivery.next_attempt_at <= timezone.now()
    assert delivery.last_reason.startswith("HTTP 500"), "the reason it failed stays visible until the next attempt"

    for callback in callbacks:
        callback()
    first, second = receiver.requests
    assert second.headers["webhook-id"] == first.headers["webhook-id"]
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED
    assert delivery.attempts == 1


def test_retry_leaves_a_delivery_that_has_not_failed_alone(
    case, receiver, record_sent, django_capture_on_commit_callbacks
):
    delivery = record_sent(case)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert delivery_retry(delivery=delivery) is False

    assert callbacks == []
    assert delivery.status == DeliveryStatus.DELIVERED
    assert len(receiver.requests) == 1


# --- Transactions ------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_an_event_is_sent_only_after_the_callers_transaction_commits(case, receiver):
    with transaction.atomic():
        delivery = webhook_event_record(case=case, event_type=CASE_ESCALATED, payload=PAYLOAD)
        assert receiver.requests == [], "nothing leaves before the change it reports is committed"

    [request] = receiver.requests
    assert request.headers["webhook-id"] == delivery.message_id
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED


@pytest.mark.django_db(transaction=True)
def test_nothing_is_sent_when_the_callers_transaction_rolls_back(case, receiver):
    with pytest.raises(RuntimeError), transaction.atomic():
        webhook_event_record(case=case, event_type=CASE_ESCALATED, payload=PAYLOAD)
        raise RuntimeError("routing failed after the event was recorded")

    assert not WebhookDelivery.objects.exists()
    assert receiver.requests == []
