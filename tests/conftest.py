"""Suite-wide setup: the built-in policies in transactional tests; the database and broker in the report header."""

from __future__ import annotations

import os
from urllib.parse import urlparse

import pytest
from django.apps import apps
from django.utils import timezone

from reviewconsole.policy.builtins import builtins_install

pytest_plugins = ["tests.personas"]


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


def pytest_report_header(config) -> list[str]:
    database = os.environ.get("DATABASE_URL")
    parsed = urlparse(database) if database else None
    where = f"{parsed.scheme} at {parsed.hostname}:{parsed.port or ''}{parsed.path}" if parsed else "sqlite (embedded)"
    broker = os.environ.get("TEST_REDIS_URL") or "none: worker tests skipped"
    return [f"database: {where}", f"redis for worker tests: {broker}"]
