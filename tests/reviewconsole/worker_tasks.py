"""Tasks the worker tests send to a real worker; each reports what happened through Redis."""

from __future__ import annotations

import os
import time

import redis

from reviewconsole.celery import app
from verification.errors import PermanentError, TransientError


def _redis() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"])


@app.task(name="tests.fail_then_succeed")
def fail_then_succeed(key: str, failures: int, kind: str) -> None:
    """Raise `kind` on the first `failures` runs, then record success."""
    client = _redis()
    attempt = client.incr(f"{key}:attempts")
    if attempt <= failures:
        raise (TransientError if kind == "transient" else PermanentError)(f"attempt {attempt} failed")
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
