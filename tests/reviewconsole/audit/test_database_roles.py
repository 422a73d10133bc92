"""The console as a real non-owner role, granted as `migrate` grants it: it appends to the log and seals it,
and every way of rewriting the log that PostgreSQL would allow a table's owner is refused to it."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import StringIO

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection, connections

from reviewconsole.audit.models import AuditEvent, AuditTreeHead
from reviewconsole.audit.roles import runtime_role_grant
from reviewconsole.audit.sealer import log_seal_pending
from reviewconsole.intake.services import client_create
from tests.reviewconsole.api.conftest import SUPPORTED_CASE
from tests.reviewconsole.audit.conftest import run_case

pytestmark = pytest.mark.django_db(transaction=True)
EVENTS, HEADS = AuditEvent._meta.db_table, AuditTreeHead._meta.db_table


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("database roles are PostgreSQL's; set DATABASE_URL to a PostgreSQL database")


@dataclass(frozen=True)
class Role:
    name: str
    password: str


@pytest.fixture
def runtime_role(transactional_db) -> Iterator[Role]:
    """A login role made for this test (roles belong to the whole server), granted as `migrate` grants it."""
    role = Role(f"console_runtime_{secrets.token_hex(4)}", secrets.token_urlsafe(16))
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {role.name} LOGIN PASSWORD '{role.password}'")
    runtime_role_grant(connection=connection, role=role.name)
    yield role
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", [role.name])
        cursor.execute(f"DROP OWNED BY {role.name}")
        cursor.execute(f"DROP ROLE {role.name}")


def _connect(*, user: str, password: str = "") -> psycopg.Connection:
    """A connection of its own, as `user`, with none of the test suite's session settings."""
    settings = connection.settings_dict
    return psycopg.connect(host=settings["HOST"], port=settings["PORT"], dbname=settings["NAME"], user=user,
                           password=password or settings["PASSWORD"], autocommit=True)


@contextmanager
def _console_connected_as(role: Role) -> Iterator[None]:
    """The console's own code, connected as `role` rather than as the suite's superuser."""
    owner = connections["default"]
    runtime = owner.__class__({**owner.settings_dict, "USER": role.name, "PASSWORD": role.password}, alias="default")
    connections["default"] = runtime
    try:
        yield
    finally:
        runtime.close()
        connections["default"] = owner


def _refusal(database: psycopg.Connection, statement: str) -> str:
    """What PostgreSQL answers: "<sqlstate> <message>", or "done" when it let the statement through."""
    try:
        database.execute(statement)
    except psycopg.Error as error:
        return f"{error.sqlstate} {str(error).splitlines()[0]}"
    return "done"


def _verify() -> str:
    out = StringIO()
    call_command("audit_verify", stdout=out)
    return out.getvalue()


def test_the_console_runs_as_the_runtime_role_appends_and_seals_and_the_log_verifies(runtime_role):
    with _console_connected_as(runtime_role):
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            assert cursor.fetchone() == (runtime_role.name,)
        client, _ = client_create(name="support-bot")
        case = run_case(client, SUPPORTED_CASE)
        batches = log_seal_pending()
        report = _verify()

    assert case.status == "RELEASED"
    appended = AuditEvent.objects.count()
    assert set(AuditEvent.objects.values_list("action", flat=True)) >= {"case.received", "case.terminal"}
    assert sum(batch.events for batch in batches) == appended
    assert not AuditEvent.objects.filter(seq__isnull=True).exists()
    assert f"audit log intact: {appended} events in {len(batches)} signed tree heads" in report


def test_every_rewrite_of_the_log_is_refused_to_the_runtime_role(runtime_role):
    with _console_connected_as(runtime_role):
        client, _ = client_create(name="support-bot")
        run_case(client, SUPPORTED_CASE)
        log_seal_pending()
    events_before = list(AuditEvent.objects.order_by("seq").values_list("seq", "leaf_hash"))

    denied, not_owner, append_only = "42501 permission denied for table", "42501 must be owner of", "42501 audit events"
    attempts = {
        f"UPDATE {EVENTS} SET payload = '{{}}' WHERE seq = 1": f"{denied} {EVENTS}",
        f"UPDATE {EVENTS} SET leaf_hash = leaf_hash WHERE seq = 1": f"{denied} {EVENTS}",
        # The one column it may write, the sealer's: the trigger still refuses it on a sealed event.
        f"UPDATE {EVENTS} SET seq = 999 WHERE seq = 1": f"{append_only} are append-only: UPDATE refused on {EVENTS}",
        f"DELETE FROM {EVENTS} WHERE seq = 1": f"{denied} {EVENTS}",
        f"UPDATE {HEADS} SET root_hash = repeat('a', 64)": f"{denied} {HEADS}",
        f"DELETE FROM {HEADS}": f"{denied} {HEADS}",
        f"TRUNCATE {EVENTS}": f"{denied} {EVENTS}",
        f"TRUNCATE {HEADS}": f"{denied} {HEADS}",
        f"ALTER TABLE {EVENTS} DISABLE TRIGGER audit_event_append_only": f"{not_owner} table {EVENTS}",
        f"ALTER TABLE {EVENTS} DISABLE TRIGGER USER": f"{not_owner} table {EVENTS}",
        f"ALTER TABLE {HEADS} DISABLE TRIGGER audit_tree_head_append_only": f"{not_owner} table {HEADS}",
        f"DROP TRIGGER audit_event_append_only ON {EVENTS}": not_owner,  # "relation" or "table", by version
        # Refused for want of CREATE on the schema (PostgreSQL 15 on) or, before it, as not the function's owner.
        "CREATE OR REPLACE FUNCTION audit_event_refuse_change() RETURNS trigger AS $$ BEGIN RETURN NEW; END $$"
        " LANGUAGE plpgsql": "42501 ",
        f"ALTER TABLE {EVENTS} OWNER TO {runtime_role.name}": f"{not_owner} table {EVENTS}",
        f"DROP TABLE {EVENTS}": f"{not_owner} table {EVENTS}",
        f"DROP TABLE {HEADS}": f"{not_owner} table {HEADS}",
        "SET session_replication_role = replica": '42501 permission denied to set parameter "session_replication_role"',
    }
    with _connect(user=runtime_role.name, password=runtime_role.password) as database:
        answers = {statement: _refusal(database, statement) for statement in attempts}
        # The suite's switch for its own TRUNCATEs does not help a role without the privilege.
        database.execute("SET reviewconsole.allow_audit_truncate = on")
        answers["TRUNCATE after the switch"] = _refusal(database, f"TRUNCATE {EVENTS}, {HEADS}")
        attempts["TRUNCATE after the switch"] = f"{denied} {EVENTS}"
        # Appending is what it is there for.
        answers["append"] = _refusal(
            database,
            f"INSERT INTO {EVENTS} (created_at, actor, action, object_type, object_id, payload, leaf_hash)"
            f" VALUES (now(), 'engine', 'case.received', 'case', '1', '{{}}', repeat('0', 64))",
        )
        attempts["append"] = "done"

    assert {statement: answer[:len(attempts[statement])] for statement, answer in answers.items()} == attempts
    assert list(AuditEvent.objects.filter(seq__isnull=False).order_by("seq").values_list("seq", "leaf_hash")) == (
        events_before
    )


