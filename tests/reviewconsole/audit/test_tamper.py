"""Rewrites of history, as someone with the database (and, for some, the signing key) would try them, and
what `audit_verify` says about each: the altered, deleted or inserted event by id and position, or the
batch a rewrite hid in when every hash was recomputed."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from reviewconsole.audit.actions import ENGINE
from reviewconsole.audit.leaves import leaf_hash
from reviewconsole.audit.merkle import verify_inclusion
from reviewconsole.audit.models import AuditEvent, AuditTreeHead
from reviewconsole.audit.sealer import log_seal_pending
from reviewconsole.audit.services import audit_record
from tests.reviewconsole.audit.conftest import audit_verify_broken as _broken
from tests.reviewconsole.audit.conftest import audit_verify_output as _verify

pytestmark = pytest.mark.django_db
EVENTS, HEADS = AuditEvent._meta.db_table, AuditTreeHead._meta.db_table
CONTENT = ("created_at", "actor", "action", "object_type", "object_id", "case_id", "payload")


def _log(batches: list[int]) -> list[AuditEvent]:
    """A sealed log: one signed head after each batch of the given sizes."""
    for size in batches:
        for _ in range(size):
            number = AuditEvent.objects.count()
            audit_record(actor=ENGINE, action="case.received", object_type="case", object_id=number,
                         payload={"n": number})
        log_seal_pending()
    return list(AuditEvent.objects.order_by("seq"))


def _as_owner(*statements: tuple[str, list]) -> None:
    """Change rows as the table's owner can without being a superuser: with the append-only triggers off."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {EVENTS} DISABLE TRIGGER USER")
            cursor.execute(f"ALTER TABLE {HEADS} DISABLE TRIGGER USER")
        for sql, params in statements:
            cursor.execute(sql, params)
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {EVENTS} ENABLE TRIGGER USER")
            cursor.execute(f"ALTER TABLE {HEADS} ENABLE TRIGGER USER")


def _content(event: AuditEvent, **changes) -> dict:
    return {**{name: getattr(event, name) for name in CONTENT}, **changes}


def _saved_heads(tmp_path: Path) -> Path:
    """The heads an auditor keeps outside the database, as `audit_heads` prints them."""
    out = StringIO()
    call_command("audit_heads", stdout=out)
    path = tmp_path / "heads.jsonl"
    path.write_text(out.getvalue())
    return path


def test_an_intact_log_verifies_against_its_heads_and_saved_ones(tmp_path):
    _log([3, 3, 3])
    saved = _saved_heads(tmp_path)
    assert "audit log intact: 9 events in 3 signed tree heads (tree head 9" in _verify()
    assert "; 3 saved heads match" in _verify("--heads", str(saved))


def test_an_altered_event_is_named():
    events = _log([3, 3, 3])
    target = events[4]
    _as_owner((f"UPDATE {EVENTS} SET payload = %s WHERE id = %s", ['{"n": 99}', target.pk]))

    message = _broken()
    assert f"event id={target.pk} (seq 5) was altered: its content hashes to " in message
    assert f"its stored leaf hash is {target.leaf_hash}" in message


def test_an_altered_event_with_its_leaf_hash_recomputed_is_caught_by_its_head():
    events = _log([3, 3, 3])
    target = events[4]
    forged = leaf_hash(**_content(target, actor="user:mallory"))
    _as_owner((f"UPDATE {EVENTS} SET actor = 'user:mallory', leaf_hash = %s WHERE id = %s", [forged, target.pk]))

    message = _broken()
    assert "tree head 6 (sealed " in message and "does not match its events" in message
    assert f"an event among seq 4..6 (ids {events[3].pk}..{events[5].pk}) was altered with its leaf hash" in message
    assert "recomputed, or events were removed or inserted and renumbered" in message


