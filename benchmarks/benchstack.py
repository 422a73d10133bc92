"""What the benchmarks share: a fresh PostgreSQL database of their own and the settings to reach it."""

from __future__ import annotations

import os
import re
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


# --- Measuring a running stack ---------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
QUERIES_HEADER = "X-Bench-Queries"


def counting_application():
    """The console's WSGI application, each answer carrying the number of SQL statements its request ran.

    For the benchmark's own server only (`gunicorn 'benchstack:counting_application()'`): the count is
    every statement that went through Django's cursor (savepoints included; BEGIN and COMMIT are not
    statements Django sends), the same count `CaptureQueriesContext` gives a test.
    """
    from django.db import connection

    from reviewconsole.wsgi import application

    def counted(environ, start_response):
        statements = 0

        def count(execute, sql, params, many, context):
            nonlocal statements
            statements += 1
            return execute(sql, params, many, context)

        def start(status, headers, exc_info=None):
            # Django answers once the view has returned, after its transaction committed.
            return start_response(status, [*headers, (QUERIES_HEADER, str(statements))], exc_info)

        with connection.execute_wrapper(count):
            return application(environ, start)

    return counted


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time `pid` has used so far, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # After the command name: state is field 3, utime and stime are fields 14 and 15 (proc(5)).
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def child_pids(parent: int) -> list[int]:
    """The processes whose parent is `parent` (gunicorn's workers, for its master)."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            children.append(int(entry.name))
    return sorted(children)


def database_backends(database: str) -> list[int]:
    """The PostgreSQL server processes serving client connections to `database` right now."""
    if not re.fullmatch(r"\w+", database):
        raise ValueError(f"not a plain database name: {database!r}")
    query = (
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' "
        f"AND datname = '{database}' AND pid <> pg_backend_pid()"
    )
    result = subprocess.run(["psql", ADMIN_URL, "-At", "-c", query], check=True, capture_output=True, text=True)
    return sorted(int(line) for line in result.stdout.split())


class CpuMeter:
    """CPU seconds a set of long-lived processes used between `start()` and `stop()`.

    The processes are found by `find` at both ends: one that appeared in between is counted whole, one
    that ended in between is lost (its time cannot be read any more) and is reported in `lost`.
    """

    def __init__(self, find):
        self._find = find
        self._before: dict[int, float] = {}
        self.seconds = 0.0
        self.pids: list[int] = []
        self.lost: list[int] = []

    def start(self) -> None:
        self._before = self._read(self._find())

    def stop(self) -> float:
        after = self._read(set(self._find()) | set(self._before))
        self.pids = sorted(after)
        self.lost = sorted(set(self._before) - set(after))
        self.seconds = sum(used - self._before.get(pid, 0.0) for pid, used in after.items())
        return self.seconds

    @staticmethod
    def _read(pids) -> dict[int, float]:
        used = {pid: process_cpu_seconds(pid) for pid in pids}
        return {pid: seconds for pid, seconds in used.items() if seconds is not None}
