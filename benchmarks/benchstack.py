"""What the benchmarks share: a fresh PostgreSQL database of their own and the settings to reach it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def bench_environment(database: str, **extra: str) -> dict[str, str]:
    """Production-like settings pointing at `database`; `extra` adds or overrides variables."""
    var_dir = f"/tmp/reviewconsole-{database}"
    Path(var_dir, "static").mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "reviewconsole.settings",
        "DATABASE_URL": f"{ADMIN_URL.rsplit('/', 1)[0]}/{database}",
        "SECRET_KEY": "benchmark-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "LOG_LEVEL": "WARNING",
        "VAR_DIR": var_dir,
        "STATIC_ROOT": f"{var_dir}/static",
        **extra,
    }


def configure_django(database: str, **extra: str) -> None:
    """Point this process's Django at `database` (call before django.setup())."""
    os.environ.update(bench_environment(database, **extra))
    sys.path.insert(0, str(REPO))


def reset_database(database: str, **extra: str) -> None:
    """Drop and create `database`, then migrate it."""
    subprocess.run(
        ["psql", ADMIN_URL, "-q", "-c", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)", "-c",
         f"CREATE DATABASE {database}"],
        check=True, capture_output=True,
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=REPO, env=bench_environment(database, **extra), check=True, capture_output=True,
    )
