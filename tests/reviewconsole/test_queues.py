"""Each kind of task lands on its own queue, so a flood of one kind cannot starve another."""

from __future__ import annotations

import pytest

from reviewconsole.celery import app


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
        ("something.else", "default"),
    ],
)
def test_tasks_are_routed_to_their_queue(task, queue):
    assert app.amqp.router.route({}, task)["queue"].name == queue


def test_periodic_sweeps_are_scheduled():
    schedule = {entry["task"]: entry for entry in app.conf.beat_schedule.values()}
    assert schedule["maintenance.sweep_claims"]["schedule"] == 60.0
    assert schedule["webhooks.dispatch_due_webhooks"]["schedule"] == 30.0
