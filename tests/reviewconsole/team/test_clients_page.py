"""The API clients page: create a client (token shown once), rotate, revoke, set its webhook."""

from __future__ import annotations

import json

import pytest
from django.test import Client as Browser

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Client

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _names(dns) -> None:
    """Webhook hosts resolve as these tests say, and no lookup leaves the machine."""
    dns.answer("hooks.inside.test", ["10.0.0.7"])

CASE = {"question": "How long do refunds take?", "answer": "Refunds take 14 days.",
        "sources": [{"id": "policy", "text": "Refunds are paid within 14 days of the request."}]}


@pytest.fixture
def admin(team_admin) -> Browser:
    browser = Browser()
    browser.force_login(team_admin)
    return browser


def _submit(token: str) -> int:
    return Browser().post("/api/v1/cases", json.dumps(CASE), content_type="application/json",
                          HTTP_AUTHORIZATION=f"Bearer {token}").status_code


def test_a_client_made_on_the_page_submits_with_its_token_until_rotated_or_revoked(admin):
    made = admin.post("/team/clients/", {"name": "support-bot", "webhook_url": "https://bot.example.com/hooks"})
    token = made.context["token"]
    page = made.content.decode()
    assert token in page and made.context["secret"].startswith("whsec_") and "shown once" in page
    client = Client.objects.get(name="support-bot")
    assert client.token_hash != token and token.startswith(client.token_prefix)
    assert _submit(token) == 202

    detail = admin.get(f"/team/clients/{client.pk}/").content.decode()
    [case] = client.cases.all()
    assert f"<td>#{case.pk}</td>" in detail and case.get_status_display() in detail

    rotated = admin.post(f"/team/clients/{client.pk}/rotate", follow=True).context["token"]
    assert rotated != token
    assert _submit(token) == 401 and _submit(rotated) == 202

    admin.post(f"/team/clients/{client.pk}/active", {"active": "0"})
    assert _submit(rotated) == 401
    admin.post(f"/team/clients/{client.pk}/active", {"active": "1"})
    assert _submit(rotated) == 202

    actions = list(AuditEvent.objects.filter(object_type="client").order_by("id").values_list("action", flat=True))
    assert actions == ["client.created", "client.token_rotated", "client.revoked", "client.restored"]
    assert all(token not in json.dumps(e.payload) for e in AuditEvent.objects.filter(object_type="client"))


def test_the_webhook_is_changed_and_a_new_secret_shown_once(admin):
    admin.post("/team/clients/", {"name": "support-bot"})
    client = Client.objects.get(name="support-bot")
    old_secret = client.webhook_secret
    saved = admin.post(f"/team/clients/{client.pk}/", {"webhook_url": "https://hooks.example.com/x"}, follow=True)
    assert "Webhook of support-bot saved." in saved.content.decode()
    client.refresh_from_db()
    assert client.webhook_url == "https://hooks.example.com/x" and client.webhook_secret == old_secret
    fields = {"webhook_url": "https://hooks.example.com/x", "new_secret": "on"}
    shown = admin.post(f"/team/clients/{client.pk}/", fields)
    client.refresh_from_db()
    assert client.webhook_secret != old_secret and client.webhook_secret in shown.content.decode()
    event = AuditEvent.objects.filter(action="client.webhook_changed").order_by("id").last()
    assert event.payload["new_secret"] is True and client.webhook_secret not in json.dumps(event.payload)


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"name": ""}, "name", "This field is required"),
        ({"name": "x" * 101}, "name", "at most 100 characters"),
        ({"name": "bot", "webhook_url": "ftp://files.example.com/"}, "webhook_url", "http or https URL"),
        ({"name": "bot", "webhook_url": "not a url"}, "webhook_url", "Enter a valid URL"),
        ({"name": "bot", "webhook_url": "http://127.0.0.1:6379/"}, "webhook_url", "127.0.0.1 is a loopback address"),
        ({"name": "bot", "webhook_url": "http://169.254.169.254/latest/meta-data/"}, "webhook_url",
         "169.254.169.254 is a link-local address"),
        ({"name": "bot", "webhook_url": "https://hooks.inside.test/"}, "webhook_url",
         "hooks.inside.test resolves to a private address 10.0.0.7"),
        ({"name": "bot", "webhook_url": "https://bot:secret@hooks.example.com/"}, "webhook_url",
         "must not contain a user name or password"),
        ({"name": "EXISTING"}, "name", "already exists"),
    ],
)
def test_a_bad_client_is_refused_naming_the_field_and_nothing_is_stored(admin, fields, field, message):
    admin.post("/team/clients/", {"name": "existing"})
    before = Client.objects.count(), AuditEvent.objects.count()
    response = admin.post("/team/clients/", fields)
    assert response.status_code == 400
    assert message in " ".join(response.context["form"].errors[field])
    assert (Client.objects.count(), AuditEvent.objects.count()) == before


