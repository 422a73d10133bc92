"""Suite-wide setup: say in the report header which database and broker the run uses."""

from __future__ import annotations

import os
from urllib.parse import urlparse

pytest_plugins = ["tests.personas"]


def pytest_report_header(config) -> list[str]:
    database = os.environ.get("DATABASE_URL")
    parsed = urlparse(database) if database else None
    where = f"{parsed.scheme} at {parsed.hostname}:{parsed.port or ''}{parsed.path}" if parsed else "sqlite (embedded)"
    broker = os.environ.get("TEST_REDIS_URL") or "none: worker tests skipped"
    return [f"database: {where}", f"redis for worker tests: {broker}"]
