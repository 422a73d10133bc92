"""/healthz: is the database reachable, is the broker reachable.

Anyone may ask, so the answer names the part that is down and nothing more: the error (with its host and
port) goes to the log for the operator.
"""

from __future__ import annotations

import logging

import redis
from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from reviewconsole.redis_clients import shared_client

logger = logging.getLogger(__name__)


def _database_status() -> dict[str, object]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        logger.warning("healthz: the database does not answer: %s", _first_line(error))
        return {"ok": False, "vendor": connection.vendor}
    return {"ok": True, "vendor": connection.vendor}


def _broker_status() -> dict[str, object]:
    if settings.REDIS_URL is None:
        return {"ok": True, "kind": "in-process"}
    # A pooled connection: a load balancer probing every second should not cost a handshake each time.
    try:
        shared_client(settings.REDIS_URL, timeout=2).ping()
    except redis.RedisError as error:
        logger.warning("healthz: the broker does not answer: %s", _first_line(error))
        return {"ok": False, "kind": "redis"}
    return {"ok": True, "kind": "redis"}


def _first_line(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every part answers, 503 naming the part that does not."""
    parts = {"database": _database_status(), "broker": _broker_status()}
    healthy = all(part["ok"] for part in parts.values())
    return JsonResponse({"status": "ok" if healthy else "down", **parts}, status=200 if healthy else 503)
