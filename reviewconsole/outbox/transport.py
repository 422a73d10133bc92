"""Kombu's Redis transport, with a channel that keeps the one client it sends through.

Kombu's Redis channel builds a new `redis.Redis` for every message it puts on a queue (`conn_or_acquire`
without a client). The connection itself comes from the channel's pool either way; what the new client
costs is its construction, and redis-py 6 and later build some 170 response callbacks for each one: a
third of the CPU a task message took to send, more than any SQL statement of a submission. A client
holds no connection of its own between commands, only the pool, so one client per channel serves every
command the channel sends, from any thread, and the pool still reconnects after the broker restarts.

Celery uses it for `redis://` and `rediss://` broker URLs (`CELERY_BROKER_TRANSPORT` in settings).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    _command_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        if self._command_client is None:
            self._command_client = self._create_client()  # type: ignore[attr-defined]  # not in the stubs
        yield self._command_client


class Transport(kombu_redis.Transport):
    Channel = Channel


def broker_transport(url: str | None) -> str | None:
    """The transport Celery uses for the broker at `url`: this one for Redis, kombu's choice otherwise."""
    if url and url.split("://", 1)[0] in {"redis", "rediss"}:
        return f"{__name__}:{Transport.__name__}"
    return None
