"""What a client application is given (its API token, its webhook signing secret), and how a request's
token is checked.

Checking a token is a read on every API request, so each web process keeps the clients it found by
token hash. A cached client is used only while the credentials stamp it was read under is still the
current one: the stamp lives in Redis (the broker every web process shares), and every change to a
client's credentials replaces it once the change commits (`credentials_changed`), so a rotated token,
a revoked or deactivated client, is refused by every process from its next request on. The stamp is a
fresh random value, not a counter, so a Redis that restarted and lost it cannot bring an old one back.
Without Redis (the embedded default), or while it does not answer, tokens are checked in the database
on every request: a cache no other process can invalidate would not be safe.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import logging
import secrets
import time
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import transaction

from reviewconsole.intake.models import Client

logger = logging.getLogger(__name__)

TOKEN_PREFIX = "rc_"
SECRET_PREFIX = "whsec_"
"""Standard Webhooks (https://www.standardwebhooks.com) secrets start with this."""

STAMP_KEY = "reviewconsole:intake:credentials-stamp"
# A backstop only: a change made past intake's services (a shell, SQL), or made while Redis could not be
# told, is seen within this long.
CACHE_SECONDS = 30.0
# Far more than there are clients: the cache holds valid tokens only, so guessed tokens never fill it.
MAX_CACHED = 1024
# After Redis failed to answer, ask it again only after this long; meanwhile every check reads the database.
RETRY_REDIS_SECONDS = 5.0


def token_hash(token: str) -> str:
    """What is stored of an API token: its sha256, so a database leak does not leak tokens."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_webhook_secret() -> str:
    """A fresh signing secret for a client: "whsec_" and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


# --- Checking a token ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Cached:
    client: Client
    stamp: bytes | str
    """The credentials stamp current when the client was read; the entry is void once the stamp changes."""
    until: float
    """time.monotonic() past which the entry is read again whatever the stamp says."""


_cached: dict[str, _Cached] = {}
_redis: dict[str, redis.Redis] = {}
_redis_quiet_until = 0.0


def client_for_token(token: str) -> Client | None:
    """The active client whose token this is; None for an unknown, rotated or revoked token."""
    if not token:
        return None
    digest = token_hash(token)
    # Read before the database: a change committed after this read leaves a new stamp behind it, so an
    # entry stored below under this one is void as soon as it is stored.
    stamp = _current_stamp()
    if stamp is not None:
        cached = _cached.get(digest)
        if cached is not None and cached.stamp == stamp and cached.until > time.monotonic():
            # A copy: the caller may attach it to new rows, and the cached one must stay as read.
            return copy.copy(cached.client)
    client = Client.objects.filter(token_hash=digest, is_active=True).first()
    if client is not None and stamp is not None:
        if len(_cached) >= MAX_CACHED:
            _cached.clear()
        _cached[digest] = _Cached(copy.copy(client), stamp, time.monotonic() + CACHE_SECONDS)
    return client


def credentials_changed() -> None:
    """Void every process's cached tokens once the current transaction commits.

    Every service that changes what a token may do (rotation, revocation, restoring) calls it inside
    its transaction; after the commit, the next request in any process reads the client again.
    """
    transaction.on_commit(_new_stamp, robust=True)


def _new_stamp() -> None:
    _cached.clear()  # this process's own entries, even when Redis does not answer
    # Tried even while this process reads no stamps after a failure: other processes may be reading them.
    connection = _connection()
    if connection is None:
        return
    try:
        connection.set(STAMP_KEY, secrets.token_hex(16))
    except redis.RedisError as error:
        _redis_failed(error)


def _current_stamp() -> bytes | str | None:
    """The stamp all processes share now; None when there is no Redis or it does not answer."""
    connection = _connection()
    if connection is None or time.monotonic() < _redis_quiet_until:
        return None
    try:
        stamp = connection.get(STAMP_KEY)
        if stamp is None:
            # First use, or Redis restarted empty: start a stamp (unless another process just did).
            connection.set(STAMP_KEY, secrets.token_hex(16), nx=True)
            stamp = connection.get(STAMP_KEY)
    except redis.RedisError as error:
        _redis_failed(error)
        return None
    return stamp


def _connection() -> redis.Redis | None:
    url = settings.REDIS_URL
    if url is None:
        return None
    if url not in _redis:
        _redis[url] = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    return _redis[url]


def _redis_failed(error: redis.RedisError) -> None:
    global _redis_quiet_until
    # Entries read under a stamp that may since have changed must not outlive the outage.
    _cached.clear()
    _redis_quiet_until = time.monotonic() + RETRY_REDIS_SECONDS
    logger.warning("API tokens are checked in the database: Redis does not answer: %s", error)
