"""The two database roles of a deployment: the owner that migrations run as, and the role the console runs as.

Why two: the audit log's triggers (migrations 0002, 0004, 0005) refuse UPDATE, DELETE and TRUNCATE, but
PostgreSQL lets a table's owner disable a trigger, replace its function or drop the table, and no trigger
can stop that. So the console, whose connection a bug or an injection could misuse, must not own its
tables: it connects as a runtime role given only what it needs, and `manage.py migrate` alone connects
as the owner (`DATABASE_ROLE=owner` with `MIGRATION_DATABASE_URL`; docs/deployment.md, "Two database roles").

What the runtime role gets, after every `migrate` (not in a migration, which runs once: a deployment that
splits its roles later, or renames its runtime role, is granted on its next `migrate`): rows of every
table and the sequences behind their ids, now and in tables created later (default privileges), except
in the log. There it reads and appends events and gives them a position (UPDATE of `seq` alone, which the
trigger narrows to the sealer's one write), and reads and appends tree heads. Never TRUNCATE, TRIGGER
or REFERENCES, and never ownership: so no ALTER, DISABLE TRIGGER, CREATE OR REPLACE FUNCTION or DROP.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import CommandError
from django.db import connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from reviewconsole.audit.models import AuditEvent, AuditTreeHead

LOG_TABLES = (AuditEvent._meta.db_table, AuditTreeHead._meta.db_table)


def runtime_role_grant(*, connection: BaseDatabaseWrapper, role: str) -> None:
    """Give `role` what the console needs and nothing more; run as the owner. Running it again changes nothing."""
    name = connection.ops.quote_name
    grantee = name(role)
    events, heads = (name(table) for table in LOG_TABLES)
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute("SELECT current_schema()")
        schema = name(cursor.fetchone()[0])
        for statement in (
            f"GRANT USAGE ON SCHEMA {schema} TO {grantee}",
            # From nothing, so a privilege given by hand earlier (TRUNCATE, say) does not linger.
            f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {grantee}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {grantee}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {grantee}",
            # Tables the owner creates later (the next release's migrations) are usable at once.
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {grantee}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT USAGE, SELECT ON SEQUENCES TO {grantee}",
            f"REVOKE UPDATE, DELETE ON {events}, {heads} FROM {grantee}",
            f"GRANT UPDATE (seq) ON {events} TO {grantee}",
        ):
            cursor.execute(statement)


def runtime_role_problems(*, connection: BaseDatabaseWrapper, role: str) -> list[str]:
    """Why `role` could still rewrite the log despite its grants: it owns the log's tables (or belongs to
    a role that does), or it is a superuser. Empty when the split holds."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [role])
        row = cursor.fetchone()
        if row is None:
            return [f"the runtime role {role} does not exist"]
        if row[0]:
            return [f"the runtime role {role} is a superuser"]
        cursor.execute(
            "SELECT relname, pg_get_userbyid(relowner) FROM pg_class"
            " WHERE relname = ANY(%s) AND relkind = 'r' AND relnamespace = current_schema()::regnamespace"
            " AND pg_has_role(%s, relowner, 'MEMBER') ORDER BY relname",
            [list(LOG_TABLES), role],
        )
        return [f"the runtime role {role} owns {table} (through role {owner})" if owner != role
                else f"the runtime role {role} owns {table}" for table, owner in cursor.fetchall()]


def refuse_migrate_as_runtime_role(sender, *, using: str, **kwargs) -> None:
    """pre_migrate: with two roles configured, migrations run as the owner; as the runtime role they would
    fail halfway ("must be owner of table ..."), so say what to do before anything runs."""
    role = settings.DATABASE_RUNTIME_ROLE
    connection = connections[using]
    if not role or connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        current = cursor.fetchone()[0]
    if current == role:
        raise CommandError(
            f"migrate is connected as {role}, the runtime role (DATABASE_URL): migrations run as the role that owns "
            "the tables, MIGRATION_DATABASE_URL's. Run `DATABASE_ROLE=owner manage.py migrate`."
        )


def grant_runtime_role_after_migrate(sender, *, using: str, verbosity: int = 1, stdout=None, **kwargs) -> None:
    """post_migrate: grant the runtime role, then refuse to finish quietly if the split does not hold."""
    role = settings.DATABASE_RUNTIME_ROLE
    connection = connections[using]
    if not role or connection.vendor != "postgresql":
        return
    runtime_role_grant(connection=connection, role=role)
    problems = runtime_role_problems(connection=connection, role=role)
    if problems:
        raise CommandError(
            f"{'; '.join(problems)}: it could disable or drop the audit log's triggers. Make the tables' owner the "
            "role of MIGRATION_DATABASE_URL and DATABASE_URL's an ordinary role (deploy/postgres-init.sql does both)."
        )
    if verbosity >= 1 and stdout is not None:
        stdout.write(f"  Granted {role} (DATABASE_URL) the rows it needs; the audit log: read and append only.\n")
