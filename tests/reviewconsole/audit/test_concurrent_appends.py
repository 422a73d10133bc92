"""Many transactions append at once and commit in any order while the sealer runs: no writer waits for
another or for the sealer, nothing is skipped or sealed twice, and the log verifies (real PostgreSQL)."""

from __future__ import annotations

import random
import threading
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, connections, transaction

from reviewconsole.audit.models import AuditEvent, AuditTreeHead
from reviewconsole.audit.sealer import log_seal_pending
from reviewconsole.audit.services import audit_record

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def postgresql_only(settings):
    if connection.vendor != "postgresql":
        pytest.skip("concurrent transactions need PostgreSQL; set DATABASE_URL to a PostgreSQL database")
    settings.AUDIT_SEAL_ON_COMMIT = False  # the test runs the sealer itself


def _append(writer: str, n: int) -> AuditEvent:
    return audit_record(actor=writer, action="case.received", object_type="case", object_id=n, payload={"n": n})


def _verify() -> str:
    out = StringIO()
    call_command("audit_verify", stdout=out)
    return out.getvalue()


def test_a_transaction_that_commits_late_is_sealed_by_a_later_batch_and_nothing_is_skipped():
    appended, release = threading.Event(), threading.Event()
    late: dict[str, AuditEvent] = {}

    def slow_writer():
        try:
            with transaction.atomic():
                late["event"] = _append("worker:slow", 1)  # takes its id first ...
                appended.set()
                release.wait(30)  # ... and commits last
        finally:
            connections.close_all()

    thread = threading.Thread(target=slow_writer)
    thread.start()
    assert appended.wait(10)
    quick = _append("worker:quick", 2)
    (first,) = log_seal_pending()  # sees the quick event only: the slow one is not committed
    release.set()
    thread.join(30)
    (second,) = log_seal_pending()

    slow = AuditEvent.objects.get(pk=late["event"].pk)
    quick.refresh_from_db()
    assert slow.pk < quick.pk and (quick.seq, slow.seq) == (1, 2)
    assert (first.head.tree_size, second.head.tree_size) == (1, 2)
    assert "intact: 2 events in 2 signed tree heads" in _verify()


def test_many_writers_committing_out_of_order_while_the_sealer_runs_leave_a_whole_log():
    writers, transactions_each = 8, 12
    barrier = threading.Barrier(writers + 1)
    done = threading.Event()
    errors: list[BaseException] = []
    commit_seconds: list[float] = []

    def write(index: int) -> None:
        rng = random.Random(index)
        try:
            barrier.wait()
            for n in range(transactions_each):
                with transaction.atomic():
                    for k in range(rng.randint(1, 3)):
                        _append(f"worker:{index}", n * 10 + k)
                    time.sleep(rng.uniform(0, 0.02))  # held open a while: commits land out of id order
                    started = time.monotonic()
                commit_seconds.append(time.monotonic() - started)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connections.close_all()

    def seal_meanwhile() -> None:
        try:
            barrier.wait()
            while not done.is_set():
                log_seal_pending(wait=False)
                time.sleep(0.01)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    sealer = threading.Thread(target=seal_meanwhile)
    for thread in [*threads, sealer]:
        thread.start()
    for thread in threads:
        thread.join(120)
    done.set()
    sealer.join(30)
    log_seal_pending()  # what the next periodic run does

    assert errors == []
    appended = AuditEvent.objects.count()
    assert appended >= writers * transactions_each
    by_id = list(AuditEvent.objects.order_by("id").values_list("seq", flat=True))
    assert sorted(by_id) == list(range(1, appended + 1))  # every event sealed, once, without a gap
    assert AuditTreeHead.objects.count() > 1  # sealed in several batches while writers were at work
    assert AuditTreeHead.objects.order_by("-tree_size").first().tree_size == appended
    assert max(commit_seconds) < 2  # no commit waited on a lock
    assert f"intact: {appended} events" in _verify()
