"""Every connection the console opens gives up in bounded time: PostgreSQL, Redis and Celery's broker.

A host cut off by a partition answers nothing, and a client without a timeout then waits for ever (a web
request that never answers, a worker that never frees its slot). These tests fail when a connection
without one is added to the settings: a new database alias without the options, a setting that holds a
Redis URL no bounded client reads, a Redis client made outside `reviewconsole/redis_clients.py`, a broker
without socket timeouts. And they point the real clients at a server that accepts and never answers.
"""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from django.db import connection

from tests.reviewconsole.subprocesses import run_manage

ROOT = Path(__file__).resolve().parents[2]
DEPLOYMENT = {
    "SECRET_KEY": "s" * 50, "ALLOWED_HOSTS": "console.example",
    "DATABASE_URL": "postgres://app:pw@db.example:5432/reviewconsole",
    "MIGRATION_DATABASE_URL": "postgres://owner:pw@db.example:5432/reviewconsole",
    "REDIS_URL": "redis://redis.example:6379/0",
}
# Every setting that may hold a Redis URL, and what bounds the client that reads it.
REDIS_URL_SETTINGS = {
    "REDIS_URL": "read only through reviewconsole/redis_clients.py (checked below)",
    "CELERY_BROKER_URL": "CELERY_BROKER_TRANSPORT_OPTIONS",
    "CELERY_RESULT_BACKEND": "CELERY_REDIS_SOCKET_TIMEOUT, CELERY_REDIS_SOCKET_CONNECT_TIMEOUT",
}
# Ways to make a Redis or PostgreSQL client by hand, bypassing the bounded factories.
RAW_CLIENTS = re.compile(r"\bRedis\(|\bStrictRedis\b|\bfrom_url\(|\bConnectionPool\(|psycopg2?\.connect\(")

_SETTINGS_AS_JSON = """
import json
from django.conf import settings
names = [name for name in dir(settings) if name.isupper()]
print(json.dumps({name: getattr(settings, name) for name in names}, default=str))
"""


def _deployment_settings(tmp_path: Path, **extra: str) -> dict[str, Any]:
    result = run_manage(["shell", "-c", _SETTINGS_AS_JSON], {**DEPLOYMENT, **extra}, tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def test_every_database_connection_is_bounded_in_time(tmp_path):
    configured = _deployment_settings(tmp_path)
    owner = _deployment_settings(tmp_path, DATABASE_ROLE="owner")
    for databases in (configured["DATABASES"], owner["DATABASES"]):
        for alias, database in databases.items():
            options = database.get("OPTIONS", {})
            assert options.get("connect_timeout") == 5, alias
            assert options.get("keepalives") == 1 and options.get("tcp_user_timeout") == 10_000, alias
            server = options.get("options", "")
            for setting in ("statement_timeout=30s", "tcp_user_timeout=10s", "tcp_keepalives_idle=5"):
                assert f"-c {setting}" in server, (alias, server)


def test_the_database_url_keeps_its_own_options_beside_the_timeouts(tmp_path):
    url = DEPLOYMENT["DATABASE_URL"] + "?sslmode=require&options=-c%20search_path%3Dconsole"
    options = _deployment_settings(tmp_path, DATABASE_URL=url, MIGRATION_DATABASE_URL="",
                                   DB_STATEMENT_TIMEOUT_SECONDS="7")["DATABASES"]["default"]["OPTIONS"]
    assert options["sslmode"] == "require"
    assert options["options"].startswith("-c statement_timeout=7s ")
    assert options["options"].endswith(" -c search_path=console")


def test_every_redis_url_in_the_settings_is_read_by_a_bounded_client(tmp_path):
    configured = _deployment_settings(tmp_path)
    holding_redis = {
        name for name, value in configured.items()
        if any(text.startswith(("redis://", "rediss://")) for text in _strings(value))
    }
    assert holding_redis <= set(REDIS_URL_SETTINGS), (
        f"{sorted(holding_redis - set(REDIS_URL_SETTINGS))} hold a Redis URL: bound the client that reads it "
        "and list it here"
    )
    transport = configured["CELERY_BROKER_TRANSPORT_OPTIONS"]
    assert transport["socket_connect_timeout"] == 2.0 and transport["socket_timeout"] == 5.0
    assert transport["socket_keepalive"] is True and transport["health_check_interval"] == 10
    # Publishing gives up connecting after this long in all (kombu's retries included).
    assert configured["CELERY_BROKER_CONNECTION_TIMEOUT"] == 2.0
    assert configured["CELERY_BROKER_CONNECTION_MAX_RETRIES"] == 100
    assert configured["CELERY_RESULT_BACKEND"] is None
    assert configured["CELERY_REDIS_SOCKET_TIMEOUT"] == 5.0
    assert configured["CELERY_REDIS_SOCKET_CONNECT_TIMEOUT"] == 2.0
    caches = configured["CACHES"]
    assert all("redis" not in str(cache.get("BACKEND", "")).lower() for cache in caches.values()), caches


def test_redis_and_database_clients_are_made_only_by_the_bounded_factories():
    allowed = {ROOT / "reviewconsole" / "redis_clients.py"}
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "reviewconsole").rglob("*.py")) if path not in allowed
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if RAW_CLIENTS.search(line)
    ]
    assert found == []


