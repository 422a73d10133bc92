"""On PostgreSQL, refuse TRUNCATE of the audit log's events and tree heads as well.

The row triggers of 0002 and 0004 do not fire on TRUNCATE, which empties a table at once. A statement
trigger now refuses it to every role, the owner's `manage.py flush` included, unless the session has set
`reviewconsole.allow_audit_truncate` to `on`. Only the test suite sets it (tests/settings.py), to empty
the tables between transactional tests; a deployment never does. Any session may set a custom setting,
so this stops mistakes, not the owner (who may disable triggers as well): the runtime role has no
TRUNCATE privilege to begin with and cannot touch triggers (audit/roles.py).
"""

from __future__ import annotations

from django.db import migrations

INSTALL = """
CREATE OR REPLACE FUNCTION audit_refuse_truncate() RETURNS trigger AS $$
BEGIN
    IF current_setting('reviewconsole.allow_audit_truncate', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only: TRUNCATE refused on %', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS audit_event_no_truncate ON audit_auditevent;
CREATE TRIGGER audit_event_no_truncate
    BEFORE TRUNCATE ON audit_auditevent
    FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_truncate();
DROP TRIGGER IF EXISTS audit_tree_head_no_truncate ON audit_audittreehead;
CREATE TRIGGER audit_tree_head_no_truncate
    BEFORE TRUNCATE ON audit_audittreehead
    FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_truncate();
"""

REMOVE = """
DROP TRIGGER IF EXISTS audit_tree_head_no_truncate ON audit_audittreehead;
DROP TRIGGER IF EXISTS audit_event_no_truncate ON audit_auditevent;
DROP FUNCTION IF EXISTS audit_refuse_truncate();
"""


def _on_postgresql(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("audit", "0004_merkle_log")]

    operations = [migrations.RunPython(_on_postgresql(INSTALL), _on_postgresql(REMOVE), elidable=False)]
