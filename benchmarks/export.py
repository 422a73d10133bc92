"""Audit exports at scale: 1,000,000 sealed audit events in PostgreSQL, streamed as CSV and JSONL.

Seeds a fresh database with a sealed log (rows loaded with COPY, then sealed into signed tree heads by
the console's sealer), then has a separate process export ranges of several sizes through the real
export view (Django's test client, in process, reading the streamed response) and report rows per
second and its peak memory (RSS). Each export runs in its own process, so each peak is that export's
alone. Exits non-zero unless every export reaches the rows-per-second target and stays under the
memory ceiling, whatever the size of its range.

    .venv/bin/python benchmarks/export.py [--events 1000000]

Needs PostgreSQL on 127.0.0.1 (as `make test` does); drops and recreates its own database (BENCH_DATABASE
chooses another).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from datetime import datetime

from benchstack import REPO, SEED_START, configure_django, reset_database, seed_sealed_events, seeded_until

DATABASE = os.environ.get("BENCH_DATABASE", "reviewconsole_export_bench")
MIN_ROWS_PER_SECOND = 50_000
MAX_PEAK_RSS_MB = 200


def _export_in_this_process(export_format: str, since: str, until: str) -> dict[str, float]:
    """Run one export through the view and read the whole streamed body, as a browser would."""
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from reviewconsole.accounts.roles import Role

    lead, created = User.objects.get_or_create(username="bench-lead")
    if created:
        lead.groups.add(Group.objects.get_or_create(name=Role.SUPPORT_LEAD.value)[0])
    http = Client()
    http.force_login(lead)
    # Warm up imports and the connection on another page, so the timing is the export's alone.
    assert http.get("/audit/exports/").status_code == 200
    started = time.perf_counter()
    response = http.post("/audit/exports/new", {"format": export_format, "since": since, "until": until})
    assert response.status_code == 200, response.status_code
    lines = size = 0
    for chunk in response.streaming_content:
        lines += chunk.count(b"\n")
        size += len(chunk)
    seconds = time.perf_counter() - started
    rows = lines - (1 if export_format == "csv" else 0)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"rows": rows, "seconds": seconds, "rows_per_second": rows / seconds, "peak_rss_mb": peak_mb,
            "megabytes": size / 1e6}


def _export_in_child(export_format: str, since: datetime, until: datetime) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, __file__, "--child", export_format, since.isoformat(), until.isoformat()],
        cwd=REPO, check=True, capture_output=True, text=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--child", nargs=3, metavar=("FORMAT", "SINCE", "UNTIL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    # Every range streams straight to the client here: the export task writes the same chunks to a file.
    configure_django(DATABASE, AUDIT_EXPORT_STREAM_MAX_ROWS="100000000")
    if args.child:
        print(json.dumps(_export_in_this_process(*args.child)))
        return 0

    reset_database(DATABASE)
    import django

    django.setup()
    started = time.perf_counter()
    seed_sealed_events(args.events)
    print(f"seeded and sealed {args.events:,} events in {time.perf_counter() - started:.1f} s")

    end = seeded_until(args.events)
    ranges = [(args.events // 10, SEED_START + (end - SEED_START) * 0.45), (args.events, SEED_START)]
    failed = False
    print(f"{'format':<6} {'rows':>10} {'seconds':>8} {'rows/s':>10} {'peak RSS':>10} {'size':>10}")
    for rows, since in ranges:
        until = since + (end - SEED_START) * rows / args.events if rows < args.events else end
        for export_format in ("csv", "jsonl"):
            figures = _export_in_child(export_format, since, until)
            ok = figures["rows_per_second"] >= MIN_ROWS_PER_SECOND and figures["peak_rss_mb"] < MAX_PEAK_RSS_MB
            failed |= not ok
            print(f"{export_format:<6} {figures['rows']:>10,} {figures['seconds']:>8.1f} "
                  f"{figures['rows_per_second']:>10,.0f} {figures['peak_rss_mb']:>7.0f} MB "
                  f"{figures['megabytes']:>7.0f} MB{'' if ok else '  MISSED TARGET'}")
    print(f"targets: >= {MIN_ROWS_PER_SECOND:,} rows/s and peak RSS < {MAX_PEAK_RSS_MB} MB for every range")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
