"""The Celery app and the task preset every task of the console uses."""

from __future__ import annotations

import os

from celery import Celery, Task
from django.conf import settings
from kombu import Queue

from reviewconsole.queues import TaskQueue
from verification.errors import TransientError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewconsole.settings")


class ReviewTask(Task):
    """Retries only transient failures, with exponential backoff and jitter.

    A `PermanentError` (or any other exception) is not retried: the task's service records it.
    Acknowledgement after completion and requeue on worker loss come from the app settings.
    """

    autoretry_for = (TransientError,)
    retry_backoff = True
    retry_jitter = True

    def __init__(self) -> None:
        super().__init__()
        self.max_retries = settings.CELERY_TASK_MAX_RETRIES
        self.retry_backoff_max = settings.CELERY_TASK_RETRY_BACKOFF_MAX


app = Celery("reviewconsole", task_cls=ReviewTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = [Queue(queue.value) for queue in TaskQueue]
app.autodiscover_tasks()
