"""Where the counters behind clients' limits live: Redis, which every web process shares, or this process
alone where no Redis is configured (the embedded default, where one process serves).

Both keep the same three things, with the same semantics:
- a token bucket per client for requests: it holds up to one second's worth of requests (the rate) and
  refills continuously at the rate; a request takes a token, and is refused while none is left;
- per client and UTC day, the cases accepted and the body bytes they came in;
- per UTC day, the requests refused per client and limit, for the metrics page (kept REFUSALS_KEPT_DAYS).

In Redis each check and its charge is one Lua script, so two web processes cannot both take the last token
or the last case of a day. The bucket's clock is Redis's own (TIME), the same for every process. A case's
charge also counts the case into its client's backlog (fair_share.py) when asked, in the same script: a
submission's counters cost one round trip.

A body larger than a whole day's bytes is refused before anything else is looked at: no later day can
take it, so that refusal is final (the caller answers it as such), whatever else is used up.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import date, timedelta
from typing import NamedTuple, Protocol

import redis

from reviewconsole.stamps import new_value

# Long enough for any period the metrics page is asked about; a day's refusals are one small hash.
REFUSALS_KEPT_DAYS = 400
_PREFIX = "reviewconsole:limits"
# A day's usage is read until the day is over everywhere a web process's clock may be.
_DAY_SECONDS = 2 * 86_400


class CaseCharged(NamedTuple):
    """What a case's charge found."""

    over: str | None
    """The name of the limit that refused the case (nothing was charged), or None when it was charged."""
    backlog: int | None
    """The client's backlog counted with this case in it; None when it was not counted."""


class Counters(Protocol):
    def request_take(self, *, client_id: int, rate: int, day: date) -> float:
        """Take one of the client's request tokens: 0 when taken, else the seconds until one is there
        (the refusal is counted)."""

    def case_charge(
        self, *, client_id: int, day: date, cases_limit: int, bytes_limit: int, body_bytes: int,
        backlog_key: str | None = None,
    ) -> CaseCharged:
        """Count one more case of `body_bytes` for the client today, unless a limit (0: none) would be
        passed: then nothing is charged, the refusal is counted and the limit named. With `backlog_key`,
        a case charged is also counted into the client's backlog kept there."""

    def case_refund(
        self, *, client_id: int, day: date, body_bytes: int, usage: bool = True, backlog_key: str | None = None
    ) -> None:
        """Give back a case charged today (`usage`: to the day's usage; `backlog_key`: into the backlog kept
        there) that was not stored after all."""

    def refusals(self, days: list[date]) -> dict[tuple[int, str], int]:
        """Requests refused on `days`, per (client id, limit name)."""


def _refused_key(day: date) -> str:
    return f"{_PREFIX}:refused:{day.isoformat()}"


def _usage_key(client_id: int, day: date) -> str:
    return f"{_PREFIX}:{client_id}:{day.isoformat()}"


def _bucket_key(client_id: int) -> str:
    return f"{_PREFIX}:{client_id}:requests"


# A Lua function over KEYS[1] (the bucket) and KEYS[2] (the day's refusals), ARGV[1] (the rate: tokens a
# second, and the bucket's size), ARGV[2] (the refusal's field) and ARGV[3] (how long refusals are kept).
# It returns the seconds to wait as text ("0": taken); Lua numbers would be truncated to integers on the way
# back.
_TAKE = b"""
local function take()
  local rate = tonumber(ARGV[1])
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
  local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
  local tokens = tonumber(held[1]) or rate
  local at = tonumber(held[2]) or now
  tokens = math.min(rate, tokens + math.max(0, now - at) * rate)
  if tokens < 1 then
    redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
    redis.call('EXPIRE', KEYS[2], ARGV[3])
    return tostring((1 - tokens) / rate)
  end
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
  -- Full again within a second: an absent bucket is a full one.
  redis.call('EXPIRE', KEYS[1], 2)
  return '0'
end
"""
_REQUEST_TAKE = _TAKE + b"return take()"
# The same, with KEYS[3] a stamp (reviewconsole/stamps.py) read first, started with ARGV[4] when absent as
# Stamp reads it. Returns the stamp and the seconds to wait.
_STAMPED_REQUEST_TAKE = _TAKE + b"""
local stamp = redis.call('GET', KEYS[3])
if not stamp then
  redis.call('SET', KEYS[3], ARGV[4], 'NX')
  stamp = redis.call('GET', KEYS[3])
end
return {stamp, take()}
"""

