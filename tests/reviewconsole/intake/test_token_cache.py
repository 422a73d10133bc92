"""API tokens are checked once per web process and then answered from its cache, and every change to a
client's credentials (rotation, revocation, deactivation) is refused by every process from its next
request on."""

from __future__ import annotations

import json
import re
import time

import pytest
import redis
from django.core.management import call_command
from django.db import connection
from django.test import Client as Browser
from django.test.utils import CaptureQueriesContext

from reviewconsole.accounts.roles import Role
from reviewconsole.intake import credentials
from reviewconsole.intake.models import Case, Client
from reviewconsole.intake.services import client_active_set
from tests.personas import _user_with
from tests.reviewconsole.api.conftest import case_body
from tests.reviewconsole.conftest import _test_database_url
from tests.reviewconsole.subprocesses import run_manage

# Changes commit for real, as in production: the stamp is replaced when a change commits.
pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS_TABLE = Client._meta.db_table


@pytest.fixture
def shared_cache(settings, live_broker, fresh_stamps) -> str:
    """Web processes share a Redis, as in a deployment (tasks go to it, not run here); this process
    starts with an empty cache."""
    settings.REDIS_URL = live_broker
    return live_broker


def _submit(token: str, external_id: str) -> int:
    response = Browser().post("/api/v1/cases", json.dumps(case_body(external_id=external_id)),
                              content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    return response.status_code


def _token_in(output: str) -> str:
    return re.search(r"\b(rc_\S+)", output).group(1)


@pytest.fixture
def bot(capsys) -> tuple[Client, str]:
    call_command("create_client", "bot")
    return Client.objects.get(name="bot"), _token_in(capsys.readouterr().out)


def test_a_token_is_looked_up_once_then_answered_from_the_cache(shared_cache, bot):
    _, token = bot
    assert _submit(token, "first") == 202

    with CaptureQueriesContext(connection) as queries:
        assert _submit(token, "second") == 202

    assert [query["sql"] for query in queries if f'FROM "{CLIENTS_TABLE}"' in query["sql"]] == []
    assert Case.objects.filter(client__name="bot").count() == 2


def test_a_rotated_token_is_refused_at_once(shared_cache, bot, capsys):
    _, old = bot
    assert _submit(old, "before") == 202

    call_command("rotate_token", "bot")
    new = _token_in(capsys.readouterr().out)

    assert _submit(old, "after-old") == 401
    assert _submit(new, "after-new") == 202


def test_a_client_revoked_on_the_team_page_is_refused_at_once_and_let_back_in(shared_cache, bot):
    client, token = bot
    admin = Browser()
    admin.force_login(_user_with("tina", Role.TEAM_ADMIN))
    assert _submit(token, "before") == 202

    admin.post(f"/team/clients/{client.pk}/active", {"active": "0"})
    assert _submit(token, "revoked") == 401

    admin.post(f"/team/clients/{client.pk}/active", {"active": "1"})
    assert _submit(token, "restored") == 202


def test_a_client_deactivated_through_intake_is_refused_at_once(shared_cache, bot):
    client, token = bot
    assert _submit(token, "before") == 202

    assert client_active_set(client=client, active=False)

    assert _submit(token, "after") == 401
    assert not Case.objects.filter(external_id="after").exists()


def test_a_token_rotated_by_another_process_is_refused_here_at_once(shared_cache, bot, tmp_path):
    database_url = _test_database_url()
    if database_url is None:
        pytest.skip("another process reaches the test database only on PostgreSQL")
    _, old = bot
    assert _submit(old, "before") == 202  # this process now holds the token in its cache

    rotated = run_manage(["rotate_token", "bot"], {"DJANGO_SETTINGS_MODULE": "tests.settings",
                                                    "DATABASE_URL": database_url, "REDIS_URL": shared_cache}, tmp_path)

    assert rotated.returncode == 0, rotated.stderr
    assert _submit(old, "after-old") == 401
    assert _submit(_token_in(rotated.stdout), "after-new") == 202


def test_while_redis_does_not_answer_every_token_is_checked_in_the_database(settings, bot, fresh_stamps):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    client, token = bot
    assert _submit(token, "before") == 202

    # Even a change made past intake's services, which replaces no stamp, is seen at once.
    Client.objects.filter(pk=client.pk).update(is_active=False)

    assert _submit(token, "after") == 401


def test_a_change_made_past_the_services_is_seen_once_the_cached_entry_expires(shared_cache, bot, monkeypatch):
    monkeypatch.setattr(credentials._clients, "seconds", 0.5)
    client, token = bot
    assert _submit(token, "before") == 202
    Client.objects.filter(pk=client.pk).update(is_active=False)  # a shell or SQL: no stamp is replaced

    time.sleep(0.6)

    assert _submit(token, "after") == 401


def test_a_redis_that_restarted_empty_voids_every_cached_token(shared_cache, bot):
    client, token = bot
    assert _submit(token, "before") == 202
    Client.objects.filter(pk=client.pk).update(is_active=False)  # past the services: no stamp is renewed

    redis.Redis.from_url(shared_cache).flushdb()  # as a restart without persistence leaves it

    # The stamp starts anew with a fresh random value, never the one the cached entry was read under.
    assert _submit(token, "after") == 401
