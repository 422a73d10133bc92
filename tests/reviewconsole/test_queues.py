"""Each kind of task lands on its own queue, so a flood of one kind cannot starve another."""

from __future__ import annotations

import pytest

from reviewconsole.celery import app
from reviewconsole.queues import POOL_QUEUES, TaskQueue, WorkerPool


@pytest.mark.parametrize(
    ("task", "queue"),
    [
        ("intake.verify_case", "verify"),
        ("maintenance.sweep_claims", "maintenance"),
        ("audit.export", "maintenance"),
        ("audit.expire_exports", "maintenance"),
        ("policy.calibrate", "maintenance"),
        ("review.verify_edit", "verify"),
        ("webhooks.deliver_webhook", "webhooks"),
        ("webhooks.dispatch_due_webhooks", "webhooks"),
        ("audit.seal", "seal"),
        ("outbox.relay", "default"),
        ("something.else", "default"),
    ],
)
def test_tasks_are_routed_to_their_queue(task, queue):
    assert app.amqp.router.route({}, task)["queue"].name == queue


def test_periodic_sweeps_are_scheduled():
    schedule = {entry["task"]: entry for entry in app.conf.beat_schedule.values()}
    assert schedule["maintenance.sweep_claims"]["schedule"] == 60.0
    assert schedule["webhooks.dispatch_due_webhooks"]["schedule"] == 30.0


def test_the_periodic_sealer_goes_to_its_own_queue():
    schedule = {entry["task"]: entry for entry in app.conf.beat_schedule.values()}
    assert schedule["audit.seal"]["options"]["queue"] == TaskQueue.SEAL


def test_every_queue_is_consumed_by_one_worker_pool_and_verification_and_webhooks_each_by_their_own():
    consumed = [queue for queues in POOL_QUEUES.values() for queue in queues]
    assert sorted(consumed) == sorted(TaskQueue)
    assert POOL_QUEUES[WorkerPool.VERIFY] == (TaskQueue.VERIFY,)
    assert POOL_QUEUES[WorkerPool.WEBHOOKS] == (TaskQueue.WEBHOOKS,)
