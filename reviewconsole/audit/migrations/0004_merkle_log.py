"""From a hash chain under a global lock to a Merkle log sealed in batches.

Events lose `prev_hash` and `hash` and gain `leaf_hash` (RFC 6962, of their content alone); `seq` is left
empty by writers and given by the sealer, which signs a tree head per batch (`AuditTreeHead`). An
export records the tree head it covers (`tree_size`, `root_hash`).

Existing events keep their positions. Their old chain is checked first, and the migration stops at
the first broken link rather than seal a rewritten history under a valid signature; then their leaf
hashes are computed and one signed tree head covers them all.

On PostgreSQL the append-only trigger now lets exactly one UPDATE through (`seq` set once, from empty,
with nothing else changed) and covers the tree heads too. TRUNCATE is not refused by a trigger: the
test suite's teardown empties every table with it. A truncated log is still caught: the heads (or heads
saved outside the database) cover events that are gone.
"""

from __future__ import annotations

import hashlib
import json

from django.db import migrations, models
from django.utils import timezone

INSTALL = """
CREATE OR REPLACE FUNCTION audit_event_refuse_change() RETURNS trigger AS $$
DECLARE
    unchanged audit_auditevent;
BEGIN
    -- The sealer's one write: a position given to an event that had none, nothing else touched.
    IF TG_OP = 'UPDATE' AND OLD.seq IS NULL AND NEW.seq IS NOT NULL THEN
        unchanged := NEW;
        unchanged.seq := NULL;
        IF unchanged IS NOT DISTINCT FROM OLD THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION 'audit events are append-only: % refused on audit_auditevent', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS audit_event_append_only ON audit_auditevent;
CREATE TRIGGER audit_event_append_only
    BEFORE UPDATE OR DELETE ON audit_auditevent
    FOR EACH ROW EXECUTE FUNCTION audit_event_refuse_change();

CREATE OR REPLACE FUNCTION audit_tree_head_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit tree heads are append-only: % refused on audit_audittreehead', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS audit_tree_head_append_only ON audit_audittreehead;
CREATE TRIGGER audit_tree_head_append_only
    BEFORE UPDATE OR DELETE ON audit_audittreehead
    FOR EACH ROW EXECUTE FUNCTION audit_tree_head_refuse_change();
"""

# Back to 0003's trigger: every UPDATE and DELETE of an event refused.
REMOVE = """
DROP TRIGGER IF EXISTS audit_tree_head_append_only ON audit_audittreehead;
DROP FUNCTION IF EXISTS audit_tree_head_refuse_change();
CREATE OR REPLACE FUNCTION audit_event_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only: % refused on audit_auditevent', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
"""

DROP_OLD = "DROP TRIGGER IF EXISTS audit_event_append_only ON audit_auditevent;"
RESTORE_OLD = """
DROP TRIGGER IF EXISTS audit_event_append_only ON audit_auditevent;
CREATE TRIGGER audit_event_append_only
    BEFORE UPDATE OR DELETE ON audit_auditevent
    FOR EACH ROW EXECUTE FUNCTION audit_event_refuse_change();
"""

_CHAIN_FIELDS = ("seq", "created_at", "actor", "action", "object_type", "object_id", "case_id", "payload")
_GENESIS = "0" * 64
_BATCH = 5000