# KEYS: the client's usage today, the day's refusals, and the client's backlog (only when it is counted).
# ARGV: the cases limit, the bytes limit (0: none), the body's bytes, how long usage is kept, the client's
# refusal field prefix, how long refusals are kept. Returns the name of the limit that refused ("" when
# charged) and the backlog with this case counted in (-1 when not counted).
_CASE_CHARGE = b"""
local cases_limit, bytes_limit, body = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if cases_limit > 0 or bytes_limit > 0 then
  local over = ''
  if bytes_limit > 0 and body > bytes_limit then
    over = 'body_bytes_per_day'
  else
    local used = redis.call('HMGET', KEYS[1], 'cases', 'bytes')
    local cases, bytes = tonumber(used[1]) or 0, tonumber(used[2]) or 0
    if cases_limit > 0 and cases + 1 > cases_limit then
      over = 'cases_per_day'
    elseif bytes_limit > 0 and bytes + body > bytes_limit then
      over = 'body_bytes_per_day'
    end
  end
  if over ~= '' then
    redis.call('HINCRBY', KEYS[2], ARGV[5] .. over, 1)
    redis.call('EXPIRE', KEYS[2], ARGV[6])
    return {over, -1}
  end
  redis.call('HINCRBY', KEYS[1], 'cases', 1)
  redis.call('HINCRBY', KEYS[1], 'bytes', body)
  redis.call('EXPIRE', KEYS[1], ARGV[4])
end
if KEYS[3] then
  return {'', redis.call('INCR', KEYS[3])}
end
return {'', -1}
"""


class RedisCounters:
    """The counters in Redis: every web process on the same Redis shares them."""

    def __init__(self, connection: redis.Redis) -> None:
        self.connection = connection
        # Sent by hash (EVALSHA), and whole only when Redis does not have it yet (after a restart, say).
        self._request_take = connection.register_script(_REQUEST_TAKE)
        self._stamped_request_take = connection.register_script(_STAMPED_REQUEST_TAKE)
        self._case_charge = connection.register_script(_CASE_CHARGE)

    def request_take(self, *, client_id: int, rate: int, day: date) -> float:
        keys = [_bucket_key(client_id), _refused_key(day)]
        args: list[int | str] = [rate, f"{client_id}:requests_per_second", REFUSALS_KEPT_DAYS * 86_400]
        return float(self._request_take(keys, args))

    def request_take_stamped(self, *, client_id: int, rate: int, day: date, stamp_key: str) -> tuple[str, float]:
        """`request_take`, reading the stamp at `stamp_key` in the same round trip: the stamp, and the wait."""
        keys = [_bucket_key(client_id), _refused_key(day), stamp_key]
        args: list[int | str] = [rate, f"{client_id}:requests_per_second", REFUSALS_KEPT_DAYS * 86_400, new_value()]
        stamp, wait = self._stamped_request_take(keys, args)
        return (stamp.decode("ascii") if isinstance(stamp, bytes) else stamp), float(wait)

    def case_charge(
        self, *, client_id: int, day: date, cases_limit: int, bytes_limit: int, body_bytes: int,
        backlog_key: str | None = None,
    ) -> CaseCharged:
        keys = [_usage_key(client_id, day), _refused_key(day)] + ([backlog_key] if backlog_key else [])
        args: list[int | str] = [
            cases_limit, bytes_limit, body_bytes, _DAY_SECONDS, f"{client_id}:", REFUSALS_KEPT_DAYS * 86_400
        ]
        over, backlog = self._case_charge(keys, args)
        over = over.decode() if isinstance(over, bytes) else over
        return CaseCharged(over or None, None if backlog < 0 else int(backlog))

    def case_refund(
        self, *, client_id: int, day: date, body_bytes: int, usage: bool = True, backlog_key: str | None = None
    ) -> None:
        with self.connection.pipeline(transaction=True) as refund:
            if usage:
                refund.hincrby(_usage_key(client_id, day), "cases", -1)
                refund.hincrby(_usage_key(client_id, day), "bytes", -body_bytes)
            if backlog_key:
                refund.decr(backlog_key)
            refund.execute()

    def refusals(self, days: list[date]) -> dict[tuple[int, str], int]:
        with self.connection.pipeline(transaction=False) as read:
            for day in days:
                read.hgetall(_refused_key(day))
            per_day = read.execute()
        totals: dict[tuple[int, str], int] = defaultdict(int)
        for counts in per_day:
            for field, count in counts.items():
                client_id, _, limit = field.decode().partition(":")
                totals[(int(client_id), limit)] += int(count)
        return dict(totals)


