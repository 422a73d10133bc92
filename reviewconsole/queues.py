"""The Celery queues and the worker pools that consume them, by name, and enqueueing that waits for the
transaction to commit."""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.db import transaction


class TaskQueue(StrEnum):
    """Work is split by kind so a flood of one kind cannot starve another."""

    DEFAULT = "default"
    """Short, frequent housekeeping: the outbox relay, and any task no route names."""
    SEAL = "seal"
    """The audit sealer alone: it runs every few seconds, and nothing is ever queued ahead of it."""
    VERIFY = "verify"
    """Engine runs: claim verification, repair, re-verification of reviewer edits. Cases wait here at a
    priority that falls with their client's backlog (reviewconsole/intake/fair_share.py)."""
    WEBHOOKS = "webhooks"
    """Outbound deliveries to client applications."""
    MAINTENANCE = "maintenance"
    """Periodic sweeps, calibration runs, audit-chain checks."""
    TRAIN = "train"
    """Retraining the learned scorer on reviewers' labels: minutes of both cores per run, so never beside cases."""


class WorkerPool(StrEnum):
    """The worker processes a deployment runs, each on queues of its own, so that work of one kind holding
    every process of its pool (a receiver that answers after 9.5 s, an hour-long export) holds no other kind."""

    VERIFY = "verify"
    WEBHOOKS = "webhooks"
    MAINTENANCE = "maintenance"
    """Housekeeping and long maintenance work: the sealer, the relay and the sweeps beside exports and
    calibration runs, which hold one process each while the others go on."""
    TRAIN = "train"
    """Retraining runs, one at a time: a run uses every core it is given, so a second would only halve each."""


POOL_QUEUES: dict[WorkerPool, tuple[TaskQueue, ...]] = {
    WorkerPool.VERIFY: (TaskQueue.VERIFY,),
    WorkerPool.WEBHOOKS: (TaskQueue.WEBHOOKS,),
    WorkerPool.MAINTENANCE: (TaskQueue.SEAL, TaskQueue.DEFAULT, TaskQueue.MAINTENANCE),
    WorkerPool.TRAIN: (TaskQueue.TRAIN,),
}
"""Every queue is consumed by exactly one pool (`celery worker --queues`, as docker-compose.yml lists them)."""


def pool_queues(pool: WorkerPool) -> str:
    """The `--queues` argument of a worker of `pool`."""
    return ",".join(queue.value for queue in POOL_QUEUES[pool])


def enqueue_on_commit(task: Any, *args: Any, priority: int | None = None) -> None:
    """Send `task` once the current transaction commits, so a worker never sees uncommitted rows.

    With a broker, the task is written to the outbox in the same transaction: committed means accepted,
    even while the broker is down (the outbox's relay hands it over when it is back). Without one (the
    embedded default) the task runs right here, in-process, after the commit.

    `priority` is the message's place in its queue (0, the default, goes first; 9 last); it is kept with
    the message in the outbox, so a message the relay hands over keeps it.
    """
    if task.app.conf.task_always_eager:
        transaction.on_commit(lambda: task.apply_async(args=args))
        return
    from reviewconsole.outbox.services import message_enqueue

    message_enqueue(task, args, priority=priority)


def task_hold(time_limit: int | None = None) -> timedelta:
    """How long work claimed by a task stays claimed: past it, the run is known dead.

    A task cannot outlive its hard time limit (the worker kills it), so a claim older than that, plus
    a little slack for the claim's own transaction, belongs to a run that will never finish. Tasks
    with limits of their own pass their `time_limit` (seconds); the rest have the default one.
    """
    return timedelta(seconds=(time_limit or settings.CELERY_TASK_TIME_LIMIT) + 5)
