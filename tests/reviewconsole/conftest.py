"""Fixtures for the console's tests: real Celery workers over Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from reviewconsole.queues import TaskQueue

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def redis_url() -> str:
    """The real Redis of the test run; tests that need it are skipped only where none was given."""
    url = os.environ.get("TEST_REDIS_URL")
    if not url:
        pytest.skip("TEST_REDIS_URL is not set (make test sets it)")
    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()
    return url


class WorkerProcess:
    """A real `celery worker` in a child process, consuming every queue of the console."""

    def __init__(self, redis_url: str, database_url: str | None, log_path: Path, extra_env: dict[str, str]):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "REDIS_URL": redis_url,
            "PYTHONPATH": str(REPO),
            **extra_env,
        }
        if database_url:
            env["DATABASE_URL"] = database_url
        self.log_path = log_path
        self._log = log_path.open("w")
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "reviewconsole", "worker",
                "--queues", ",".join(queue.value for queue in TaskQueue),
                "--include", "tests.reviewconsole.worker_tasks",
                "--pool", "prefork", "--concurrency", "1",
                "--loglevel", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
            ],
            cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT,
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"celery worker exited early:\n{self.log()}")
            if " ready." in self.log():
                return
            time.sleep(0.2)
        raise RuntimeError(f"celery worker did not start within 60 s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


@pytest.fixture
def celery_worker(redis_url: str, tmp_path: Path, settings) -> Iterator[WorkerProcess]:
    """Start a worker against the test run's Redis (and the test database, for tasks that use it).

    Tests that let the worker read rows must use `transaction=True`, so their rows are committed.
    """
    from django.db import connection

    database_url = None
    if connection.vendor == "postgresql":
        params = connection.settings_dict
        database_url = (
            f"postgres://{params['USER']}@{params['HOST'] or '127.0.0.1'}:{params['PORT'] or 5432}/{params['NAME']}"
        )
    worker = WorkerProcess(
        redis_url,
        database_url,
        tmp_path / "worker.log",
        # Short backoff so retry tests finish in seconds; the visibility timeout must still exceed it.
        {"CELERY_TASK_MAX_RETRIES": "2", "CELERY_TASK_RETRY_BACKOFF_MAX": "2"},
    )
    yield worker
    worker.stop()
