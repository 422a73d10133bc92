"""Fixtures for the console's tests: real Celery workers over Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from reviewconsole.outbox.transport import broker_transport
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
    """A real `celery worker` in a child process (its own process group), consuming every queue."""

    def __init__(self, env: dict[str, str], log_path: Path):
        self.log_path = log_path
        self._log = log_path.open("w")
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "reviewconsole", "worker",
                "--queues", ",".join(queue.value for queue in TaskQueue),
                "--include", "tests.reviewconsole.worker_tasks",
                "--pool", "prefork", "--concurrency", "1", "--hostname", f"{log_path.stem}@%h",
                "--loglevel", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
            ],
            cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
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

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once: no chance to acknowledge or requeue."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()


def _test_database_url() -> str | None:
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    params = connection.settings_dict
    host, port = params["HOST"] or "127.0.0.1", params["PORT"] or 5432
    return f"postgres://{params['USER']}@{host}:{port}/{params['NAME']}"


@pytest.fixture
def start_worker(redis_url: str, tmp_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    """Start real workers against the test run's Redis and test database; all are stopped afterwards.

    Tests that let a worker read rows must use `transaction=True`, so their rows are committed.
    """
    workers: list[WorkerProcess] = []

    def start(**extra_env: str) -> WorkerProcess:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "REDIS_URL": redis_url,
            "PYTHONPATH": str(REPO),
            # Short backoff so retry tests finish in seconds; the visibility timeout must still exceed it.
            "CELERY_TASK_MAX_RETRIES": "2",
            "CELERY_TASK_RETRY_BACKOFF_MAX": "2",
            **extra_env,
        }
        database_url = _test_database_url()
        if database_url:
            env["DATABASE_URL"] = database_url
        worker = WorkerProcess(env, tmp_path / f"worker{len(workers) + 1}.log")
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def celery_worker(start_worker) -> WorkerProcess:
    return start_worker()


@pytest.fixture
def live_broker(redis_url: str) -> Iterator[str]:
    """Make this process send tasks to the real Redis instead of running them in-process."""
    from reviewconsole.celery import app

    saved = (app.conf.broker_url, app.conf.broker_transport, app.conf.task_always_eager)
    app.conf.broker_url, app.conf.broker_transport, app.conf.task_always_eager = (
        redis_url, broker_transport(redis_url), False
    )
    _reset_connections(app)
    yield redis_url
    app.conf.broker_url, app.conf.broker_transport, app.conf.task_always_eager = saved
    _reset_connections(app)


def _reset_connections(app) -> None:
    # Celery and kombu cache connection and producer pools (kombu's per broker URL, globally); drop them
    # so the broker URL just set applies and no later test picks up a closed pool.
    from kombu import pools

    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None
    pools.reset()
