"""What one new case costs the database: the statements POST /api/v1/cases sends, counted and named."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, Source
from reviewconsole.outbox import broker
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


@contextmanager
def _redis_commands(url: str) -> Iterator[list[str]]:
    """The commands sent to the Redis db at `url` within the block, as Redis's MONITOR saw them arrive: each
    one a round trip (the submission path sends no pipeline); those a script ran inside Redis are left out."""
    watcher, ender = redis.Redis.from_url(url), redis.Redis.from_url(url)
    ender.ping()  # connected (and its db selected) before anything is watched
    database = watcher.connection_pool.connection_kwargs.get("db", 0)
    end = f"end-of-block-{time.time_ns()}"
    seen: list[str] = []
    with watcher.monitor() as monitor:
        listening = threading.Thread(target=lambda: _listen(monitor, database, end, seen))
        listening.start()
        sent: list[str] = []
        yield sent
        ender.echo(end)
        listening.join(timeout=10)
    sent += seen
    watcher.close()
    ender.close()


def _listen(monitor, database: int, end: str, seen: list[str]) -> None:
    for command in monitor.listen():
        if command["command"] == f"ECHO {end}":
            return
        if command["db"] == database and command.get("client_type") != "lua":
            seen.append(command["command"])


def test_a_new_case_costs_three_round_trips_to_redis_with_every_limit_on(
    production_like, settings, monkeypatch, client, api_client
):
    settings.CLIENT_REQUESTS_PER_SECOND, settings.CLIENT_CASES_PER_DAY = 100, 100
    settings.CLIENT_BODY_BYTES_PER_DAY = 10**9
    # The broker's identity (Redis INFO on a connection of its own) is asked once per 5 s; a slow machine can
    # pass that between the warm-up and the counted request, so here it is asked only by the warm-up.
    monkeypatch.setattr(broker, "_TTL_SECONDS", 3600.0)
    monkeypatch.setattr(broker, "_cached", {})
    assert post_case(client, api_client, case_body(external_id="warm-up")).status_code == 202

    with _redis_commands(settings.REDIS_URL) as sent:
        response = post_case(client, api_client, case_body())

    assert response.status_code == 202
    client_id = api_client.client.pk
    # The configuration stamp with the request's token; the day's charge with the backlog count; the task.
    assert [command.split(" ", 1)[0] for command in sent] == ["EVALSHA", "EVALSHA", "LPUSH"]
    assert f"reviewconsole:limits:{client_id}:requests" in sent[0] and "configuration-stamp" in sent[0]
    assert f"reviewconsole:backlog:{client_id}" in sent[1] and f"reviewconsole:limits:{client_id}:20" in sent[1]
