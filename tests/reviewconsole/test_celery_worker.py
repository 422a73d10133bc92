"""The task preset, checked on a real worker over the real Redis: no lost work, retries by kind."""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest
import redis

from reviewconsole.celery import app
from reviewconsole.queues import TaskQueue
from tests.reviewconsole import worker_tasks

pytestmark = [
    pytest.mark.worker,
    # send_task always goes to the broker; that is the point here.
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
]


def _send(redis_url: str, task, *args, queue: TaskQueue) -> None:
    with app.connection_for_write(redis_url) as connection:
        app.send_task(task.name, args=args, queue=queue.value, connection=connection)


def _wait_for(client: redis.Redis, key: str, timeout: float) -> bytes | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = client.get(key)
        if value is not None:
            return value
        time.sleep(0.1)
    return None


def test_transient_errors_are_retried_until_the_task_succeeds(celery_worker, redis_url):
    key = f"t-{uuid.uuid4()}"
    client = redis.Redis.from_url(redis_url)

    _send(redis_url, worker_tasks.fail_then_succeed, key, 2, "transient", queue=TaskQueue.MAINTENANCE)

    assert _wait_for(client, f"{key}:done", timeout=30) == b"3", celery_worker.log()
    assert int(client.get(f"{key}:attempts")) == 3


def test_permanent_errors_are_not_retried(celery_worker, redis_url):
    key = f"p-{uuid.uuid4()}"
    client = redis.Redis.from_url(redis_url)

    _send(redis_url, worker_tasks.fail_then_succeed, key, 1, "permanent", queue=TaskQueue.MAINTENANCE)

    assert _wait_for(client, f"{key}:attempts", timeout=20) == b"1"
    time.sleep(3)  # longer than the retry backoff the worker is configured with
    assert client.get(f"{key}:attempts") == b"1"
    assert client.get(f"{key}:done") is None
    assert "PermanentError" in celery_worker.log()


def test_a_task_whose_worker_process_dies_is_run_again(celery_worker, redis_url):
    key = f"k-{uuid.uuid4()}"
    client = redis.Redis.from_url(redis_url)

    _send(redis_url, worker_tasks.die_once, key, queue=TaskQueue.VERIFY)
    pid = _wait_for(client, f"{key}:pid", timeout=20)
    assert pid is not None, celery_worker.log()
    os.kill(int(pid), signal.SIGKILL)

    assert _wait_for(client, f"{key}:done", timeout=40) == b"2", celery_worker.log()


def test_database_errors_are_retried_like_every_transient_failure(celery_worker, redis_url):
    key = f"d-{uuid.uuid4()}"
    client = redis.Redis.from_url(redis_url)

    _send(redis_url, worker_tasks.fail_then_succeed, key, 1, "database", queue=TaskQueue.VERIFY)

    assert _wait_for(client, f"{key}:done", timeout=30) == b"2", celery_worker.log()


def test_a_worker_process_keeps_what_it_loaded_out_of_the_garbage_collectors_walks(celery_worker, redis_url):
    # What it loaded at start-up (the model, the word lists) is frozen, and young objects are collected
    # every 50,000 allocations rather than 700 (see verification/heap.py for what that saves).
    from verification.heap import YOUNG_THRESHOLD

    key = f"gc-{uuid.uuid4()}"
    _send(redis_url, worker_tasks.collector, key, queue=TaskQueue.MAINTENANCE)

    found = _wait_for(redis.Redis.from_url(redis_url), key, timeout=30)
    assert found is not None, celery_worker.log()
    threshold, frozen = map(int, found.split())
    assert threshold == YOUNG_THRESHOLD
    assert frozen > 10_000
