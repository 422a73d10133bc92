"""A team admin lets a client's labels train scorer models used for other clients' cases, or keeps them to its own
constitutions: on the client's page, audited once per change, and a bad value is refused with nothing changed."""

from __future__ import annotations

import re

import pytest
from django.test import Client as Browser

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Client
from reviewconsole.intake.services import client_create

pytestmark = pytest.mark.django_db

KEPT = "Labels of this client's cases train scorer models only for constitutions no other client's cases use."
SHARED = "Labels of this client's cases may train scorer models used for other clients' cases too."


@pytest.fixture
def admin(team_admin) -> Browser:
    browser = Browser()
    browser.force_login(team_admin)
    return browser


@pytest.fixture
def bot() -> Client:
    return client_create(name="support-bot")[0]


def _sharing(page: str) -> str:
    found = re.search(r'<p id="client-labels-shared">(.*?)</p>', page, re.S)
    assert found, "no label sharing on the page"
    return found.group(1).replace("&#x27;", "'")


def _shared(client: Client) -> bool:
    client.refresh_from_db()
    return client.labels_shared


def test_sharing_is_switched_on_and_off_and_audited_once_per_change(admin, bot):
    assert _sharing(admin.get(f"/team/clients/{bot.pk}/").content.decode()) == KEPT

    shared = admin.post(f"/team/clients/{bot.pk}/labels", {"labels_shared": "1"}, follow=True)

    assert shared.redirect_chain == [(f"/team/clients/{bot.pk}/", 302)]
    page = shared.content.decode()
    assert _sharing(page) == SHARED and _shared(bot)
    assert "Labels of support-bot&#x27;s cases may now train models for other clients." in page
    assert '<input type="hidden" name="labels_shared" value="0">' in page  # the button now turns it off
    [event] = AuditEvent.objects.filter(action="client.label_sharing_changed")
    assert (event.actor, event.object_type, event.object_id) == ("user:tina", "client", str(bot.pk))
    assert event.payload == {"name": "support-bot", "labels_shared": True}

    again = admin.post(f"/team/clients/{bot.pk}/labels", {"labels_shared": "1"}, follow=True)
    assert "Nothing changed." in again.content.decode() and _shared(bot)
    assert AuditEvent.objects.filter(action="client.label_sharing_changed").count() == 1

    kept = admin.post(f"/team/clients/{bot.pk}/labels", {"labels_shared": "0"}, follow=True)

    assert kept.redirect_chain == [(f"/team/clients/{bot.pk}/", 302)]
    assert _sharing(kept.content.decode()) == KEPT and not _shared(bot)
    assert "Labels of support-bot&#x27;s cases now train models for its own constitutions only." in (
        kept.content.decode())
    events = AuditEvent.objects.filter(action="client.label_sharing_changed").order_by("id")
    assert [event.payload["labels_shared"] for event in events] == [True, False]


@pytest.mark.parametrize("typed", ["", "yes", "true", "2", "01"])
def test_a_bad_value_is_refused_naming_the_field_and_nothing_changes(admin, bot, typed):
    before = AuditEvent.objects.count()

    refused = admin.post(f"/team/clients/{bot.pk}/labels", {"labels_shared": typed})

    assert refused.status_code == 400
    page = refused.content.decode()
    assert "labels_shared: must be 0 or 1" in page and _sharing(page) == KEPT
    assert not _shared(bot) and AuditEvent.objects.count() == before


def test_only_a_team_admin_changes_sharing_and_only_by_post(admin, bot, reviewer, policy_admin, support_lead,
                                                            team_admin):
    for user in (reviewer, policy_admin, support_lead):
        browser = Browser()
        browser.force_login(user)
        assert browser.post(f"/team/clients/{bot.pk}/labels", {"labels_shared": "1"}).status_code == 403
    assert Browser().post(f"/team/clients/{bot.pk}/labels", {"labels_shared": "1"}).status_code == 302  # sign in
    assert admin.get(f"/team/clients/{bot.pk}/labels").status_code == 405
    strict = Browser(enforce_csrf_checks=True)
    strict.force_login(team_admin)
    assert strict.post(f"/team/clients/{bot.pk}/labels", {"labels_shared": "1"}).status_code == 403
    assert admin.post("/team/clients/999999/labels", {"labels_shared": "1"}).status_code == 404
    assert not _shared(bot)
    assert not AuditEvent.objects.filter(action="client.label_sharing_changed").exists()
