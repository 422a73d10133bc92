"""Where the counters behind clients' limits live: Redis, which every web process shares, or this process
alone where no Redis is configured (the embedded default, where one process serves).

Both keep the same three things, with the same semantics:
- a token bucket per client for requests: it holds up to one second's worth of requests (the rate) and
  refills continuously at the rate; a request takes a token, and is refused while none is left;
- per client and UTC day, the cases accepted and the body bytes they came in;
- per UTC day, the requests refused per client and limit, for the metrics page (kept REFUSALS_KEPT_DAYS).

In Redis each check and its charge is one Lua script, so two web processes cannot both take the last token
or the last case of a day. The bucket's clock is Redis's own (TIME), the same for every process.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import date, timedelta
from typing import Protocol

import redis

# Long enough for any period the metrics page is asked about; a day's refusals are one small hash.
REFUSALS_KEPT_DAYS = 400
_PREFIX = "reviewconsole:limits"
# A day's usage is read until the day is over everywhere a web process's clock may be.
_DAY_SECONDS = 2 * 86_400


class Counters(Protocol):
    def request_take(self, *, client_id: int, rate: int, day: date) -> float:
        """Take one of the client's request tokens: 0 when taken, else the seconds until one is there
        (the refusal is counted)."""

    def case_charge(
        self, *, client_id: int, day: date, cases_limit: int, bytes_limit: int, body_bytes: int
    ) -> str | None:
        """Count one more case of `body_bytes` for the client today, unless a limit (0: none) would be
        passed: then nothing is charged, the refusal is counted and the limit's name returned."""

    def case_refund(self, *, client_id: int, day: date, body_bytes: int) -> None:
        """Give back a case charged today that was not stored after all."""

    def refusals(self, days: list[date]) -> dict[tuple[int, str], int]:
        """Requests refused on `days`, per (client id, limit name)."""


def _refused_key(day: date) -> str:
    return f"{_PREFIX}:refused:{day.isoformat()}"


def _usage_key(client_id: int, day: date) -> str:
    return f"{_PREFIX}:{client_id}:{day.isoformat()}"


def _bucket_key(client_id: int) -> str:
    return f"{_PREFIX}:{client_id}:requests"


# KEYS: the bucket, the day's refusals. ARGV: the rate (tokens a second, and the bucket's size), the refusal's
# field, how long refusals are kept. Returns the seconds to wait as text ("0": taken); Lua numbers would be
# truncated to integers on the way back.
_REQUEST_TAKE = b"""
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
"""

# KEYS: the client's usage today, the day's refusals. ARGV: the cases limit, the bytes limit (0: none), the
# body's bytes, how long usage is kept, the client's refusal field prefix, how long refusals are kept.
# Returns the name of the limit that refused, or "" when charged.
_CASE_CHARGE = b"""
local cases_limit, bytes_limit, body = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local used = redis.call('HMGET', KEYS[1], 'cases', 'bytes')
local cases, bytes = tonumber(used[1]) or 0, tonumber(used[2]) or 0
local over = ''
if cases_limit > 0 and cases + 1 > cases_limit then
  over = 'cases_per_day'
elseif bytes_limit > 0 and bytes + body > bytes_limit then
  over = 'body_bytes_per_day'
end
if over ~= '' then
  redis.call('HINCRBY', KEYS[2], ARGV[5] .. over, 1)
  redis.call('EXPIRE', KEYS[2], ARGV[6])
  return over
end
redis.call('HINCRBY', KEYS[1], 'cases', 1)
redis.call('HINCRBY', KEYS[1], 'bytes', body)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return ''
"""


class RedisCounters:
    """The counters in Redis: every web process on the same Redis shares them."""

    def __init__(self, connection: redis.Redis) -> None:
        self.connection = connection
        # Sent by hash (EVALSHA), and whole only when Redis does not have it yet (after a restart, say).
        self._request_take = connection.register_script(_REQUEST_TAKE)
        self._case_charge = connection.register_script(_CASE_CHARGE)

    def request_take(self, *, client_id: int, rate: int, day: date) -> float:
        keys = [_bucket_key(client_id), _refused_key(day)]
        args: list[int | str] = [rate, f"{client_id}:requests_per_second", REFUSALS_KEPT_DAYS * 86_400]
        return float(self._request_take(keys, args))

    def case_charge(
        self, *, client_id: int, day: date, cases_limit: int, bytes_limit: int, body_bytes: int
    ) -> str | None:
        keys = [_usage_key(client_id, day), _refused_key(day)]
        args: list[int | str] = [
            cases_limit, bytes_limit, body_bytes, _DAY_SECONDS, f"{client_id}:", REFUSALS_KEPT_DAYS * 86_400
        ]
        over = self._case_charge(keys, args)
        return (over.decode() if isinstance(over, bytes) else over) or None

    def case_refund(self, *, client_id: int, day: date, body_bytes: int) -> None:
        with self.connection.pipeline(transaction=True) as refund:
            refund.hincrby(_usage_key(client_id, day), "cases", -1)
            refund.hincrby(_usage_key(client_id, day), "bytes", -body_bytes)
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
        self, *, client_id: int, day: date, cases_limit: int, bytes_limit: int, body_bytes: int
    ) -> str | None:
        with self._lock:
            cases, used_bytes = self._usage.get((client_id, day), (0, 0))
            over = None
            if cases_limit and cases + 1 > cases_limit:
                over = "cases_per_day"
            elif bytes_limit and used_bytes + body_bytes > bytes_limit:
                over = "body_bytes_per_day"
            if over:
                self._refused[(day, client_id, over)] += 1
                return over
            self._forget_before(day)
            self._usage[(client_id, day)] = (cases + 1, used_bytes + body_bytes)
            return None

    def case_refund(self, *, client_id: int, day: date, body_bytes: int) -> None:
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
