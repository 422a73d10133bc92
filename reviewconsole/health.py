"""/healthz: is the database reachable, is the broker reachable.

Anyone may ask (a load balancer, a container's health check), so the answer is up or down and nothing
more: the status code and `{"status": "ok"}` or `{"status": "down"}`, never which database or broker runs.
Which part is down, and why (with its host and port), goes to the log for the operator.
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


def _database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        logger.warning("healthz: the database does not answer: %s", _first_line(error))
        return False
    return True


def _broker_answers() -> bool:
    if settings.REDIS_URL is None:
        return True  # tasks run in-process: there is no broker to lose
    # A pooled connection: a load balancer probing every second should not cost a handshake each time.
    try:
        shared_client(settings.REDIS_URL, timeout=2).ping()
    except redis.RedisError as error:
        logger.warning("healthz: the broker does not answer: %s", _first_line(error))
        return False
    return True


def _first_line(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every part answers, 503 when one does not (the log names it)."""
    # Both are asked every time, so the log names each part that is down.
    healthy = all([_database_answers(), _broker_answers()])
    return JsonResponse({"status": "ok" if healthy else "down"}, status=200 if healthy else 503)