class LocalCounters:
    """The same counters in this process's memory, for a console served by one process without Redis."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._buckets: dict[int, tuple[float, float]] = {}
        self._usage: dict[tuple[int, date], tuple[int, int]] = {}
        self._refused: dict[tuple[date, int, str], int] = defaultdict(int)
        self._today: date | None = None

    def request_take(self, *, client_id: int, rate: int, day: date) -> float:
        now = time.monotonic()
        with self._lock:
            tokens, at = self._buckets.get(client_id, (float(rate), now))
            tokens = min(float(rate), tokens + max(0.0, now - at) * rate)
            if tokens < 1:
                self._refused[(day, client_id, "requests_per_second")] += 1
                return (1 - tokens) / rate
            self._buckets[client_id] = (tokens - 1, now)
            return 0.0

    def case_charge(
        self, *, client_id: int, day: date, cases_limit: int, bytes_limit: int, body_bytes: int,
        backlog_key: str | None = None,
    ) -> CaseCharged:
        # No backlog is counted here: without Redis there is no broker, and every case goes at priority 0.
        with self._lock:
            cases, used_bytes = self._usage.get((client_id, day), (0, 0))
            over = None
            if bytes_limit and body_bytes > bytes_limit:
                over = "body_bytes_per_day"
            elif cases_limit and cases + 1 > cases_limit:
                over = "cases_per_day"
            elif bytes_limit and used_bytes + body_bytes > bytes_limit:
                over = "body_bytes_per_day"
            if over:
                self._refused[(day, client_id, over)] += 1
                return CaseCharged(over, None)
            self._forget_before(day)
            self._usage[(client_id, day)] = (cases + 1, used_bytes + body_bytes)
            return CaseCharged(None, None)

    def case_refund(
        self, *, client_id: int, day: date, body_bytes: int, usage: bool = True, backlog_key: str | None = None
    ) -> None:
        if not usage:
            return
        with self._lock:
            cases, used_bytes = self._usage.get((client_id, day), (0, 0))
            self._usage[(client_id, day)] = (cases - 1, used_bytes - body_bytes)

    def refusals(self, days: list[date]) -> dict[tuple[int, str], int]:
        wanted = set(days)
        totals: dict[tuple[int, str], int] = defaultdict(int)
        with self._lock:
            for (day, client_id, limit), count in self._refused.items():
                if day in wanted:
                    totals[(client_id, limit)] += count
        return dict(totals)

    def _forget_before(self, day: date) -> None:
        # Usage of past days is never read again; refusals are, on the metrics page, for as long as Redis keeps them.
        if day == self._today:
            return
        self._today = day
        for used in [key for key in self._usage if key[1] < day]:
            del self._usage[used]
        oldest = day - timedelta(days=REFUSALS_KEPT_DAYS)
        for refused in [key for key in self._refused if key[0] < oldest]:
            del self._refused[refused]