def test_a_batch_of_one_names_the_rehashed_event_itself():
    events = _log([2, 1, 2])
    target = events[2]
    forged = leaf_hash(**_content(target, payload={"n": -1}))
    _as_owner((f"UPDATE {EVENTS} SET payload = '{{\"n\": -1}}', leaf_hash = %s WHERE id = %s", [forged, target.pk]))

    message = _broken()
    assert "tree head 3 (sealed " in message and f"event id={target.pk} (seq 3) was altered" in message


def test_a_deleted_event_is_named_by_its_position_and_the_next_event():
    events = _log([3, 3, 3])
    _as_owner((f"DELETE FROM {EVENTS} WHERE id = %s", [events[4].pk]))

    assert f"event seq 5 is missing: the next event is id={events[5].pk} (seq 6)" in _broken()


def test_the_newest_events_deleted_are_named_by_the_head_that_covers_them():
    events = _log([3, 3, 3])
    _as_owner((f"DELETE FROM {EVENTS} WHERE id IN (%s, %s)", [events[7].pk, events[8].pk]))

    assert "events seq 8..9 are missing: tree head 9 covers them, the log ends at seq 7" in _broken()


def test_the_newest_events_deleted_with_their_head_are_caught_by_saved_heads(tmp_path):
    events = _log([3, 3, 3])
    saved = _saved_heads(tmp_path)
    _as_owner((f"DELETE FROM {EVENTS} WHERE seq > 6", []), (f"DELETE FROM {HEADS} WHERE tree_size = 9", []))
    assert "intact: 6 events in 2 signed tree heads" in _verify()  # the database alone holds together

    message = _broken("--heads", str(saved))
    assert "saved tree head 9 (sealed " in message
    assert "covers 9 events, the log holds 6: events seq 7..9 are gone" in message
    assert not AuditEvent.objects.filter(pk__in=[event.pk for event in events[6:]]).exists()


def test_an_event_deleted_inside_the_newest_saved_batch_is_placed_in_its_range_not_at_the_end(tmp_path):
    events = _log([3, 3, 3])
    saved = _saved_heads(tmp_path)
    # Event seq 8 goes, seq 9 becomes 8, and the newest stored head with it: the database holds together.
    _as_owner((f"DELETE FROM {EVENTS} WHERE id = %s", [events[7].pk]),
              (f"UPDATE {EVENTS} SET seq = 8 WHERE id = %s", [events[8].pk]),
              (f"DELETE FROM {HEADS} WHERE tree_size = 9", []))

    message = _broken("--heads", str(saved))
    assert f"1 of the events seq 7..9 (ids from {events[6].pk}) are gone, the rest renumbered" in message
    assert "event seq 9 is gone" not in message  # seq 9 was not the one deleted


def test_an_event_inserted_at_the_head_after_sealing_is_named():
    _log([3, 3])
    now = timezone.now()
    content = {"created_at": now, "actor": "user:mallory", "action": "decision.approved", "object_type": "decision",
               "object_id": "1", "case_id": None, "payload": {}}
    forged = AuditEvent.objects.create(**content, leaf_hash=leaf_hash(**content))
    _as_owner((f"UPDATE {EVENTS} SET seq = 7 WHERE id = %s", [forged.pk]))

    message = _broken()
    assert f"event id={forged.pk} (seq 7) is sealed but no signed tree head covers it" in message
    assert "(the newest covers seq 1..6): it was inserted or numbered outside the sealer" in message


def test_an_event_inserted_in_the_middle_and_the_rest_renumbered_is_caught_by_the_head_of_its_batch():
    events = _log([3, 3, 3])
    content = {**_content(events[3]), "actor": "user:mallory"}
    forged = AuditEvent.objects.create(**content, leaf_hash=leaf_hash(**content))
    _as_owner(
        (f"UPDATE {EVENTS} SET seq = -seq - 1 WHERE seq >= 5", []),
        (f"UPDATE {EVENTS} SET seq = -seq WHERE seq < 0", []),
        (f"UPDATE {EVENTS} SET seq = 5 WHERE id = %s", [forged.pk]),
    )

    message = _broken()
    assert "tree head 6 (sealed " in message and "an event among seq 4..6" in message


