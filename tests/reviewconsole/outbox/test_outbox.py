"""Committed means accepted: work survives a broker that is down, or that restarts and forgets its queues."""

from __future__ import annotations

import json
import time

import pytest
import redis

from reviewconsole.celery import app
from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.outbox import broker
from reviewconsole.outbox.models import Message
from reviewconsole.outbox.services import relay_once
from reviewconsole.outbox.transport import broker_transport
from tests.reviewconsole.api.conftest import case_body, post_case
from tests.reviewconsole.conftest import _reset_connections

DOWN = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def broker_at(redis_url):
    """Point this process's Celery app at a broker URL (sending for real, not in-process)."""
    saved = (app.conf.broker_url, app.conf.broker_transport, app.conf.task_always_eager,
             app.conf.broker_connection_timeout)

    def point(url: str) -> None:
        app.conf.broker_url, app.conf.broker_transport, app.conf.task_always_eager = url, broker_transport(url), False
        # A broker that does not answer should fail a send quickly rather than keep the request waiting.
        app.conf.broker_connection_timeout = 0.5
        _reset_connections(app)
        broker.forget()

    yield point
    (app.conf.broker_url, app.conf.broker_transport, app.conf.task_always_eager,
     app.conf.broker_connection_timeout) = saved
    _reset_connections(app)
    broker.forget()


def _queued(redis_url: str, queue: str) -> list[dict]:
    client = redis.Redis.from_url(redis_url)
    try:
        return [json.loads(raw) for raw in client.lrange(queue, 0, -1)]
    finally:
        client.close()


def _task_names(redis_url: str, queue: str) -> list[str]:
    return [message["headers"]["task"] for message in _queued(redis_url, queue)]


@pytest.mark.django_db(transaction=True)
def test_a_submission_while_the_broker_is_down_is_accepted_and_relayed_when_it_is_back(
    client, api_client, broker_at, redis_url
):
    broker_at(DOWN)

    response = post_case(client, api_client, case_body())

    assert response.status_code == 202, response.content  # the case is committed: that is the truth
    case = Case.objects.get(pk=response.json()["id"])
    assert case.status == CaseStatus.QUEUED
    message = Message.objects.get()
    assert (message.task, message.args, message.broker) == ("intake.verify_case", [case.pk], "")
    assert message.last_error
    assert relay_once(app) == 0  # still down: nothing to do, nothing lost

    broker_at(redis_url)
    assert relay_once(app) == 1

    assert _task_names(redis_url, "verify") == ["intake.verify_case"]
    message.refresh_from_db()
    assert message.broker == broker.broker_instance(app) != ""
    assert message.sends == 1
    assert relay_once(app) == 0  # the running broker has it: not sent twice


@pytest.mark.django_db(transaction=True)
def test_a_submission_with_the_broker_up_is_handed_over_once(client, api_client, broker_at, redis_url):
    broker_at(redis_url)

    response = post_case(client, api_client, case_body())

    assert response.status_code == 202
    assert _task_names(redis_url, "verify") == ["intake.verify_case"]
    assert Message.objects.get().broker == broker.broker_instance(app)
    assert relay_once(app) == 0
    assert len(_queued(redis_url, "verify")) == 1


@pytest.mark.django_db(transaction=True)
def test_messages_a_restarted_broker_may_have_lost_are_sent_again(broker_at, redis_url):
    broker_at(redis_url)
    # Handed to a broker instance that is not the one running now: a Redis restart without persistence.
    Message.objects.create(task="webhooks.deliver_webhook", args=[41], broker="0123456789abcdef-before-restart")

    assert relay_once(app) == 1

    assert _task_names(redis_url, "webhooks") == ["webhooks.deliver_webhook"]
    assert Message.objects.get().broker == broker.broker_instance(app)


@pytest.mark.django_db(transaction=True)
def test_a_message_keeps_its_place_in_its_queue_when_the_relay_sends_it_again(broker_at, redis_url):
    broker_at(redis_url)
    Message.objects.create(task="intake.verify_case", args=[41], priority=4, broker="0123456789abcdef-before-restart")

    assert relay_once(app) == 1

    # Kombu's Redis transport keeps each priority of a queue in a list of its own: "verify", "verify\x06\x161", ...
    assert _task_names(redis_url, "verify\x06\x164") == ["intake.verify_case"]
    assert _task_names(redis_url, "verify") == []


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_that_takes_the_task_clears_its_message(client, api_client, broker_at, redis_url, start_worker):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")
    broker_at(redis_url)
    worker = start_worker()

    case_id = post_case(client, api_client, case_body()).json()["id"]

    deadline = time.monotonic() + 60
    waiting = (CaseStatus.QUEUED, CaseStatus.RUNNING)
    while time.monotonic() < deadline and Case.objects.get(pk=case_id).status in waiting:
        time.sleep(0.2)
    assert Case.objects.get(pk=case_id).status not in waiting, worker.log()[-3000:]
    assert not Message.objects.exists()
