from __future__ import annotations

from typing import Any

from django.apps import AppConfig


class PolicyConfig(AppConfig):
    name = "reviewconsole.policy"
    label = "policy"
    verbose_name = "Policy: constitutions, rubrics and calibration"

    def ready(self) -> None:
        from celery.signals import worker_init, worker_process_init

        from reviewconsole.policy.scorer_models import scorer_files_check

        # Every process, at start-up: a missing model file stops it with one line naming the file. Only
        # the files are looked at: the model (with onnxruntime, about 110 MB) is loaded by a process that verifies.
        scorer_files_check()
        # A worker of the verify queue loads it before it takes work, so a corrupt file stops the worker
        # and no case waits for the load; any other process loads it on first use, if ever.
        worker_init.connect(_worker_started, dispatch_uid="policy.worker_started", weak=False)
        # A prefork worker's children each load their own (a model session does not survive a fork),
        # before their first task rather than during it.
        worker_process_init.connect(_child_started, dispatch_uid="policy.child_started", weak=False)


def _worker_started(sender: Any, **_: object) -> None:
    # A solo or threaded worker does its work in the process that started: it loads and settles there.
    if _verifies(sender.app):
        from reviewconsole.policy.engine import load_scorer

        load_scorer()
    _settle()


def _child_started(**_: object) -> None:
    from celery import current_app

    if _verifies(current_app):
        from reviewconsole.policy.engine import load_scorer

        load_scorer()
    _settle()


def _verifies(app: Any) -> bool:
    """Whether this worker consumes the verify queue (every queue when started without --queues)."""
    from reviewconsole.queues import TaskQueue

    return TaskQueue.VERIFY.value in app.amqp.queues.consume_from


def _settle(**_: object) -> None:
    from verification import settle_heap

    settle_heap()
