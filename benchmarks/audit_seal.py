"""The audit log without a global lock: append rate against the old locked append, and whether the sealer
keeps up. Real PostgreSQL, one process per writer, all in one run:

1. locked: N writers append as the hash chain did, each in its own transaction holding one advisory lock
   from the read of the chain's head to the commit (emulated: the lock and the head read around today's
   insert);
2. free: the same N writers append as the console now does (one INSERT, no lock);
   in both, each transaction goes on for --hold-ms after the append, as a decision's or a finished case's
   does (the old lock was held through it: the issue measured 2.2 ms from lock to commit). The two
   alternate for --rounds rounds (locked first, then free first, ...), so a machine that gets busier or
   quieter during the run does not favour either;
3. sealer throughput: the backlog left by 1 and 2 sealed at once (`log_seal_pending`), events a second;
4. keeping up: the free writers again, while a sealer runs every AUDIT_SEAL_SECONDS as celery beat would;
   for each event, the time from its commit to the signed head that covers it.

Exits non-zero unless appends scale past the locked path (free at least --min-speedup times the locked
rate), the sealer seals faster than the writers append, every event of step 4 is sealed within
--max-seal-seconds of its commit, and `audit_verify` passes at the end.

    .venv/bin/python benchmarks/audit_seal.py [--writers 8] [--seconds 4] [--rounds 3] [--hold-ms 1]

Needs PostgreSQL on 127.0.0.1 (as `make test` does); drops and recreates its own database (BENCH_DATABASE
chooses another).
"""

from __future__ import annotations

import argparse
import bisect
import multiprocessing
import os
import statistics
import sys
import time
from io import StringIO

from benchstack import configure_django, reset_database

DATABASE = os.environ.get("BENCH_DATABASE", "reviewconsole_audit_bench")
SEAL_SECONDS = 2.0
# The old chain's lock key ("audit" in ASCII), as the locked append took it.
OLD_CHAIN_LOCK_KEY = 0x6175646974
ENVIRONMENT = {"AUDIT_SEAL_SECONDS": str(SEAL_SECONDS), "AUDIT_SEAL_ON_COMMIT": "0"}


def _setup() -> None:
    import django

    configure_django(DATABASE, **ENVIRONMENT)
    django.setup()


def _writer(index: int, locked: bool, seconds: float, hold: float, start, commits) -> None:
    """Append for `seconds` once every process is ready (`start`, a barrier); put (event id, commit time)
    of each append on `commits`."""
    _setup()
    from django.db import connection, transaction

    from reviewconsole.audit.services import audit_record

    payload = {"claims": {f"k{n}": "SUPPORTED" for n in range(4)}, "reason": "UNSUPPORTED_CLAIM", "writer": index}
    connection.ensure_connection()
    start.wait()
    deadline = time.monotonic() + seconds
    done = 0
    committed: list[tuple[int, float]] = []
    while time.monotonic() < deadline:
        with transaction.atomic():
            if locked:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_xact_lock(%s)", [OLD_CHAIN_LOCK_KEY])
                    cursor.execute("SELECT id, leaf_hash FROM audit_auditevent ORDER BY id DESC LIMIT 1")
                    cursor.fetchone()
            event = audit_record(actor=f"user:writer{index}", action="decision.approved", object_type="decision",
                                 object_id=done, case=done % 1000 + 1, payload=payload)
            if hold:
                time.sleep(hold)
        committed.append((event.pk, time.time()))
        done += 1
    commits.put(committed)
    connection.close()


def _sealer(start, stop, period: float) -> None:
    """Celery beat's `audit.seal`, in short: seal every `period` seconds until `stop` is set, then once more."""
    _setup()
    from reviewconsole.audit.sealer import log_seal_pending

    start.wait()
    while not stop.wait(period):
        log_seal_pending(wait=False)
    log_seal_pending(wait=True)


def _append_rate(*, locked: bool, writers: int, seconds: float, hold: float, sealer_period: float | None = None):
    """Appends a second from `writers` processes, and (event id, commit time) of every append."""
    context = multiprocessing.get_context("spawn")
    parties = writers + 1 + (sealer_period is not None)
    start, stop = context.Barrier(parties), context.Event()
    commits = context.Queue()
    processes = [context.Process(target=_writer, args=(i, locked, seconds, hold, start, commits))
                 for i in range(writers)]
    if sealer_period is not None:
        processes.append(context.Process(target=_sealer, args=(start, stop, sealer_period)))
    for process in processes:
        process.start()
    start.wait()  # every process set up and connected before the clock starts
    appended: list[tuple[int, float]] = []
    for _ in range(writers):
        appended.extend(commits.get())  # each writer's list arrives once its time is up
    elapsed = seconds
    for process in processes[:writers]:
        process.join()
    stop.set()
    for process in processes[writers:]:
        process.join()
    if any(process.exitcode for process in processes):
        sys.exit("a writer or the sealer failed")
    return len(appended) / elapsed, appended


