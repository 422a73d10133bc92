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
from reviewconsole.queues import WorkerPool, pool_queues

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
    """A real `celery worker` of one pool (its queues as a deployment runs them) in a child process of its
    own process group."""

    def __init__(self, env: dict[str, str], log_path: Path, pool: WorkerPool):
        self.pool = pool
        self.log_path = log_path
        self._log = log_path.open("w")
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "reviewconsole", "worker", "--queues", pool_queues(pool),
                "--include", "tests.reviewconsole.worker_tasks",
                "--pool", "prefork", "--concurrency", "1", "--hostname", f"{log_path.stem}@%h",
                "--loglevel", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
            ],
            cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"celery worker {self.log_path.stem} exited early:\n{self.log()}")
            if " ready." in self.log():
                return
            time.sleep(0.2)
        raise RuntimeError(f"celery worker {self.log_path.stem} did not start within 60 s:\n{self.log()}")

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


class Workers:
    """A deployment's workers: one process for each pool (reviewconsole.queues.POOL_QUEUES), started together,
    killed and stopped together, as one worker host."""

    def __init__(self, env: dict[str, str], log_folder: Path, name: str):
        self.pools = {pool: WorkerProcess(env, log_folder / f"{name}-{pool.value}.log", pool) for pool in WorkerPool}
        try:
            for worker in self.pools.values():
                worker.wait_ready()
        except BaseException:
            self.stop()
            raise

    def __getitem__(self, pool: WorkerPool) -> WorkerProcess:
        return self.pools[pool]

    def log(self) -> str:
        """Every pool's log, each under its pool's name."""
        return "\n".join(f"--- {pool.value} pool ---\n{worker.log()}" for pool, worker in self.pools.items())

    def kill(self) -> None:
        for worker in self.pools.values():
            worker.kill()

    def stop(self) -> None:
        for worker in self.pools.values():
            worker.stop()


def _test_database_url() -> str | None:
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    params = connection.settings_dict
    host, port = params["HOST"] or "127.0.0.1", params["PORT"] or 5432
    return f"postgres://{params['USER']}@{host}:{port}/{params['NAME']}"


@pytest.fixture
def start_worker(redis_url: str, tmp_path: Path) -> Iterator[Callable[..., Workers]]:
    """Start real workers against the test run's Redis and test database, one process for each pool as a
    deployment runs them; all are stopped afterwards.

    Tests that let a worker read rows must use `transaction=True`, so their rows are committed.
    """
    workers: list[Workers] = []

    def start(**extra_env: str) -> Workers:
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
        started = Workers(env, tmp_path, f"worker{len(workers) + 1}")
        workers.append(started)
        return started

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def celery_worker(start_worker) -> Workers:
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
