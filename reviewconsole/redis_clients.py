"""One Redis client per process, URL and timeout: its pool keeps connections open between requests.

Opening a connection costs a TCP handshake and redis-py's handshake commands on every use; a request
path that talks to Redis (a submission's stamp read, a /healthz probe) borrows a pooled one instead.
"""

from __future__ import annotations

import redis

_clients: dict[tuple[str, float], redis.Redis] = {}


def shared_client(url: str, *, timeout: float) -> redis.Redis:
    """The process's client for `url`; `timeout` bounds connecting and each command, in seconds."""
    key = (url, timeout)
    client = _clients.get(key)
    if client is None:
        client = _clients[key] = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    return client
