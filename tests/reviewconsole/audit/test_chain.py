"""The chain: append-only, tamper-evident, never forked by concurrent writers."""

from __future__ import annotations

import threading

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from reviewconsole.audit.actions import ENGINE, AuditAction
from reviewconsole.audit.chain import GENESIS_HASH, event_hash
from reviewconsole.audit.models import AuditEvent
from reviewconsole.audit.services import audit_record

postgresql_only = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="the trigger and the advisory lock are PostgreSQL features"
)


def _record(n: int) -> list[AuditEvent]:
    return [
        audit_record(actor=ENGINE, action=AuditAction.CASE_RECEIVED, object_type="case", object_id=i, payload={"i": i})
        for i in range(n)
    ]


def _verify() -> str:
    from io import StringIO

    out = StringIO()
    call_command("audit_verify", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_events_link_to_the_previous_hash(reviewer):
    first, second = _record(1)[0], audit_record(
        actor=reviewer, action="note.added", object_type="case_note", object_id=7, payload={"chars": 3}
    )
    assert (first.seq, first.prev_hash) == (1, GENESIS_HASH)
    assert (second.seq, second.prev_hash, second.actor) == (2, first.hash, f"user:{reviewer.username}")
    stored = AuditEvent.objects.get(pk=second.pk)
    fields = {f: getattr(stored, f) for f in ("seq", "created_at", "actor", "action", "object_type", "object_id")}
    assert event_hash(**fields, case_id=None, payload=stored.payload, prev_hash=stored.prev_hash) == stored.hash
    assert "intact: 2 events" in _verify()


@pytest.mark.django_db
def test_payloads_hash_the_same_after_a_round_trip_through_the_database():
    from datetime import date

    event = audit_record(actor=ENGINE, action="case.received", object_type="case", object_id=1,
                         payload={"big": 1e20, "share": 0.1, "tiny": 1e-7, "day": date(2026, 1, 2), "ids": (1, 2),
                                  "é": "ü"})
    assert event.payload == {"big": 10**20, "share": 0.1, "tiny": 1e-7, "day": "2026-01-02", "ids": [1, 2], "é": "ü"}
    assert "intact: 1 events" in _verify()


@pytest.mark.django_db
def test_action_names_are_checked():
    with pytest.raises(ValueError, match="object.verb"):
        audit_record(actor=ENGINE, action="Approved", object_type="case", object_id=1, payload={})


@pytest.mark.django_db
def test_the_model_refuses_changes():
    event = _record(1)[0]
    with pytest.raises(TypeError):
        event.save()
    with pytest.raises(TypeError):
        AuditEvent.objects.filter(pk=event.pk).update(actor="x")
    with pytest.raises(TypeError):
        AuditEvent.objects.all().delete()


@postgresql_only
@pytest.mark.django_db
@pytest.mark.parametrize(
    "sql", ["UPDATE audit_auditevent SET actor = 'someone else'", "DELETE FROM audit_auditevent"]
)
def test_the_trigger_refuses_update_and_delete(sql):
    _record(2)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)
    assert AuditEvent.objects.filter(actor=ENGINE).count() == 2


def _tamper(sql: str, params: list) -> None:
    """Change stored rows as a superuser would: with triggers off for this session only."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)


@pytest.mark.django_db
def test_audit_verify_names_a_tampered_payload():
    events = _record(5)
    _tamper("UPDATE audit_auditevent SET payload = %s WHERE id = %s", ['{"i": 99}', events[2].pk])
    with pytest.raises(CommandError) as error:
        _verify()
    message = str(error.value)
    assert f"event id={events[2].pk} (seq 3)" in message
    assert f"stored {events[2].hash}" in message
    assert "expected " in message and "hash expected" in message


@pytest.mark.django_db
def test_audit_verify_names_a_deleted_event():
    events = _record(4)
    _tamper("DELETE FROM audit_auditevent WHERE id = %s", [events[1].pk])
    with pytest.raises(CommandError, match=f"event id={events[2].pk} .*sequence gap"):
        _verify()


@pytest.mark.django_db
def test_audit_verify_names_a_rehashed_event_by_its_successor():
    # Someone who recomputes the hash of the row they changed breaks the next row's link instead.
    events = _record(3)
    forged = {**{f: getattr(events[1], f) for f in ("seq", "created_at", "object_type", "object_id")}}
    new_hash = event_hash(**forged, actor="user:mallory", action=events[1].action, case_id=None,
                          payload=events[1].payload, prev_hash=events[1].prev_hash)
    _tamper("UPDATE audit_auditevent SET actor = 'user:mallory', hash = %s WHERE id = %s", [new_hash, events[1].pk])
    with pytest.raises(CommandError, match=f"event id={events[2].pk} .*prev_hash expected {new_hash}"):
        _verify()


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_do_not_fork_the_chain():
    writers, per_writer = 8, 15
    barrier = threading.Barrier(writers)
    errors: list[BaseException] = []

    def write(index: int) -> None:
        try:
            barrier.wait()
            for n in range(per_writer):
                with transaction.atomic():
                    audit_record(actor=f"worker:{index}", action="case.received", object_type="case",
                                 object_id=n, payload={})
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    seqs = list(AuditEvent.objects.values_list("seq", flat=True))
    assert seqs == list(range(1, writers * per_writer + 1))
    assert AuditEvent.objects.values("prev_hash").distinct().count() == writers * per_writer
    assert "intact" in _verify()