def test_a_webhook_url_to_an_inside_address_is_refused_on_the_client_page_and_nothing_changes(admin):
    admin.post("/team/clients/", {"name": "support-bot", "webhook_url": "https://hooks.example.com/x"})
    client = Client.objects.get(name="support-bot")
    before = AuditEvent.objects.count()

    response = admin.post(f"/team/clients/{client.pk}/", {"webhook_url": "http://[::ffff:10.0.0.7]:8080/admin",
                                                           "new_secret": "on"})

    assert response.status_code == 400
    assert "Webhook URL: ::ffff:10.0.0.7 is a private address in IPv6 form" in response.content.decode()
    stored = Client.objects.get(pk=client.pk)
    assert (stored.webhook_url, stored.webhook_secret) == ("https://hooks.example.com/x", client.webhook_secret)
    assert AuditEvent.objects.count() == before


@pytest.mark.parametrize("path", ["/team/clients/", "/team/clients/{pk}/"])
def test_only_team_admins_open_the_clients_pages(path, admin, reviewer, policy_admin, support_lead):
    admin.post("/team/clients/", {"name": "bot"})
    url = path.format(pk=Client.objects.get(name="bot").pk)
    for user in (reviewer, policy_admin, support_lead):
        browser = Browser()
        browser.force_login(user)
        assert browser.get(url).status_code == 403
    assert admin.get(url).status_code == 200


@pytest.mark.parametrize("path", ["/team/clients/", "/team/clients/{pk}/", "/team/clients/{pk}/rotate",
                                  "/team/clients/{pk}/active"])
def test_client_writes_need_the_csrf_token(path, admin, team_admin):
    admin.post("/team/clients/", {"name": "bot"})
    client = Client.objects.get(name="bot")
    strict = Browser(enforce_csrf_checks=True)
    strict.force_login(team_admin)

    def state():
        row = Client.objects.values_list("token_hash", "is_active", "webhook_url").get(pk=client.pk)
        return row, Client.objects.count()

    before = state()
    assert strict.post(path.format(pk=client.pk), {"name": "bot2", "active": "0", "webhook_url": ""}).status_code == 403
    assert state() == before


@pytest.mark.parametrize("path", ["/team/clients/{pk}/rotate", "/team/clients/{pk}/active"])
def test_rotate_and_revoke_ask_first_and_asking_changes_nothing(path, admin, reviewer):
    admin.post("/team/clients/", {"name": "bot"})
    client = Client.objects.get(name="bot")

    def state():
        return Client.objects.values_list("token_hash", "is_active").get(pk=client.pk), AuditEvent.objects.count()

    before = state()
    page = admin.get(path.format(pk=client.pk))

    assert page.status_code == 200
    assert f'action="{path.format(pk=client.pk)}"' in page.content.decode() and "Cancel" in page.content.decode()
    assert state() == before
    outsider = Browser()
    outsider.force_login(reviewer)
    assert outsider.get(path.format(pk=client.pk)).status_code == 403


def test_the_new_token_page_shows_a_token_only_right_after_its_rotation(admin):
    admin.post("/team/clients/", {"name": "bot"})
    client = Client.objects.get(name="bot")

    rotated = admin.post(f"/team/clients/{client.pk}/rotate")
    assert rotated.status_code == 302 and rotated["Location"] == f"/team/clients/{client.pk}/token"
    shown = admin.get(rotated["Location"])
    assert shown.context["token"].startswith("rc_") and shown["Cache-Control"].startswith("max-age=0")
    again = admin.get(rotated["Location"])
    assert again.context["token"] is None and "was shown once" in again.content.decode()
