"""When a request is sent again, and after how long: 429 and 503 always (nothing was stored), other 5xx
and lost connections only when sending again is safe, never a 4xx; `Retry-After` is honoured."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

# Refused before anything was stored (a limit, the database away): always safe to send again.
_NOTHING_STORED = {429, 503}


@dataclass(frozen=True)
class RetryPolicy:
    """How many times, and how long apart, a request is sent again."""

    max_retries: int = 4
    """Retries after the first attempt; 0 sends each request once."""
    backoff: float = 0.5
    """The first wait, in seconds, when the API names none; it doubles with each retry (with jitter)."""
    max_backoff: float = 30.0
    """The longest wait the backoff grows to."""
    max_retry_after: float = 60.0
    """The longest `Retry-After` waited for; past it the error is raised at once (a day's quota used up,
    say), with `retry_after` set, for the caller to decide."""

    def wait(self, attempt: int, result: httpx.Response | httpx.TransportError, *, idempotent: bool) -> float | None:
        """Seconds to wait before sending again after `attempt` (0 for the first) gave `result`; None: do not."""
        if attempt >= self.max_retries:
            return None
        if isinstance(result, httpx.TransportError):
            return self._backoff(attempt) if idempotent else None
        if result.status_code not in _NOTHING_STORED and not (result.status_code >= 500 and idempotent):
            return None
        asked = retry_after(result)
        if asked is None:
            return self._backoff(attempt)
        return asked if asked <= self.max_retry_after else None

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.max_backoff, self.backoff * 2.0**attempt)
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def retry_after(response: httpx.Response) -> float | None:
    """The seconds a response's `Retry-After` asks for (as a number or an HTTP date), if it has one."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, float((when - datetime.now(UTC)).total_seconds()))
