"""The publisher hands the broker the message apply_async would: same queue, priority list, headers, body and
properties; a send the broker does not take is an error at once and leaves the message to the relay."""

from __future__ import annotations

import base64
import json

import pytest
import redis

from reviewconsole.celery import app
from reviewconsole.intake.tasks import verify_case
from reviewconsole.outbox import broker
from reviewconsole.outbox.models import Message
from reviewconsole.outbox.publisher import task_send
from reviewconsole.outbox.services import BROKER_ERRORS, message_send, relay_once
from reviewconsole.outbox.tasks import relay
from reviewconsole.webhooks.tasks import deliver_webhook
from tests.reviewconsole.outbox.test_outbox import DOWN, _queued, broker_at  # noqa: F401 (a fixture)

# What differs between any two messages, whoever sends them: the task's id and the transport's delivery tag.
_PER_MESSAGE = {"headers": ("id", "root_id"), "properties": ("correlation_id", "delivery_tag")}


def _taken(redis_url: str, key: str) -> list[dict]:
    messages = _queued(redis_url, key)
    client = redis.Redis.from_url(redis_url)
    client.delete(key)
    client.close()
    return messages


def _without_ids(message: dict) -> dict:
    for part, names in _PER_MESSAGE.items():
        for name in names:
            assert message[part].pop(name)
    message["body"] = json.loads(base64.b64decode(message["body"]))
    return message


@pytest.mark.parametrize(
    ("task", "args", "priority", "key"),
    [
        (verify_case, [41], 3, "verify\x06\x163"),  # a case, on its client's backlog priority
        (verify_case, [42], None, "verify"),
        (deliver_webhook, [7], None, "webhooks"),
        (relay, [], None, "default"),  # a task with time limits of its own: they travel in the headers
    ],
)
def test_the_message_is_the_one_apply_async_sends(live_broker, task, args, priority, key):
    task.apply_async(args=args, priority=priority, retry=False)
    by_celery = _taken(live_broker, key)
    task_send(task, args, priority=priority)
    task_send(task, args, priority=priority)  # and again, through the producer the first one left held
    ours = _taken(live_broker, key)

    assert len(by_celery) == 1 and len(ours) == 2
    assert [_without_ids(message) for message in ours] == [_without_ids(by_celery[0])] * 2
    assert ours[0]["headers"]["task"] == task.name and ours[0]["body"][0] == args


def test_arguments_the_task_cannot_take_are_refused_before_anything_is_sent(live_broker):
    with pytest.raises(TypeError):
        task_send(verify_case, [1, 2])

    assert _queued(live_broker, "verify") == []


@pytest.mark.django_db(transaction=True)
def test_a_broker_that_stopped_answering_leaves_the_message_to_the_relay(broker_at, redis_url):  # noqa: F811
    broker_at(redis_url)
    task_send(deliver_webhook, [6])  # the process holds a producer for the running broker
    # The broker answered its probe a moment ago, and is gone by the time the message is sent.
    broker_at(DOWN)
    message = Message.objects.create(task=deliver_webhook.name, args=[7], broker="an-instance-that-was-up")
    with pytest.raises(BROKER_ERRORS):
        task_send(deliver_webhook, [8])

    assert message_send(message, deliver_webhook) is False

    message.refresh_from_db()
    assert message.broker == "" and message.last_error
    broker_at(redis_url)
    assert relay_once(app) == 1
    task_send(deliver_webhook, [9])
    assert [queued["headers"]["argsrepr"] for queued in _queued(redis_url, "webhooks")] == ["[9]", "[7]", "[6]"]
    message.refresh_from_db()
    assert message.broker == broker.broker_instance(app)
