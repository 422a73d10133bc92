"""Each client's limits, so that no client can crowd out the others: requests per second, cases per day and
request body bytes per day.

A client's limit is the one a team admin set on its page, or else the setting's default
(CLIENT_REQUESTS_PER_SECOND, CLIENT_CASES_PER_DAY, CLIENT_BODY_BYTES_PER_DAY); 0 is no limit. Every API
request a client makes takes a request token; a case takes one of the day's cases and its body's bytes
when it is stored, so a client's retry of a case it already has (same external_id) is never charged, and
is answered even once the day's quota is used up. Days are UTC days. A body larger than a whole day's bytes
can never pass: it is refused for good (a 413), not until tomorrow.

The counters are in Redis (REDIS_URL), shared by every web process, or in this process without one
(quota_counters.py). A Redis that does not answer stops nothing: the request goes on unlimited, with one
log line, and Redis is asked again after RETRY_REDIS_SECONDS.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum

import redis
from django.conf import settings
from django.db import transaction

from reviewconsole import stamps
from reviewconsole.intake.credentials import client_for_token, client_known, credentials_changed
from reviewconsole.intake.models import Client
from reviewconsole.intake.quota_counters import REFUSALS_KEPT_DAYS, Counters, LocalCounters, RedisCounters
from reviewconsole.redis_clients import shared_client

logger = logging.getLogger(__name__)

# After Redis failed to answer, limits are not enforced for this long (one log line), then Redis is asked again.
RETRY_REDIS_SECONDS = 5.0
_quiet_until = 0.0
_LOCAL = LocalCounters()


class Limit(StrEnum):
    """Each limit, named as its Client field, its setting (CLIENT_ + upper case) and a 429's `field`."""

    REQUESTS_PER_SECOND = "requests_per_second"
    CASES_PER_DAY = "cases_per_day"
    BODY_BYTES_PER_DAY = "body_bytes_per_day"

    @property
    def default(self) -> int:
        return int(getattr(settings, f"CLIENT_{self.name}"))

    @property
    def label(self) -> str:
        return self.value.replace("_", " ").capitalize()


class OverLimit(Exception):
    """A client's request refused by one of its limits, and how long until it would be let through (None:
    never, as a body larger than a whole day's bytes)."""

    def __init__(self, limit: Limit, retry_after: float | None, message: str) -> None:
        self.limit = limit
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))
        """Whole seconds, as Retry-After gives them: rounded up, at least 1."""
        self.message = message if self.retry_after is None else f"{message}; retry in {self.retry_after} s"
        super().__init__(self.message)


def client_limit(client: Client, limit: Limit) -> int:
    """The client's own limit where a team admin set one, else the default; 0 is no limit."""
    own = getattr(client, limit.value)
    return limit.default if own is None else int(own)


def request_admit(client: Client) -> None:
    """Take one of the client's requests of this second; OverLimit when it has none left."""
    rate = client_limit(client, Limit.REQUESTS_PER_SECOND)
    counters = _counters() if rate else None
    if counters is None:
        return
    try:
        wait = counters.request_take(client_id=client.pk, rate=rate, day=_today())
    except redis.RedisError as error:
        _redis_failed(error)
        return
    _request_refuse_if(wait, rate)


def client_admit(token: str) -> Client | None:
    """The active client whose token this is (None for an unknown, rotated or revoked one), with one of its
    requests of this second taken (`request_admit`).

    Where this process found the token's client before, the request is taken in the round trip that reads
    the configuration stamp, which says whether that client is still as found: one round trip for both. If
    it is not (a change since), the request is taken again as the client now is, so a request just after a
    client's limit changed may cost it two.
    """
    known = client_known(token)
    rate = client_limit(known, Limit.REQUESTS_PER_SECOND) if known is not None else 0
    counters = _counters() if rate else None
    if known is not None and isinstance(counters, RedisCounters) and stamps.CONFIGURATION.unread():
        try:
            stamp, wait = counters.request_take_stamped(client_id=known.pk, rate=rate, day=_today(),
                                                        stamp_key=stamps.CONFIGURATION.key)
        except redis.RedisError as error:
            _redis_failed(error)
        else:
            stamps.CONFIGURATION.offer(stamp)
            client = client_for_token(token)
            if client is not None and client.pk == known.pk and client_limit(client, Limit.REQUESTS_PER_SECOND) == rate:
                _request_refuse_if(wait, rate)
                return client
            if client is not None:
                request_admit(client)
            return client
    client = client_for_token(token)
    if client is not None:
        request_admit(client)
    return client


def _request_refuse_if(wait: float, rate: int) -> None:
    if wait > 0:
        raise OverLimit(Limit.REQUESTS_PER_SECOND, wait, f"at most {rate} requests a second for this client")