def _on_postgresql(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


def _old_chain_hash(fields: dict, prev_hash: str) -> str:
    # The hash chain as migration 0001 to 0003 computed it (the old `chain.event_hash`), kept here to
    # check the old chain once, since no other code needs it any more.
    document = {**fields, "prev_hash": prev_hash}
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seal_existing_events(apps, schema_editor):
    from reviewconsole.audit.heads import sign_head
    from reviewconsole.audit.leaves import canonical_time, leaf_hash
    from reviewconsole.audit.merkle import CompactRange

    AuditEvent = apps.get_model("audit", "AuditEvent")
    AuditTreeHead = apps.get_model("audit", "AuditTreeHead")
    connection = schema_editor.connection
    tree = CompactRange()
    prev_hash, last_seq = _GENESIS, 0
    events = AuditEvent.objects.order_by("seq")
    while True:
        page = list(events.filter(seq__gt=last_seq)[:_BATCH])
        updates = []
        for event in page:
            fields = {name: getattr(event, name) for name in _CHAIN_FIELDS}
            fields["created_at"] = canonical_time(event.created_at)
            if event.seq != last_seq + 1 or event.prev_hash != prev_hash or _old_chain_hash(fields, prev_hash) != event.hash:
                raise RuntimeError(
                    f"the audit chain is broken at event id={event.pk} (seq {event.seq}): run the previous release's "
                    "`manage.py audit_verify` and restore the events from a backup before upgrading; sealing a "
                    "broken chain would put a valid signature over whatever changed it"
                )
            content = {name: fields[name] for name in _CHAIN_FIELDS if name != "seq"}
            leaf = leaf_hash(**content)
            tree.append(bytes.fromhex(leaf))
            updates.append((leaf, event.pk))
            prev_hash, last_seq = event.hash, event.seq
        if updates:
            with connection.cursor() as cursor:
                cursor.executemany("UPDATE audit_auditevent SET leaf_hash = %s WHERE id = %s", updates)
        if len(page) < _BATCH:
            break
    if tree.size:
        now = timezone.now()
        signed = sign_head(tree_size=tree.size, root_hash=tree.root().hex(), sealed_at=canonical_time(now))
        AuditTreeHead.objects.create(
            tree_size=tree.size, root_hash=signed.root_hash, sealed_at=now,
            frontier=[subtree.hex() for subtree in tree.hashes], key_id=signed.key_id, signature=signed.signature,
        )


class Migration(migrations.Migration):
    dependencies = [("audit", "0003_export_claim")]

    operations = [
        # The old trigger refuses the leaf hashes written below; the new one is installed at the end.
        migrations.RunPython(_on_postgresql(DROP_OLD), _on_postgresql(RESTORE_OLD), elidable=False),
        migrations.CreateModel(
            name="AuditTreeHead",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("tree_size", models.PositiveBigIntegerField(unique=True)),
                ("root_hash", models.CharField(max_length=64)),
                ("sealed_at", models.DateTimeField()),
                ("frontier", models.JSONField(default=list, help_text="Hex roots of the perfect subtrees on the right edge")),
                ("key_id", models.CharField(max_length=16)),
                ("signature", models.CharField(help_text="Ed25519 over heads.head_statement, base64", max_length=100)),
            ],
            options={"ordering": ["tree_size"]},
        ),
        migrations.AddField(
            model_name="auditevent",
            name="leaf_hash",
            field=models.CharField(default="", help_text="RFC 6962 leaf hash of the content (leaves.py), hex", max_length=64),
            preserve_default=False,
        ),
        migrations.RunPython(seal_existing_events, migrations.RunPython.noop, elidable=False),
        migrations.AlterField(
            model_name="auditevent",
            name="seq",
            field=models.BigIntegerField(
                blank=True, editable=False, null=True, unique=True,
                help_text="Position in the log, from 1, without gaps; empty until the sealer gives it one",
            ),
        ),
        migrations.RemoveField(model_name="auditevent", name="prev_hash"),
        migrations.RemoveField(model_name="auditevent", name="hash"),
        migrations.AlterModelOptions(name="auditevent", options={"ordering": ["id"]}),
        migrations.RemoveIndex(model_name="auditevent", name="audit_event_case"),
        migrations.AddIndex(
            model_name="auditevent", index=models.Index(fields=["case", "id"], name="audit_event_case"),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(condition=models.Q(("seq__isnull", True)), fields=["id"], name="audit_event_unsealed"),
        ),
        migrations.AddConstraint(
            model_name="auditevent",
            constraint=models.CheckConstraint(
                condition=models.Q(("leaf_hash__regex", "^[0-9a-f]{64}$")), name="audit_leaf_hash_hex"
            ),
        ),
        migrations.RenameField(model_name="auditexport", old_name="head_seq", new_name="tree_size"),
        migrations.RenameField(model_name="auditexport", old_name="head_hash", new_name="root_hash"),
        migrations.AlterField(
            model_name="auditexport",
            name="tree_size",
            field=models.BigIntegerField(default=0, help_text="The export covers the events of this tree head: seq 1 to this"),
        ),
        migrations.AlterField(
            model_name="auditexport",
            name="root_hash",
            field=models.CharField(blank=True, help_text="That tree head's root; empty for the empty log", max_length=64),
        ),
        migrations.RunPython(_on_postgresql(INSTALL), _on_postgresql(REMOVE), elidable=False),
    ]
