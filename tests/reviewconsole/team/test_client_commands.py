"""Operators create clients and rotate their tokens from the shell; tokens are shown once, and each change is
audited as the Clients page audits it."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import CommandError, call_command

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, Client
from reviewconsole.intake.services import token_hash
from tests.reviewconsole.api.conftest import case_body

TOKEN = re.compile(r"(rc_[A-Za-z0-9_-]{20,})")


@pytest.fixture(autouse=True)
def _names(dns) -> None:
    """Webhook hosts resolve as these tests say, and no lookup leaves the machine."""
    dns.answer("hooks.inside.test", ["192.168.0.20"])


def _token_in(output: str) -> str:
    match = TOKEN.search(output)
    assert match, output
    return match.group(1)


def _post(http, token):
    return http.post(
        "/api/v1/cases", data=json.dumps(case_body()), content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )


def test_create_client_prints_a_working_token_once_and_stores_only_its_hash(client, db, capsys):
    call_command("create_client", "support-bot", "--webhook-url", "https://hooks.example.com/review")
    output = capsys.readouterr().out
    token = _token_in(output)

    stored = Client.objects.get(name="support-bot")
    assert stored.token_hash == token_hash(token)
    assert token not in str(Client.objects.values().get())
    assert stored.webhook_url == "https://hooks.example.com/review"
    assert stored.webhook_secret.startswith("whsec_") and stored.webhook_secret in output
    assert _post(client, token).status_code == 202

    event = AuditEvent.objects.get(action="client.created")
    assert (event.actor, event.object_type, event.object_id) == ("system:manage.py", "client", str(stored.pk))
    assert event.payload == {"name": "support-bot", "token_prefix": stored.token_prefix,
                             "webhook_url": "https://hooks.example.com/review"}
    assert token not in json.dumps(event.payload)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["  "], "NAME: must be 1 to 100 characters"),
        (["x" * 101], "NAME: must be 1 to 100 characters"),
        (["bot", "--webhook-url", "ftp://files.example.com"], "--webhook-url: not an http(s) URL"),
        (["bot", "--webhook-url", "not a url"], "--webhook-url: not an http(s) URL"),
        (["bot", "--webhook-url", "http://127.0.0.1:6379/"], "--webhook-url: 127.0.0.1 is a loopback address"),
        (["bot", "--webhook-url", "http://hooks.inside.test/"],
         "--webhook-url: hooks.inside.test resolves to a private address 192.168.0.20"),
        (["bot", "--webhook-url", "https://bot:secret@hooks.example.com/"],
         "--webhook-url: must not contain a user name or password"),
    ],
)
def test_create_client_refuses_bad_arguments_and_creates_nothing(db, args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("create_client", *args)
    assert not Client.objects.exists()
    assert not AuditEvent.objects.exists()


def test_a_second_client_with_the_same_name_is_refused(db):
    call_command("create_client", "bot")
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_client", "bot")
    assert Client.objects.count() == 1
    assert AuditEvent.objects.filter(action="client.created").count() == 1


def test_a_name_differing_only_in_case_is_refused_as_on_the_clients_page(db):
    call_command("create_client", "bot")
    with pytest.raises(CommandError, match="NAME: a client named 'BOT' already exists"):
        call_command("create_client", "BOT")
    assert Client.objects.count() == 1


def test_rotate_token_replaces_the_token_at_once(client, db, capsys):
    call_command("create_client", "bot")
    old = _token_in(capsys.readouterr().out)
    call_command("rotate_token", "bot")
    new = _token_in(capsys.readouterr().out)

    assert new != old
    assert _post(client, old).status_code == 401
    assert _post(client, new).status_code == 202
    assert Case.objects.count() == 1

    stored = Client.objects.get(name="bot")
    event = AuditEvent.objects.get(action="client.token_rotated")
    assert (event.actor, event.object_id) == ("system:manage.py", str(stored.pk))
    assert event.payload == {"name": "bot", "old_prefix": old[:12], "token_prefix": new[:12]}


def test_rotate_token_for_an_unknown_client_names_the_argument(db):
    with pytest.raises(CommandError, match="NAME: no client named 'ghost'"):
        call_command("rotate_token", "ghost")
    assert not AuditEvent.objects.exists()