@dataclass
class Charge:
    """A case charged to its client's day: given back when the case turns out not to be stored."""

    client_id: int
    day: date
    body_bytes: int
    counters: Counters | None
    """Where it was charged or counted; None when nothing was (no quota, or Redis did not answer)."""
    usage: bool = False
    """Whether it was charged to the day's usage (not when the client has no day quota)."""
    backlog_key: str | None = None
    """Where the case was counted into its client's backlog with the charge; None when it was not."""
    backlog: int | None = None
    """That backlog, this case included."""

    def refund(self) -> None:
        counters, self.counters = self.counters, None
        if counters is None:
            return
        try:
            counters.case_refund(client_id=self.client_id, day=self.day, body_bytes=self.body_bytes,
                                 usage=self.usage, backlog_key=self.backlog_key)
        except redis.RedisError as error:
            _redis_failed(error)


def case_charge(*, client: Client, body_bytes: int, backlog_key: str | None = None) -> Charge:
    """Charge one case of `body_bytes` to the client's day; OverLimit when either day quota would be passed,
    a final one (`retry_after` None) when the body alone is larger than a whole day's bytes.

    With `backlog_key` (a key in the same Redis), the case is also counted into its client's backlog in
    the same round trip, and the count is the charge's `backlog`.
    """
    cases_limit = client_limit(client, Limit.CASES_PER_DAY)
    bytes_limit = client_limit(client, Limit.BODY_BYTES_PER_DAY)
    charge = Charge(client.pk, _today(), body_bytes, None)
    counters = _counters() if cases_limit or bytes_limit or backlog_key else None
    if counters is None:
        return charge
    try:
        over, backlog = counters.case_charge(client_id=client.pk, day=charge.day, cases_limit=cases_limit,
                                             bytes_limit=bytes_limit, body_bytes=body_bytes, backlog_key=backlog_key)
    except redis.RedisError as error:
        _redis_failed(error)
        return charge
    if over is None:
        charge.counters, charge.usage = counters, bool(cases_limit or bytes_limit)
        charge.backlog_key, charge.backlog = (backlog_key, backlog) if backlog is not None else (None, None)
        return charge
    if over == Limit.BODY_BYTES_PER_DAY and body_bytes > bytes_limit:
        raise OverLimit(Limit.BODY_BYTES_PER_DAY, None, f"this body's {body_bytes} bytes are more than this "
                        f"client's {bytes_limit} body bytes a day (UTC): it can never be accepted")
    midnight = datetime.combine(charge.day + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
    wait = (midnight - datetime.now(UTC)).total_seconds()
    if over == Limit.CASES_PER_DAY:
        message = f"at most {cases_limit} cases a day (UTC) for this client, and today's are used up"
    else:
        message = f"at most {bytes_limit} body bytes a day (UTC) for this client; this body's {body_bytes} pass them"
    raise OverLimit(Limit(over), wait, message)


def refusals(*, since: datetime, until: datetime) -> dict[tuple[int, Limit], int] | None:
    """Requests refused by a limit on the UTC days of [since, until), per (client id, limit); None when
    Redis does not answer. Kept for REFUSALS_KEPT_DAYS."""
    first, last = since.astimezone(UTC).date(), (until - timedelta(microseconds=1)).astimezone(UTC).date()
    first = max(first, last - timedelta(days=REFUSALS_KEPT_DAYS))
    days = [first + timedelta(days=offset) for offset in range((last - first).days + 1)]
    counters = _counters()
    if counters is None:
        return None
    try:
        counts = counters.refusals(days)
    except redis.RedisError as error:
        _redis_failed(error)
        return None
    return {(client_id, Limit(limit)): count for (client_id, limit), count in counts.items()}


def client_limits_set(*, client: Client, limits: dict[Limit, int | None]) -> dict[Limit, tuple[int | None, int | None]]:
    """Give the client its own limits (None: the default again); returns each change as (from, to)."""
    changes = {limit: (getattr(client, limit.value), value) for limit, value in limits.items()
               if getattr(client, limit.value) != value}
    if not changes:
        return changes
    with transaction.atomic():
        for limit, (_, value) in changes.items():
            setattr(client, limit.value, value)
        client.save(update_fields=[limit.value for limit in changes])
        # Processes keep the client their token found: the new limits apply from every process's next request.
        credentials_changed()
    return changes


def _today() -> date:
    return datetime.now(UTC).date()


def _counters() -> Counters | None:
    """Redis's counters where one is configured, this process's without; None while Redis is left alone after
    failing to answer."""
    url = settings.REDIS_URL
    if url is None:
        return _LOCAL
    if time.monotonic() < _quiet_until:
        return None
    return RedisCounters(shared_client(url, timeout=0.5))


def _redis_failed(error: redis.RedisError) -> None:
    global _quiet_until
    _quiet_until = time.monotonic() + RETRY_REDIS_SECONDS
    logger.warning("client limits not enforced for %.0f s: Redis does not answer: %s", RETRY_REDIS_SECONDS, error)
