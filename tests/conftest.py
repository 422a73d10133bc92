"""Suite-wide setup: the built-in policies in transactional tests; no DNS query leaves the machine; the database
and broker in the report header."""

from __future__ import annotations

import ipaddress
import os
import socket
from urllib.parse import urlparse

import pytest
from django.apps import apps
from django.utils import timezone

from reviewconsole.intake import webhook_destinations
from reviewconsole.policy.builtins import builtins_install

# tests.chromium: one browser for the whole run, the browser tests' and the client's live tests'.
pytest_plugins = ["tests.personas", "tests.chromium"]


@pytest.fixture(autouse=True)
def _builtin_policies(request) -> None:
    """A transactional test's teardown empties every table, the built-in constitutions and rubric a
    migration wrote included: the next one gets them back, as a new console has them."""
    marker = request.node.get_closest_marker("django_db")
    transactional = marker is not None and bool(marker.kwargs.get("transaction") or marker.args[:1] == (True,))
    if not (transactional or {"transactional_db", "live_server"} & set(request.fixturenames)):
        return
    request.getfixturevalue("transactional_db")
    builtins_install(apps, now=timezone.now())


@pytest.fixture(autouse=True)
def _no_outside_dns(monkeypatch) -> None:
    """A webhook URL is resolved when it is saved and when it is sent: the suite's names (client.example
    and the like) would each cost a query to the machine's name server, slow or absent in CI. Only address
    literals and localhost (/etc/hosts) reach the system resolver; other names do not resolve, as
    client.example would not. Tests that need a name to resolve give it their own resolver (the `dns`
    fixture of the webhook tests)."""
    system = socket.getaddrinfo

    def local_only(host, *args, **kwargs):
        try:
            ipaddress.ip_address(str(host).strip("[]"))
        except ValueError:
            if str(host).lower().rstrip(".") not in {"localhost", "localhost.localdomain"}:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
        return system(host, *args, **kwargs)

    monkeypatch.setattr(webhook_destinations, "getaddrinfo", local_only)


def pytest_report_header(config) -> list[str]:
    database = os.environ.get("DATABASE_URL")
    parsed = urlparse(database) if database else None
    where = f"{parsed.scheme} at {parsed.hostname}:{parsed.port or ''}{parsed.path}" if parsed else "sqlite (embedded)"
    broker = os.environ.get("TEST_REDIS_URL") or "none: worker tests skipped"
    return [f"database: {where}", f"redis for worker tests: {broker}"]
