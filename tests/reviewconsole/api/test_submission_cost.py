"""What one new case costs the database: the statements POST /api/v1/cases sends, counted and named."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, Source
from reviewconsole.outbox.models import Message
from tests.reviewconsole.api.conftest import case_body, post_case

# As in production: each request's transaction really commits (no test transaction around it adds
# savepoints), tasks go to Redis rather than running here, and the web processes share a Redis.
pytestmark = pytest.mark.django_db(transaction=True)

def _statements(queries: CaptureQueriesContext) -> list[tuple[str, str]]:
    """(verb, table) of each statement sent: the table read or written; "" for BEGIN and COMMIT."""
    named = []
    for query in queries:
        sql = query["sql"]
        table = re.search(r'(?:FROM|INTO) "(\w+)"', sql)
        named.append((sql.split(" ", 1)[0], table.group(1) if table else ""))
    return named


def _queries(statements: list[tuple[str, str]]) -> int:
    return sum(1 for verb, _ in statements if verb not in {"BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"})


@pytest.fixture
def production_like(settings, live_broker, fresh_stamps) -> None:
    settings.REDIS_URL = live_broker


def test_a_new_case_costs_four_statements_and_no_reads(production_like, client, api_client):
    # A first submission, not counted: it checks the token and the constitution in force in the database,
    # as each web process does once (and again after a change to either).
    assert post_case(client, api_client, case_body(external_id="warm-up")).status_code == 202

    with CaptureQueriesContext(connection) as queries:
        response = post_case(client, api_client, case_body())

    assert response.status_code == 202
    statements = _statements(queries)
    assert statements == [
        # The token and the constitution in force came from this process's cache: no read at all. Then the
        # case and its sources, its audit event and its task's outbox message, in one transaction.
        ("BEGIN", ""),
        ("INSERT", Case._meta.db_table),
        ("INSERT", Source._meta.db_table),
        ("INSERT", AuditEvent._meta.db_table),
        ("INSERT", Message._meta.db_table),
        ("COMMIT", ""),
    ]
    assert _queries(statements) == 4
    body = response.json()
    case = Case.objects.get(pk=body["id"])
    # Answered from the row just written, with nothing a new case cannot have yet.
    assert body["status"] == "QUEUED" and body["decision"] is None and body["run_record"] is None
    assert body["submitted_at"] == case.submitted_at.isoformat()
    assert body["constitution_version"] == case.constitution_pin.short_sha == case.constitution_version


def test_the_same_case_again_is_found_by_its_external_id_and_answered_as_stored(production_like, client, api_client):
    first = post_case(client, api_client, case_body())

    with CaptureQueriesContext(connection) as queries:
        again = post_case(client, api_client, case_body())

    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json() == first.json()
    # The insert meets the unique constraint and writes nothing (no second case, audit event or task);
    # the stored case is read back instead.
    assert [verb for verb, _ in _statements(queries)].count("INSERT") == 1
    assert Case.objects.count() == 1 and Message.objects.count() == 1
