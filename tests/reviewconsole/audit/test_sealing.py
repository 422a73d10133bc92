"""Appending and sealing: an event is appended without a position, the sealer gives positions in batches
and signs a tree head per batch, and only that one write gets past the append-only guards."""

from __future__ import annotations

import base64
import json
from datetime import date
from io import StringIO

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from reviewconsole.audit.actions import ENGINE, AuditAction
from reviewconsole.audit.heads import head_statement
from reviewconsole.audit.leaves import leaf_hash
from reviewconsole.audit.merkle import root_of
from reviewconsole.audit.models import AuditEvent, AuditTreeHead
from reviewconsole.audit.sealer import SealerError, log_seal, log_seal_pending
from reviewconsole.audit.services import audit_record
from reviewconsole.audit.tasks import seal
from reviewconsole.queues import TaskQueue

postgresql_only = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the trigger is PostgreSQL's")


def _record(n: int, start: int = 0) -> list[AuditEvent]:
    return [
        audit_record(actor=ENGINE, action=AuditAction.CASE_RECEIVED, object_type="case", object_id=i, payload={"i": i})
        for i in range(start, start + n)
    ]


def _command(name: str, *args: str) -> str:
    out = StringIO()
    call_command(name, *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_an_append_stores_its_content_and_leaf_hash_and_no_position(reviewer):
    event = audit_record(actor=reviewer, action="note.added", object_type="case_note", object_id=7,
                         payload={"chars": 3})

    stored = AuditEvent.objects.get(pk=event.pk)
    assert stored.seq is None and stored.actor == f"user:{reviewer.username}" and stored.object_id == "7"
    content = {name: getattr(stored, name) for name in ("created_at", "actor", "action", "object_type", "object_id")}
    assert leaf_hash(**content, case_id=None, payload={"chars": 3}) == stored.leaf_hash
    assert AuditTreeHead.objects.count() == 0


@pytest.mark.django_db
def test_the_sealer_gives_positions_in_append_order_and_signs_the_head():
    events = _record(5)

    assert "sealed 5 events in 1 batch: tree head 5" in _command("audit_seal")

    sealed = list(AuditEvent.objects.order_by("id"))
    assert [event.seq for event in sealed] == [1, 2, 3, 4, 5] and [e.pk for e in sealed] == [e.pk for e in events]
    head = AuditTreeHead.objects.get()
    assert head.root_hash == root_of(bytes.fromhex(event.leaf_hash) for event in sealed).hex()
    # An auditor checks the head with the public key alone, as `audit_heads` prints them.
    key = json.loads(_command("audit_heads", "--public-key"))
    (line,) = _command("audit_heads").splitlines()
    printed = json.loads(line)
    assert printed["tree_size"] == 5 and printed["root_hash"] == head.root_hash and printed["key_id"] == key["key_id"]
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key["public_key"]))
    public.verify(base64.b64decode(printed["signature"]), head_statement(
        tree_size=5, root_hash=head.root_hash, sealed_at=printed["sealed_at"]))
    assert "nothing to seal: tree head 5 covers every committed event" in _command("audit_seal")


@pytest.mark.django_db
def test_batches_extend_one_tree_and_audit_heads_prints_those_since_a_size():
    leaves = [bytes.fromhex(event.leaf_hash) for event in _record(7)]

    batches = log_seal_pending(batch=3)

    assert [(batch.first_seq, batch.head.tree_size) for batch in batches] == [(1, 3), (4, 6), (7, 7)]
    for batch in batches:
        assert batch.head.root_hash == root_of(leaves[: batch.head.tree_size]).hex()
    assert [json.loads(line)["tree_size"] for line in _command("audit_heads", "--since", "3").splitlines()] == [6, 7]
    assert [json.loads(line)["tree_size"] for line in _command("audit_heads", "--latest").splitlines()] == [7]
    assert "intact: 7 events in 3 signed tree heads (tree head 7" in _command("audit_verify")


@pytest.mark.django_db
def test_payloads_hash_the_same_after_a_round_trip_through_the_database():
    event = audit_record(actor=ENGINE, action="case.received", object_type="case", object_id=1,
                         payload={"big": 1e20, "share": 0.1, "tiny": 1e-7, "day": date(2026, 1, 2), "ids": (1, 2),
                                  "é": "ü"})
    assert event.payload == {"big": 10**20, "share": 0.1, "tiny": 1e-7, "day": "2026-01-02", "ids": [1, 2], "é": "ü"}
    log_seal_pending()
    assert "intact: 1 events" in _command("audit_verify")


@pytest.mark.django_db
def test_action_names_are_checked():
    with pytest.raises(ValueError, match="object.verb"):
        audit_record(actor=ENGINE, action="Approved", object_type="case", object_id=1, payload={})


