"""Every Redis client the console makes outside Celery's broker, with its timeouts.

One client per process, URL and timeout: its pool keeps connections open between requests. Opening a
connection costs a TCP handshake and redis-py's handshake commands on every use; a request path that talks
to Redis (a submission's stamp read, a /healthz probe) borrows a pooled one instead. No client waits longer
than REDIS_CONNECT_TIMEOUT_SECONDS to connect or REDIS_SOCKET_TIMEOUT_SECONDS for an answer (a caller may
ask for less): a Redis host cut off by a partition is an error within seconds, never a hang.
"""

from __future__ import annotations

import redis
from django.conf import settings

_clients: dict[tuple[str, float | None], redis.Redis] = {}


def new_client(url: str, *, timeout: float | None = None) -> redis.Redis:
    """A client of its own for `url` (close it after use); `timeout` shortens the configured ones, in seconds."""
    connect, answer = settings.REDIS_CONNECT_TIMEOUT_SECONDS, settings.REDIS_SOCKET_TIMEOUT_SECONDS
    if timeout is not None:
        connect, answer = min(connect, timeout), min(answer, timeout)
    return redis.Redis.from_url(url, socket_connect_timeout=connect, socket_timeout=answer, socket_keepalive=True)


def shared_client(url: str, *, timeout: float | None = None) -> redis.Redis:
    """The process's pooled client for `url`, as `new_client` makes it."""
    key = (url, timeout)
    client = _clients.get(key)
    if client is None:
        client = _clients[key] = new_client(url, timeout=timeout)
    return client
