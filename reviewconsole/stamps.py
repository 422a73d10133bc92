"""What each process keeps of rows read on every request but rarely changed, and how every process drops
it at once when they change.

A process keeps the rows it read (an API client by its token hash, the constitution version in force by
name) together with the stamp it read first: a random value in Redis, the store every process shares. A
service that changes such rows renews the stamp once its transaction commits (`Stamp.renew_on_commit`),
so every process's next read finds a stamp its entries were not read under, and reads the database
again. The stamp is a fresh random value, not a counter, so a Redis that restarted empty cannot bring
back an old one. Without Redis (the embedded default), or while it does not answer, nothing is kept: a
cache no other process can void would not be safe.

Reading the stamp costs a round trip to Redis; a request that consults several caches under one stamp
reads it once (`Stamp.one_read`), and a caller with a round trip of its own to make may read it there
(`Stamp.offer`).
"""

from __future__ import annotations

import contextvars
import copy
import logging
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

import redis
from django.conf import settings
from django.db import transaction

from reviewconsole.redis_clients import shared_client

logger = logging.getLogger(__name__)

# After Redis failed to answer, ask it again only after this long; meanwhile every read goes to the database.
RETRY_REDIS_SECONDS = 5.0

_quiet_until = 0.0

Value = TypeVar("Value")


class Stamp:
    """A shared random value in Redis that voids, when renewed, every process's caches read under it."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._caches: list[StampCache] = []
        # Within `one_read`: the stamp read there (None until read); outside it, no value at all.
        self._held: contextvars.ContextVar[list[str | None] | None] = contextvars.ContextVar(key, default=None)

    def current(self) -> str | None:
        """The stamp all processes share now; None when there is no Redis or it does not answer.

        Read before the rows it guards: a change committed after this read renews the stamp behind it,
        so an entry stored under the stamp read here is void as soon as it is stored.
        """
        held = self._held.get()
        if held is None:
            return self._read()
        if not held:
            held.append(self._read())
        return held[0]

    @contextmanager
    def one_read(self) -> Iterator[None]:
        """Within the block, the stamp is read from Redis once, at its first use, whichever caches ask.

        For one request: what it reads is as of one moment at its start, as if its reads were one.
        """
        token = self._held.set([])
        try:
            yield
        finally:
            self._held.reset(token)

    def unread(self) -> bool:
        """Within `one_read`, whether the stamp is yet to be read: a caller may then read it together with
        work of its own in one round trip, and `offer` what it read."""
        held = self._held.get()
        return held is not None and not held

    def offer(self, stamp: str) -> None:
        """Within `one_read`, take `stamp` as this block's read of the stamp (read by the caller, in a round trip
        of its own); nothing when it was read already."""
        held = self._held.get()
        if held is not None and not held:
            held.append(stamp)

    def renew_on_commit(self) -> None:
        """Void every process's entries once the current transaction commits.

        Every service that changes a row some cache under this stamp holds calls it inside its
        transaction; after the commit, the next read in any process goes to the database.
        """
        transaction.on_commit(self._renew, robust=True)

    def forget(self) -> None:
        """Drop this process's entries (the other processes' stay until the stamp is renewed)."""
        for cache in self._caches:
            cache.clear()

    def _read(self) -> str | None:
        connection = _connection()
        if connection is None or time.monotonic() < _quiet_until:
            return None
        try:
            stamp = connection.get(self.key)
            if stamp is None:
                # First use, or Redis restarted empty: start a stamp (unless another process just did).
                connection.set(self.key, new_value(), nx=True)
                stamp = connection.get(self.key)
        except redis.RedisError as error:
            self._failed(error)
            return None
        return stamp.decode("ascii") if isinstance(stamp, bytes) else stamp

    def _renew(self) -> None:
        self.forget()  # this process's own entries, even when Redis does not answer
        # Tried even while this process reads no stamps after a failure: other processes may be reading them.
        connection = _connection()
        if connection is None:
            return
        try:
            connection.set(self.key, new_value())
        except redis.RedisError as error:
            self._failed(error)

    def _failed(self, error: redis.RedisError) -> None:
        global _quiet_until
        # Entries read under a stamp that may since have been renewed must not outlive the outage.
        self.forget()
        _quiet_until = time.monotonic() + RETRY_REDIS_SECONDS
        logger.warning("reading from the database on every request: Redis does not answer: %s", error)


CONFIGURATION = Stamp("reviewconsole:configuration-stamp")
"""Who may submit and under what: API clients and their credentials, the constitution versions in force.

One stamp for both, so a submission reads Redis once; each changes rarely enough that renewing the
other's entries too costs each process a query or two.
"""


@dataclass(frozen=True)
class _Entry(Generic[Value]):
    value: Value
    stamp: str
    """The stamp current when the value was read; the entry is void once the stamp changes."""
    until: float
    """time.monotonic() past which the value is read again whatever the stamp says."""


class StampCache(Generic[Value]):
    """Values read from the database, kept by this process while `stamp` stays what it was when they were read.

    Only values found are kept (an absent row is read again each time), so lookups of things that do not
    exist (guessed tokens, unknown names) cannot fill the cache. Each answer is a shallow copy: a caller
    may attach it to new rows, and the kept one must stay as read.
    """

    def __init__(self, stamp: Stamp, *, seconds: float, max_entries: int) -> None:
        # `seconds` is a backstop only: a change made past the services (a shell, SQL), or made while
        # Redis could not be told, is seen within this long.
        self.seconds = seconds
        self.max_entries = max_entries
        self.stamp = stamp
        self._entries: dict[str, _Entry[Value]] = {}
        stamp._caches.append(self)

    def get(self, key: str, read: Callable[[], Value | None]) -> Value | None:
        """The value kept for `key` while the stamp holds; otherwise `read()`, kept when it found one."""
        stamp = self.stamp.current()
        if stamp is None:
            return read()
        entry = self._entries.get(key)
        if entry is not None and entry.stamp == stamp and entry.until > time.monotonic():
            return copy.copy(entry.value)
        value = read()
        if value is not None:
            if len(self._entries) >= self.max_entries:
                self._entries.clear()
            self._entries[key] = _Entry(copy.copy(value), stamp, time.monotonic() + self.seconds)
        return value

    def peek(self, key: str) -> Value | None:
        """The value kept for `key`, whatever the stamp says now: a guess (read it, never change it), which
        `get` confirms or replaces."""
        entry = self._entries.get(key)
        return None if entry is None else entry.value

    def clear(self) -> None:
        self._entries.clear()


def new_value() -> str:
    """A new stamp: a script that reads the stamp starts it with this when there is none."""
    return secrets.token_hex(16)


def _connection() -> redis.Redis | None:
    url = settings.REDIS_URL
    return None if url is None else shared_client(url, timeout=0.5)
