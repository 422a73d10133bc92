"""Which broker instance is up: the identity that tells a restarted Redis (which may have lost its queues)
from the one a message was handed to."""

from __future__ import annotations

import time
from typing import Any

import redis
from celery import Celery

from reviewconsole.redis_clients import new_client

# A restart is noticed within this many seconds; until then a few messages may be sent twice, which
# is harmless: every task claims its work before doing it.
_TTL_SECONDS = 5.0
_cached: dict[str, tuple[float, str]] = {}


def broker_instance(app: Celery[Any], *, fresh: bool = False) -> str:
    """The running broker's instance id (Redis `run_id`, new at every start); "" when it does not answer."""
    return broker_instance_at(str(app.conf.broker_url), fresh=fresh)


def broker_instance_at(url: str, *, fresh: bool = False) -> str:
    """`broker_instance` for a caller that has read the broker's URL already (a read of Celery's settings costs
    about 10 us)."""
    now = time.monotonic()
    cached = _cached.get(url)
    if cached is not None and not fresh and now - cached[0] < _TTL_SECONDS:
        return cached[1]
    client = new_client(url, timeout=1)
    try:
        instance = str(client.info("server").get("run_id", ""))
    except redis.RedisError:
        instance = ""
    finally:
        client.close()
    _cached[url] = (now, instance)
    return instance


def forget() -> None:
    """Ask the broker again next time (after a failed send)."""
    _cached.clear()
