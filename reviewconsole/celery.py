"""The Celery app and the task preset every task of the console uses: one retry policy for all."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery, Task, current_task
from django.conf import settings
from django.db import InterfaceError, OperationalError
from kombu import Queue

from reviewconsole.queues import TaskQueue
from verification import TransientError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewconsole.settings")
logger = logging.getLogger(__name__)

TRANSIENT_ERRORS: tuple[type[Exception], ...] = (TransientError, OperationalError, InterfaceError)
"""Failures that may pass by themselves: a model endpoint that timed out, a database that went away or
broke off a transaction (deadlock, serialization failure). Only these are retried."""


class ReviewTask(Task):
    """Retries only transient failures, with exponential backoff and jitter.

    Tasks let a transient failure propagate to here; anything else their service records (see
    `reviewconsole.work_claims.settling`). Acknowledgement after completion and requeue on worker loss come
    from the app settings.
    """

    autoretry_for = TRANSIENT_ERRORS
    retry_backoff = True
    retry_jitter = True

    def __init__(self) -> None:
        super().__init__()
        self.max_retries = settings.CELERY_TASK_MAX_RETRIES
        self.retry_backoff_max = settings.CELERY_TASK_RETRY_BACKOFF_MAX

    def before_start(self, task_id: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """A worker took the task: its outbox message is done (the relay must not send it again).

        Outside the retry policy: a database out of reach here (a worker host cut off from it) must not fail
        the task, or every task the host takes is dropped until the sweeper's deadline. The task runs on, meets
        the same error and is retried, perhaps by another host; its message stays, which only lets the relay
        send it again after a broker restart (harmless: every task claims its work).
        """
        if not self.request.is_eager:
            from reviewconsole.outbox.services import message_taken

            try:
                message_taken(task=self.name, args=args)
            except TRANSIENT_ERRORS as error:
                logger.warning("%s[%s]: its outbox message could not be cleared: %s", self.name, task_id, error)


def retry_coming() -> bool:
    """Whether a transient failure of the task running now will be retried by a worker later.

    Not in-process (nobody waits out a backoff there, and the request that ran it must not fail), not
    outside a task, and not once its retries are spent: in those cases the failure is the work's last.
    """
    # celery-types declares `current_task` a Task; it is a Proxy, whose object is None outside a task.
    task = current_task._get_current_object()  # type: ignore[attr-defined]
    if task is None or task.request.called_directly or task.request.is_eager:
        return False
    return task.max_retries is None or task.request.retries < task.max_retries


# The periodic sweeper is no app's task: it asks every app to return its own lost work.
app = Celery("reviewconsole", task_cls=ReviewTask, include=["reviewconsole.sweeper"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = [Queue(queue.value) for queue in TaskQueue]
app.autodiscover_tasks()
