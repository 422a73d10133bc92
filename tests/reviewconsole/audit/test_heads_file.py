"""The heads file: the sealer appends every signed head to it once committed, and `audit_verify` checks the log
against it, so a rewrite that recomputed every hash and re-signed every head is still named."""

from __future__ import annotations

import logging
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from reviewconsole.audit.actions import ENGINE
from reviewconsole.audit.leaves import leaf_hash
from reviewconsole.audit.models import AuditEvent, AuditTreeHead
from reviewconsole.audit.sealer import log_seal_pending
from reviewconsole.audit.services import audit_record
from tests.reviewconsole.audit.conftest import audit_verify_broken as _broken
from tests.reviewconsole.audit.conftest import audit_verify_output as _verify

pytestmark = pytest.mark.django_db
EVENTS, HEADS = AuditEvent._meta.db_table, AuditTreeHead._meta.db_table
CONTENT = ("created_at", "actor", "action", "object_type", "object_id", "case_id", "payload")


@pytest.fixture
def heads_file(settings, tmp_path) -> Path:
    settings.AUDIT_HEADS_FILE = tmp_path / "anchored" / "audit-heads.jsonl"
    return settings.AUDIT_HEADS_FILE


@pytest.fixture
def sealed_log(heads_file, django_capture_on_commit_callbacks):
    """Append batches of events and seal each, committing as the periodic sealer would (its file writes too)."""

    def seal(batches: list[int]) -> list[AuditEvent]:
        for size in batches:
            for _ in range(size):
                number = AuditEvent.objects.count()
                audit_record(actor=ENGINE, action="case.received", object_type="case", object_id=number,
                             payload={"n": number})
            with django_capture_on_commit_callbacks(execute=True):
                log_seal_pending()
        return list(AuditEvent.objects.order_by("seq"))

    return seal


def _rewrite_and_reseal(target: AuditEvent, sealed_log) -> None:
    """What the database's owner can do holding the signing key: change an event, recompute its leaf hash,
    empty the heads and take every position back, then let the sealer sign the rewritten log afresh."""
    content = {**{name: getattr(target, name) for name in CONTENT}, "actor": "user:mallory"}
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {EVENTS} DISABLE TRIGGER USER")
            cursor.execute(f"ALTER TABLE {HEADS} DISABLE TRIGGER USER")
        cursor.execute(f"UPDATE {EVENTS} SET actor = 'user:mallory', leaf_hash = %s WHERE id = %s",
                       [leaf_hash(**content), target.pk])
        cursor.execute(f"DELETE FROM {HEADS}")
        cursor.execute(f"UPDATE {EVENTS} SET seq = NULL")
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {EVENTS} ENABLE TRIGGER USER")
            cursor.execute(f"ALTER TABLE {HEADS} ENABLE TRIGGER USER")
    sealed_log([0])


def test_the_sealer_appends_each_head_as_audit_heads_prints_it(heads_file, sealed_log):
    assert "AUDIT_HEADS_FILE " + str(heads_file) + " does not exist yet" in _verify()

    sealed_log([3, 2])

    printed = StringIO()
    call_command("audit_heads", stdout=printed)
    assert heads_file.read_text().splitlines() == printed.getvalue().splitlines()
    assert len(printed.getvalue().splitlines()) == 2
    assert "audit log intact: 5 events in 2 signed tree heads (tree head 5" in _verify()
    assert "; 2 saved heads match" in _verify()


def test_a_batch_that_rolls_back_leaves_no_head_in_the_file(heads_file, sealed_log, django_capture_on_commit_callbacks):
    sealed_log([2])
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        audit_record(actor=ENGINE, action="case.received", object_type="case", object_id=9, payload={})
        log_seal_pending()
        transaction.set_rollback(True)

    assert len(heads_file.read_text().splitlines()) == 1
    assert '"tree_size":2' in heads_file.read_text()


def test_a_rewrite_resealed_with_the_key_is_named_by_the_heads_file_down_to_the_event(heads_file, sealed_log, settings):
    events = sealed_log([3, 1, 3])
    _rewrite_and_reseal(events[3], sealed_log)
    settings.AUDIT_HEADS_FILE = None
    # The database alone cannot tell: its one head is signed and matches the rewritten events.
    assert "audit log intact: 7 events in 1 signed tree heads" in _verify()

    message = _broken("--heads", str(heads_file))

    assert "audit log broken: saved tree head 4 (sealed " in message
    assert f"does not match the log: event id={events[3].pk} (seq 4) was rewritten after it was saved" in message


def test_in_a_larger_batch_the_heads_file_names_the_batch_the_rewrite_hid_in(heads_file, sealed_log, settings):
    events = sealed_log([3, 3, 3])
    _rewrite_and_reseal(events[4], sealed_log)
    settings.AUDIT_HEADS_FILE = None
    assert "audit log intact: 9 events in 1 signed tree heads" in _verify()
    settings.AUDIT_HEADS_FILE = heads_file

    message = _broken()  # AUDIT_HEADS_FILE is checked without being named

    assert "saved tree head 6 (sealed " in message
    assert f"an event among seq 4..6 (ids {events[3].pk}..{events[5].pk}) was rewritten after it was saved" in message


def test_a_heads_file_that_cannot_be_written_does_not_undo_the_seal(settings, tmp_path, sealed_log, caplog):
    (tmp_path / "a-file").write_text("not a folder")
    settings.AUDIT_HEADS_FILE = tmp_path / "a-file" / "audit-heads.jsonl"

    with caplog.at_level(logging.ERROR, logger="reviewconsole.audit.heads_file"):
        sealed_log([2])

    assert AuditTreeHead.objects.get().tree_size == 2
    assert "tree head 2 was not appended to AUDIT_HEADS_FILE" in caplog.text
    assert "(the next head covers its events)" in caplog.text