def test_truncate_is_refused_to_the_owner_too_in_a_session_that_did_not_allow_it(runtime_role):
    with _console_connected_as(runtime_role):
        client, _ = client_create(name="support-bot")
        run_case(client, SUPPORTED_CASE)
        log_seal_pending()
    appended = AuditEvent.objects.count()
    owner = connection.settings_dict["USER"]

    # A session as production opens one: the switch was never set.
    with _connect(user=owner) as database:
        answers = [_refusal(database, f"TRUNCATE {table} CASCADE") for table in (EVENTS, HEADS)]
        database.execute("SET reviewconsole.allow_audit_truncate = off")
        answers.append(_refusal(database, f"TRUNCATE {EVENTS}"))

    assert answers == [
        f"42501 the audit log is append-only: TRUNCATE refused on {EVENTS}",
        f"42501 the audit log is append-only: TRUNCATE refused on {HEADS}",
        f"42501 the audit log is append-only: TRUNCATE refused on {EVENTS}",
    ]
    assert AuditEvent.objects.count() == appended and AuditTreeHead.objects.exists()


def test_tables_created_later_are_usable_by_the_runtime_role_at_once(runtime_role):
    # What the next release's migrations do: the owner creates a table after the grants were given.
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE roles_later_table (id bigint GENERATED BY DEFAULT AS IDENTITY, note text)")
    try:
        with _connect(user=runtime_role.name, password=runtime_role.password) as database:
            database.execute("INSERT INTO roles_later_table (note) VALUES ('written by the console')")
            rows = database.execute("SELECT id, note FROM roles_later_table").fetchall()
            refused = _refusal(database, "TRUNCATE roles_later_table")
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE roles_later_table")
    assert rows == [(1, "written by the console")]
    assert refused == "42501 permission denied for table roles_later_table"


def test_migrate_grants_the_runtime_role_after_it_runs_and_says_so(runtime_role, settings):
    settings.DATABASE_RUNTIME_ROLE = runtime_role.name
    with connection.cursor() as cursor:
        cursor.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {runtime_role.name}")
    out = StringIO()

    call_command("migrate", verbosity=1, stdout=out)

    assert f"Granted {runtime_role.name} (DATABASE_URL) the rows it needs; the audit log: read and append only" in (
        out.getvalue()
    )
    with _connect(user=runtime_role.name, password=runtime_role.password) as database:
        assert _refusal(database, f"SELECT count(*) FROM {EVENTS}") == "done"
        assert _refusal(database, f"DELETE FROM {EVENTS}").startswith(f"42501 permission denied for table {EVENTS}")


def test_migrate_as_the_runtime_role_stops_before_anything_runs(runtime_role, settings):
    settings.DATABASE_RUNTIME_ROLE = runtime_role.name
    with _console_connected_as(runtime_role), pytest.raises(CommandError) as error:
        call_command("migrate", verbosity=0)
    assert f"migrate is connected as {runtime_role.name}, the runtime role (DATABASE_URL)" in str(error.value)
    assert "Run `DATABASE_ROLE=owner manage.py migrate`" in str(error.value)


def test_migrate_stops_when_the_runtime_role_could_still_disable_the_triggers(runtime_role, settings):
    # A runtime role that belongs to the owner's role may do all its owner may: alter and drop the log.
    owner = connection.settings_dict["USER"]
    with connection.cursor() as cursor:
        cursor.execute(f"GRANT {owner} TO {runtime_role.name}")
    settings.DATABASE_RUNTIME_ROLE = runtime_role.name

    with pytest.raises(CommandError) as error:
        call_command("migrate", verbosity=0)

    role = runtime_role.name
    assert (f"the runtime role {role} owns {EVENTS} (through role {owner}); the runtime role {role} owns {HEADS} "
            f"(through role {owner}): it could disable or drop the audit log's triggers") in str(error.value)
