"""DATABASES from the environment: SQLite by default, or DATABASE_URL; and, where a deployment asks for it,
two roles (docs/deployment.md, "Two database roles").

The console connects as DATABASE_URL's role, which cannot alter, disable or truncate the audit log;
MIGRATION_DATABASE_URL names the role that owns the tables, and only `DATABASE_ROLE=owner manage.py migrate`
connects as it (then grants the other what the console needs: audit/roles.py). With one URL, that role
does both.

Every PostgreSQL connection is bounded in time (`postgres_timeouts`): connecting, each statement, and the
link itself, so a database host that stops answering (a partition, a crashed host that never sends a reset)
is an error within seconds instead of a request or a task that hangs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from reviewconsole.env import env_choice, env_int, env_url


@dataclass(frozen=True)
class DatabaseConfig:
    databases: dict[str, Any]
    """Django's DATABASES."""
    role: str
    """"runtime" (the console) or "owner" (migrations only)."""
    runtime_role: str | None
    """The PostgreSQL role the console runs as, where two are configured."""


def database_config(var_dir: Path) -> DatabaseConfig:
    url = env_url("DATABASE_URL", schemes=("postgres", "postgresql", "sqlite"))
    owner_url = env_url("MIGRATION_DATABASE_URL", schemes=("postgres", "postgresql"))
    role = env_choice("DATABASE_ROLE", "runtime", choices=("runtime", "owner"))
    runtime_role: str | None = None
    if owner_url:
        runtime, owner = urlparse(url or ""), urlparse(owner_url)
        if runtime.scheme not in ("postgres", "postgresql"):
            raise ImproperlyConfigured(
                "MIGRATION_DATABASE_URL is set: DATABASE_URL must name the PostgreSQL role the console runs as"
            )
        if (runtime.hostname, runtime.port or 5432, runtime.path) != (owner.hostname, owner.port or 5432, owner.path):
            raise ImproperlyConfigured(
                "MIGRATION_DATABASE_URL must name the database DATABASE_URL names (host, port and name)"
            )
        if not runtime.username or runtime.username == owner.username:
            raise ImproperlyConfigured(
                "MIGRATION_DATABASE_URL must name another role than DATABASE_URL: the tables' owner"
            )
        runtime_role = unquote(runtime.username)
        if role == "owner":
            url = owner_url
    elif role == "owner":
        raise ImproperlyConfigured("DATABASE_ROLE=owner needs MIGRATION_DATABASE_URL, the role that owns the tables")
    if url:
        parsed = dj_database_url.parse(
            url, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0), conn_health_checks=True
        )
        if parsed["ENGINE"] == "django.db.backends.postgresql":
            parsed["OPTIONS"] = _with_timeouts(parsed.get("OPTIONS") or {}, postgres_timeouts())
        return DatabaseConfig({"default": parsed}, role, runtime_role)
    var_dir.mkdir(parents=True, exist_ok=True)
    sqlite = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(var_dir / "reviewconsole.sqlite3"),
        # Waits for a writer instead of failing at once: in-process tasks write while pages read.
        "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
    }
    return DatabaseConfig({"default": sqlite}, role, runtime_role)


def postgres_timeouts() -> dict[str, Any]:
    """libpq's connection options that bound every wait on PostgreSQL, from DB_*_TIMEOUT_SECONDS.

    A statement timeout alone does not do it: the server enforces it, and a server cut off by a partition
    cannot say it fired. So both ends also watch the link (TCP keepalives and a user timeout): the console
    notices a dead server, and the server a dead console (ending its session, so its locks are let go),
    within about DB_NETWORK_TIMEOUT_SECONDS.
    """
    connect = env_int("DB_CONNECT_TIMEOUT_SECONDS", 5, minimum=2, maximum=300)
    statement = env_int("DB_STATEMENT_TIMEOUT_SECONDS", 30, minimum=1, maximum=86_400)
    network = env_int("DB_NETWORK_TIMEOUT_SECONDS", 10, minimum=2, maximum=600)
    # Probing starts halfway; past the user timeout with a probe unanswered, the kernel drops the link.
    idle, interval, count = max(1, network // 2), max(1, network // 6), 3
    server = {
        "statement_timeout": f"{statement}s",
        "tcp_keepalives_idle": idle, "tcp_keepalives_interval": interval, "tcp_keepalives_count": count,
        "tcp_user_timeout": f"{network}s",
    }
    return {
        "connect_timeout": connect,
        "keepalives": 1, "keepalives_idle": idle, "keepalives_interval": interval, "keepalives_count": count,
        "tcp_user_timeout": network * 1000,
        "options": " ".join(f"-c {name}={value}" for name, value in server.items()),
    }


def _with_timeouts(options: dict[str, Any], timeouts: dict[str, Any]) -> dict[str, Any]:
    """The URL's own options (`?sslmode=...&options=...`) kept; server settings it names win over ours."""
    merged = {**timeouts, **{key: value for key, value in options.items() if key != "options"}}
    merged["options"] = f"{timeouts['options']} {options.get('options', '')}".strip()
    return merged