@pytest.mark.django_db
def test_the_models_refuse_changes():
    event = _record(1)[0]
    log_seal_pending()
    head = AuditTreeHead.objects.get()
    for row in (event, head):
        with pytest.raises(TypeError):
            row.save()
        with pytest.raises(TypeError):
            row.delete()
    with pytest.raises(TypeError):
        AuditEvent.objects.filter(pk=event.pk).update(actor="x")
    with pytest.raises(TypeError):
        AuditEvent.objects.all().delete()


def _refused(sql: str, params=()) -> None:
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


@postgresql_only
@pytest.mark.django_db
def test_the_trigger_lets_through_only_the_sealers_write():
    sealed, unsealed = _record(2)
    log_seal(batch=1)
    table = AuditEvent._meta.db_table

    _refused(f"UPDATE {table} SET actor = 'someone else' WHERE id = %s", [unsealed.pk])
    _refused(f"UPDATE {table} SET seq = 9, payload = '{{}}' WHERE id = %s", [unsealed.pk])  # a position, and more
    _refused(f"UPDATE {table} SET seq = 5 WHERE id = %s", [sealed.pk])  # moving a sealed event
    _refused(f"UPDATE {table} SET seq = NULL WHERE id = %s", [sealed.pk])
    _refused(f"DELETE FROM {table} WHERE id = %s", [unsealed.pk])
    _refused("UPDATE audit_audittreehead SET root_hash = repeat('0', 64)")
    _refused("DELETE FROM audit_audittreehead")
    assert list(AuditEvent.objects.order_by("id").values_list("seq", "actor")) == [(1, ENGINE), (None, ENGINE)]

    with transaction.atomic(), connection.cursor() as cursor:  # what the sealer does: a position, nothing else
        cursor.execute(f"UPDATE {table} SET seq = 2 WHERE id = %s", [unsealed.pk])
    assert AuditEvent.objects.get(pk=unsealed.pk).seq == 2


@pytest.mark.django_db
def test_the_database_refuses_a_malformed_leaf_hash():
    # The sealer decodes every leaf hash; one it could not decode would stop the log.
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEvent.objects.create(created_at=timezone.now(), actor=ENGINE, action="case.received",
                                  object_type="case", object_id="1", leaf_hash="not hex")


@pytest.mark.django_db
def test_the_sealer_will_not_extend_a_head_it_did_not_sign():
    _record(2)
    head = log_seal().head
    _record(1, start=2)
    AuditTreeHead.objects.create(tree_size=3, root_hash=head.root_hash, sealed_at=timezone.now(),
                                 frontier=head.frontier, key_id=head.key_id, signature=head.signature)
    _record(1, start=3)

    with pytest.raises(SealerError, match="tree head 3 cannot be extended: its signature does not verify"):
        log_seal()
    assert AuditEvent.objects.filter(seq__isnull=True).count() == 2


@pytest.mark.django_db
def test_the_periodic_task_seals_on_its_own_queue_not_behind_long_exports():
    _record(3)
    assert seal.apply().get() == 3 and seal.apply().get() == 0
    entry = settings.CELERY_BEAT_SCHEDULE["audit-seal"]
    assert entry["task"] == "audit.seal" and entry["options"]["queue"] == TaskQueue.SEAL
    # Exports (hour-long) are routed to maintenance; the sealer's route comes before theirs.
    from reviewconsole.celery import app

    assert app.amqp.router.route({}, "audit.seal")["queue"].name == TaskQueue.SEAL
    assert app.amqp.router.route({}, "audit.export")["queue"].name == TaskQueue.MAINTENANCE
    assert entry["schedule"] == settings.AUDIT_SEAL_SECONDS <= 5


@pytest.mark.django_db
def test_without_a_broker_a_local_console_seals_once_the_append_commits(settings, django_capture_on_commit_callbacks):
    settings.AUDIT_SEAL_ON_COMMIT = True
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        first, second = _record(2)
        assert AuditEvent.objects.get(pk=first.pk).seq is None  # not before the commit
    assert list(AuditEvent.objects.order_by("id").values_list("seq", flat=True)) == [1, 2]
    assert AuditTreeHead.objects.get().tree_size == 2


@pytest.mark.django_db
def test_heads_signed_by_an_earlier_key_verify_once_its_public_key_is_trusted(settings):
    _record(2)
    log_seal_pending()
    earlier = json.loads(_command("audit_heads", "--public-key"))

    settings.AUDIT_SIGNING_KEY = "a-new-signing-key-for-the-audit-log-0123456789"
    with pytest.raises(CommandError, match=f"signed by key {earlier['key_id']}, which is neither the signing key"):
        _command("audit_verify")

    settings.AUDIT_TRUSTED_PUBLIC_KEYS = [earlier["public_key"]]
    _record(1, start=2)
    (batch,) = log_seal_pending()  # the new key extends the tree the earlier one signed
    assert batch.head.key_id != earlier["key_id"]
    assert "intact: 3 events in 2 signed tree heads" in _command("audit_verify")