@pytest.mark.django_db
def test_the_server_applies_the_statement_and_link_timeouts():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (make test runs on it)")
    with connection.cursor() as cursor:
        shown = {}
        for setting in ("statement_timeout", "tcp_user_timeout", "tcp_keepalives_idle", "tcp_keepalives_count"):
            cursor.execute(f"SHOW {setting}")
            shown[setting] = cursor.fetchone()[0]
    # Over a Unix socket the server reports 0 for the TCP settings it cannot apply; the suite uses TCP.
    assert shown == {"statement_timeout": "30s", "tcp_user_timeout": "10000", "tcp_keepalives_idle": "5",
                     "tcp_keepalives_count": "3"}


_ASK_A_SILENT_SERVER = """
import json, time
from django.db import connection
from reviewconsole.celery import app
from reviewconsole.outbox import broker
from reviewconsole.redis_clients import new_client, shared_client
from django.conf import settings

def timed(call):
    started = time.monotonic()
    try:
        call()
        outcome = "answered"
    except Exception as error:
        outcome = type(error).__name__
    return [outcome, round(time.monotonic() - started, 2)]

print(json.dumps({
    "database": timed(connection.ensure_connection),
    "shared redis client": timed(lambda: shared_client(settings.REDIS_URL).ping()),
    "new redis client": timed(lambda: new_client(settings.REDIS_URL).ping()),
    "broker probe": timed(lambda: broker.broker_instance(app, fresh=True) or 1 / 0),
    "task publish": timed(lambda: app.send_task("outbox.relay", retry=False)),
}))
"""


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP port that accepts connections (the kernel's backlog) and never answers a byte."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        yield server.getsockname()[1]


def test_a_server_that_never_answers_is_an_error_within_the_configured_seconds(tmp_path, silent_server):
    environment = {
        **DEPLOYMENT, "MIGRATION_DATABASE_URL": "",
        "DATABASE_URL": f"postgres://app:pw@127.0.0.1:{silent_server}/reviewconsole",
        "REDIS_URL": f"redis://127.0.0.1:{silent_server}/0",
        "DB_CONNECT_TIMEOUT_SECONDS": "2", "REDIS_SOCKET_TIMEOUT_SECONDS": "2", "REDIS_CONNECT_TIMEOUT_SECONDS": "1",
    }
    result = run_manage(["shell", "-c", _ASK_A_SILENT_SERVER], environment, tmp_path)
    assert result.returncode == 0, result.stderr
    outcomes = json.loads(result.stdout.strip().splitlines()[-1])
    assert {name: outcome for name, (outcome, _) in outcomes.items()} == {
        "database": "OperationalError", "shared redis client": "TimeoutError", "new redis client": "TimeoutError",
        "broker probe": "ZeroDivisionError", "task publish": "OperationalError",
    }
    # Each within its timeout (plus a second for a loaded machine): none waits on the silent server.
    limits = {"database": 2, "shared redis client": 2, "new redis client": 2, "broker probe": 1, "task publish": 3}
    assert {name: seconds for name, (_, seconds) in outcomes.items() if seconds > limits[name] + 1} == {}


def test_a_statement_past_its_timeout_is_cancelled_by_the_server(tmp_path):
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip("PostgreSQL only (make test runs on it)")
    sleep = (
        "import time\nfrom django.db import connection\nstarted = time.monotonic()\n"
        "try:\n    connection.cursor().execute('SELECT pg_sleep(20)')\n"
        "except Exception as error:\n    print(type(error).__name__, round(time.monotonic() - started))\n"
    )
    # The server's own maintenance database: the test database exists only inside this test process.
    server = urlparse(url)._replace(path="/postgres").geturl()
    result = run_manage(["shell", "-c", sleep], {**DEPLOYMENT, "MIGRATION_DATABASE_URL": "", "DATABASE_URL": server,
                                                 "DB_STATEMENT_TIMEOUT_SECONDS": "1"}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1].split() == ["OperationalError", "1"]