def _seal_latencies(appended: list[tuple[int, float]]) -> list[float]:
    """Seconds from each event's commit to the sealing of the first head that covers it."""
    from reviewconsole.audit.models import AuditEvent, AuditTreeHead

    heads = list(AuditTreeHead.objects.order_by("tree_size").values_list("tree_size", "sealed_at"))
    sizes = [size for size, _ in heads]
    seqs = dict(AuditEvent.objects.filter(pk__in=[pk for pk, _ in appended]).values_list("id", "seq"))
    latencies = []
    for pk, committed_at in appended:
        covering = bisect.bisect_left(sizes, seqs[pk]) if seqs[pk] is not None else len(heads)
        latencies.append(heads[covering][1].timestamp() - committed_at if covering < len(heads) else float("inf"))
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each append phase")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of locked and free phases")
    parser.add_argument("--hold-ms", type=float, default=1.0, help="work after the append in each transaction")
    parser.add_argument("--min-speedup", type=float, default=1.5)
    parser.add_argument("--max-seal-seconds", type=float, default=3 * SEAL_SECONDS)
    options = parser.parse_args()
    hold = options.hold_ms / 1000

    print(f"database {DATABASE}: recreating and migrating", flush=True)
    reset_database(DATABASE, **ENVIRONMENT)
    _setup()
    from django.core.management import call_command

    from reviewconsole.audit.models import AuditEvent
    from reviewconsole.audit.sealer import log_seal_pending

    failures: list[str] = []
    print(f"{options.writers} writers, {options.rounds} rounds of {options.seconds:g} s phases, "
          f"{options.hold_ms:g} ms of work after each append")
    appends: dict[bool, int] = {True: 0, False: 0}
    for round_number in range(options.rounds):
        for locked in (True, False) if round_number % 2 == 0 else (False, True):
            rate, appended = _append_rate(locked=locked, writers=options.writers, seconds=options.seconds, hold=hold)
            appends[locked] += len(appended)
            print(f"    round {round_number + 1}, {'locked' if locked else 'free'}: {rate:6.0f} appends/s", flush=True)
    locked_rate, free_rate = (appends[mode] / (options.rounds * options.seconds) for mode in (True, False))
    speedup = free_rate / locked_rate
    print(f"  locked append (the old hash chain): {locked_rate:8.0f} appends/s ({appends[True]} events)")
    print(f"  free append (no lock):              {free_rate:8.0f} appends/s ({appends[False]} events), "
          f"{speedup:.1f}x the locked rate", flush=True)
    if speedup < options.min_speedup:
        failures.append(f"free appends are {speedup:.2f}x the locked rate, below {options.min_speedup}x")

    backlog = AuditEvent.objects.filter(seq__isnull=True).count()
    began = time.monotonic()
    batches = log_seal_pending(budget_seconds=float("inf"))
    sealing = time.monotonic() - began
    seal_rate = sum(batch.events for batch in batches) / sealing
    print(f"  sealer: {backlog} events in {len(batches)} batches in {sealing:.2f} s = {seal_rate:8.0f} events/s",
          flush=True)
    if seal_rate <= free_rate:
        failures.append(f"the sealer seals {seal_rate:.0f} events/s, no faster than writers append ({free_rate:.0f})")

    live_rate, live = _append_rate(locked=False, writers=options.writers, seconds=options.seconds, hold=hold,
                                   sealer_period=SEAL_SECONDS)
    latencies = sorted(_seal_latencies(live))
    p50, p95 = statistics.median(latencies), latencies[int(0.95 * (len(latencies) - 1))]
    print(f"  free append with the sealer every {SEAL_SECONDS:g} s: {live_rate:8.0f} appends/s ({len(live)} events);"
          f" commit to signed head: p50 {p50:.2f} s, p95 {p95:.2f} s, max {latencies[-1]:.2f} s", flush=True)
    if latencies[-1] > options.max_seal_seconds:
        failures.append(f"an event waited {latencies[-1]:.2f} s to be sealed (at most {options.max_seal_seconds:g})")

    out = StringIO()
    began = time.monotonic()
    call_command("audit_verify", "--max-unsealed-age", "3600", stdout=out)
    checked = AuditEvent.objects.count() / (time.monotonic() - began)
    print(f"  {out.getvalue().strip()}\n  audit_verify checked {checked:.0f} events/s")
    if failures:
        sys.exit("FAILED: " + "; ".join(failures))
    print("OK")


if __name__ == "__main__":
    main()
