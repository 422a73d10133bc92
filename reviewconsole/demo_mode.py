"""What DEMO=1 may run beside: the local demo console, never a deployment's settings.

DEMO=1 lets the console start without a secret key or host names, sends cookies over plain HTTP, lets
webhooks reach this machine (loopback) and allows `manage.py demo`, which makes accounts with printed
passwords. So it refuses, at start-up, the settings
that only a deployment has: a PostgreSQL database, host names other than this machine's, a Celery broker.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.core.exceptions import ImproperlyConfigured

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
LOOPBACK_NETWORKS = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
"""Where the demo console's webhooks may also go: a receiver on the same machine, to try webhooks locally."""


def demo_settings_check(*, database: dict[str, Any], allowed_hosts: list[str], redis_url: str | None) -> None:
    """Raise ImproperlyConfigured, one line naming each variable that belongs to a deployment."""
    found = []
    if database["ENGINE"] != "django.db.backends.sqlite3":
        found.append("DATABASE_URL (PostgreSQL)")
    others = [host for host in allowed_hosts if host.lower() not in LOCAL_HOSTS]
    if others:
        found.append(f"ALLOWED_HOSTS ({', '.join(others)})")
    if redis_url:
        found.append("REDIS_URL")
    if found:
        raise ImproperlyConfigured(
            f"DEMO=1 is for the local demo console, and these are a deployment's settings: {'; '.join(found)}. "
            "Unset DEMO to run with them"
        )