def test_a_forged_head_is_named():
    _log([3, 3, 3])
    _as_owner((f"UPDATE {HEADS} SET root_hash = %s WHERE tree_size = 6", ["a" * 64]))

    message = _broken()
    assert "tree head 6 (sealed " in message and "is not one this log signed: its signature does not verify" in message


def test_a_log_rewritten_and_resealed_with_the_key_is_caught_against_heads_saved_before(tmp_path):
    # The attack the database cannot see: empty both tables, insert every event again but one, and let
    # the sealer sign fresh heads. Only heads kept outside the database show it.
    events = _log([3, 3, 3])
    saved = _saved_heads(tmp_path)
    truncate = f"TRUNCATE {EVENTS}, {HEADS}" if connection.vendor == "postgresql" else f"DELETE FROM {EVENTS}"
    _as_owner((truncate, []), *([(f"DELETE FROM {HEADS}", [])] if connection.vendor != "postgresql" else []))
    for event in events:
        if event.seq != 5:
            content = _content(event)
            AuditEvent.objects.create(**content, leaf_hash=leaf_hash(**content))
    log_seal_pending()
    assert "intact: 8 events in 1 signed tree heads" in _verify()

    message = _broken("--heads", str(saved))
    assert "saved tree head 6 (sealed " in message
    assert "does not match the log: an event among seq 4..6" in message
    assert "was rewritten after it was saved" in message


def test_saved_heads_that_this_log_did_not_sign_are_refused(tmp_path):
    _log([3])
    saved = _saved_heads(tmp_path)
    head = json.loads(saved.read_text())
    saved.write_text(json.dumps({**head, "root_hash": "b" * 64}) + "\n")

    assert "saved tree head 3: its signature does not verify" in _broken("--heads", str(saved))


def test_a_saved_heads_file_that_cannot_be_read_says_which_line(tmp_path):
    _log([2])
    saved = _saved_heads(tmp_path)
    saved.write_text(saved.read_text() + '{"tree_size": 3, "root_hash": "xyz"}\n')

    message = _broken("--heads", str(saved))
    assert "heads.jsonl line 2: missing sealed_at, key_id, signature" in message
    assert "--heads: " in _broken("--heads", str(tmp_path / "nowhere.jsonl"))


def test_events_left_unsealed_too_long_are_reported():
    _log([2])
    old = timezone.now() - timedelta(minutes=5)
    content = {"created_at": old, "actor": ENGINE, "action": "case.received", "object_type": "case",
               "object_id": "9", "case_id": None, "payload": {}}
    stuck = AuditEvent.objects.create(**content, leaf_hash=leaf_hash(**content))
    audit_record(actor=ENGINE, action="case.received", object_type="case", object_id=10, payload={})

    message = _broken()
    assert f"1 event appended more than 60 s ago is not sealed (oldest: id={stuck.pk}" in message
    assert "is the sealer running" in message
    assert "2 waiting to be sealed" in _verify("--max-unsealed-age", "600")


def test_an_inclusion_proof_shows_one_event_in_the_signed_head():
    events = _log([3, 4])

    proof = json.loads(_verify("--prove", str(events[4].pk)))

    head = AuditTreeHead.objects.get(tree_size=7)
    assert proof["seq"] == 5 and proof["tree_head"]["root_hash"] == head.root_hash
    assert verify_inclusion(leaf_hash=bytes.fromhex(proof["leaf_hash"]), index=4, size=7,
                            proof=[bytes.fromhex(node) for node in proof["proof"]], root=bytes.fromhex(head.root_hash))
    unsealed = audit_record(actor=ENGINE, action="case.received", object_type="case", object_id=1, payload={})
    assert f"event id={unsealed.pk} is not sealed yet" in _broken("--prove", str(unsealed.pk))
    assert "there is no event id=999999" in _broken("--prove", "999999")
