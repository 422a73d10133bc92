"""Tasks and critics the worker tests hand to a real worker; each reports what happened through Redis.

The critics are named by dotted path in POLICY_CALIBRATION_CRITIC, in the worker's environment.
"""

from __future__ import annotations

import os
import time

import redis
from django.db import OperationalError

from reviewconsole.celery import app
from reviewconsole.policy.calibration import Critic
from verification.errors import PermanentError, TransientError


def _redis() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"])


@app.task(name="tests.fail_then_succeed")
def fail_then_succeed(key: str, failures: int, kind: str) -> None:
    """Raise `kind` on the first `failures` runs, then record success."""
    client = _redis()
    attempt = client.incr(f"{key}:attempts")
    if attempt <= failures:
        error = {"transient": TransientError, "database": OperationalError, "permanent": PermanentError}[kind]
        raise error(f"attempt {attempt} failed")
    client.set(f"{key}:done", attempt)


@app.task(name="tests.die_once")
def die_once(key: str) -> None:
    """On the first run, publish the pool process id and hang until killed; afterwards record success."""
    client = _redis()
    attempt = client.incr(f"{key}:attempts")
    if attempt == 1:
        client.set(f"{key}:pid", os.getpid())
        time.sleep(120)
    client.set(f"{key}:done", attempt)


HANGING_CRITIC_STARTED = "hanging-critic:started"
FLAKY_CRITIC_CALLS = "flaky-critic:calls"


def hanging_critic(rubric, constitution) -> Critic:
    """A critic that says it started, then hangs on its first fixture until its worker is killed."""

    def run(fixture):
        _redis().set(HANGING_CRITIC_STARTED, os.getpid())
        time.sleep(120)
        return []

    return Critic("hanging", run)


def flaky_critic(rubric, constitution) -> Critic:
    """A critic whose model endpoint times out once, then finds nothing."""

    def run(fixture):
        if _redis().incr(FLAKY_CRITIC_CALLS) == 1:
            raise TransientError("critic model timed out")
        return []

    return Critic("flaky", run)


@app.task(name="tests.collector")
def collector(key: str) -> None:
    """Record how the worker process that ran it sets the cyclic garbage collector."""
    import gc

    _redis().set(key, f"{gc.get_threshold()[0]} {gc.get_freeze_count()}")
