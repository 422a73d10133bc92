"""Writes for the outbox: a message added in the caller's transaction, handed over after the commit, and
the relay that hands over what the broker has not got."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import redis
from celery import Celery, Task
from django.db import transaction
from django.db.models import F
from kombu.exceptions import KombuError

from reviewconsole.inserts import insert
from reviewconsole.outbox import broker
from reviewconsole.outbox.models import Message
from reviewconsole.outbox.publisher import task_send

logger = logging.getLogger(__name__)

# What a send raises when the broker does not answer (kombu wraps most; the socket errors can surface).
BROKER_ERRORS: tuple[type[Exception], ...] = (KombuError, redis.RedisError, OSError)
RELAY_BATCH = 500


def message_enqueue(task: Task, args: Sequence[Any], *, priority: int | None = None) -> None:
    """Commit a message for `task` (at `priority` in its queue) with the caller's transaction; hand it to the
    broker after the commit."""
    instance = broker.broker_instance(task.app)
    message = Message(
        task=task.name, args=list(args), priority=priority, broker=instance,
        last_error="" if instance else "the broker did not answer when the message was stored: left to the relay",
    )
    insert([message])
    # robust: a broker that does not answer must not turn a committed change into an error for the caller.
    transaction.on_commit(lambda: message_send(message, task), robust=True)


def message_send(message: Message, task: Task) -> bool:
    """Hand `message` to the broker; when it does not answer, leave the message to the relay."""
    if not message.broker:
        # The broker did not answer its probe a moment ago: a send would keep the caller waiting seconds for
        # the connection to fail. The relay (its process, or beat's `outbox.relay`) sends it once it answers.
        return False
    try:
        # No retries here: the caller is waiting, and the relay sends again within a second or two.
        task_send(task, message.args, priority=message.priority)
    except BROKER_ERRORS as error:
        broker.forget()
        logger.warning("outbox: the broker did not take %s (the relay will): %s", message, error)
        Message.objects.filter(pk=message.pk).update(broker="", last_error=str(error)[:1000])
        return False
    return True


def message_taken(*, task: str, args: Sequence[Any]) -> int:
    """A worker started `task` with `args`: its message (and any copy the relay sent) is done."""
    deleted, _ = Message.objects.filter(task=task, args=list(args)).delete()
    return deleted


def relay_once(app: Celery[Any]) -> int:
    """Hand over every message the running broker has not got; the number handed over.

    That is a message no broker took, or one a broker took before it restarted (a Redis without
    persistence forgets its queues). Nothing happens while the broker is down.
    """
    instance = broker.broker_instance(app, fresh=True)
    if not instance:
        return 0
    with transaction.atomic():
        # Skip rows another relay holds: two relays never send the same batch.
        due = list(
            Message.objects.select_for_update(skip_locked=True).exclude(broker=instance).order_by("id")[:RELAY_BATCH]
        )
        for message in due:
            # A send that fails midway rolls the batch back; what was sent goes again, which is harmless.
            app.send_task(message.task, args=message.args, priority=message.priority)
        Message.objects.filter(pk__in=[message.pk for message in due]).update(
            broker=instance, sends=F("sends") + 1, last_error=""
        )
    if due:
        logger.info("outbox: handed %d message(s) to the broker", len(due))
    return len(due)
