"""On PostgreSQL, refuse UPDATE and DELETE of audit events in the database itself.

The model refuses them too, but only a trigger also stops raw SQL, the admin shell and other clients.
Only a superuser who disables the trigger (or sets session_replication_role) can bypass it, and the
hash chain then shows what they changed. TRUNCATE is left alone: test teardown flushes tables with it.
"""

from __future__ import annotations

from django.db import migrations

INSTALL = """
CREATE OR REPLACE FUNCTION audit_event_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only: % refused on audit_auditevent', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS audit_event_append_only ON audit_auditevent;
CREATE TRIGGER audit_event_append_only
    BEFORE UPDATE OR DELETE ON audit_auditevent
    FOR EACH ROW EXECUTE FUNCTION audit_event_refuse_change();
"""

REMOVE = """
DROP TRIGGER IF EXISTS audit_event_append_only ON audit_auditevent;
DROP FUNCTION IF EXISTS audit_event_refuse_change();
"""


def _on_postgresql(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(_on_postgresql(INSTALL), _on_postgresql(REMOVE), elidable=False)]
