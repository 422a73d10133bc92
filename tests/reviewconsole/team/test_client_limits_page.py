"""A team admin sets a client's own limits on its page: audited, blank is the default again, and a bad value is
refused naming the field with nothing changed."""

from __future__ import annotations

import re

import pytest
from django.test import Client as Browser

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Client
from reviewconsole.intake.services import client_create

pytestmark = pytest.mark.django_db

FIELDS = ("requests_per_second", "cases_per_day", "body_bytes_per_day")


@pytest.fixture
def admin(team_admin) -> Browser:
    browser = Browser()
    browser.force_login(team_admin)
    return browser


@pytest.fixture
def bot() -> Client:
    return client_create(name="support-bot")[0]


def _limits(client: Client) -> tuple:
    client.refresh_from_db()
    return tuple(getattr(client, field) for field in FIELDS)


def _in_force(page: str, field: str) -> str:
    cell = re.search(rf'<td id="limit-{field}">(.*?)</td>', page, re.S)
    assert cell, f"no in-force cell for {field}"
    return re.sub(r"<[^>]+>", "", cell.group(1)).strip()


def test_the_page_shows_the_defaults_in_force(admin, bot, settings):
    settings.CLIENT_REQUESTS_PER_SECOND, settings.CLIENT_CASES_PER_DAY, settings.CLIENT_BODY_BYTES_PER_DAY = 20, 0, 9
    page = admin.get(f"/team/clients/{bot.pk}/").content.decode()

    assert _in_force(page, "requests_per_second") == "20 (default)"
    assert _in_force(page, "cases_per_day") == "no limit (default)"
    assert _in_force(page, "body_bytes_per_day") == "9 (default)"


def test_own_limits_are_saved_audited_and_blank_is_the_default_again(admin, bot, settings):
    settings.CLIENT_REQUESTS_PER_SECOND = 20
    saved = admin.post(f"/team/clients/{bot.pk}/limits",
                       {"requests_per_second": "5", "cases_per_day": "0", "body_bytes_per_day": ""}, follow=True)

    page = saved.content.decode()
    assert "Limits of support-bot saved." in page
    assert _limits(bot) == (5, 0, None)
    assert _in_force(page, "requests_per_second") == "5" and _in_force(page, "cases_per_day") == "no limit"
    [event] = AuditEvent.objects.filter(action="client.limits_changed")
    assert event.actor == "user:tina" and event.object_id == str(bot.pk)
    assert event.payload == {"name": "support-bot", "changes": {"requests_per_second": {"from": None, "to": 5},
                                                                "cases_per_day": {"from": None, "to": 0}}}

    again = admin.post(f"/team/clients/{bot.pk}/limits", {"requests_per_second": "5", "cases_per_day": "0"},
                       follow=True)
    assert "Nothing changed." in again.content.decode()
    assert AuditEvent.objects.filter(action="client.limits_changed").count() == 1

    back = admin.post(f"/team/clients/{bot.pk}/limits", {"requests_per_second": "", "cases_per_day": "0"}, follow=True)
    assert _limits(bot) == (None, 0, None)
    assert _in_force(back.content.decode(), "requests_per_second") == "20 (default)"
    last = AuditEvent.objects.filter(action="client.limits_changed").order_by("id").last()
    assert last.payload["changes"] == {"requests_per_second": {"from": 5, "to": None}}


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"requests_per_second": "-1"}, "requests_per_second",
         "Requests per second: Ensure this value is greater than or equal to 0."),
        ({"cases_per_day": "many"}, "cases_per_day", "Cases per day: Enter a whole number."),
        ({"body_bytes_per_day": "1.5"}, "body_bytes_per_day", "Body bytes per day: Enter a whole number."),
        ({"requests_per_second": "100001"}, "requests_per_second",
         "Requests per second: Ensure this value is less than or equal to 100000."),
        ({"cases_per_day": "3000000000"}, "cases_per_day",
         "Cases per day: Ensure this value is less than or equal to 2147483647."),
    ],
)
def test_a_bad_limit_is_refused_naming_the_field_and_nothing_changes(admin, bot, fields, field, message):
    admin.post(f"/team/clients/{bot.pk}/limits", {"requests_per_second": "7"})
    before = _limits(bot), AuditEvent.objects.count()

    refused = admin.post(f"/team/clients/{bot.pk}/limits", {"requests_per_second": "7", **fields})

    assert refused.status_code == 400
    page = refused.content.decode()
    assert f'<p class="error" role="alert">{message}</p>' in page
    # The refused value is shown back in its field, to be corrected.
    assert re.search(rf'name="{field}" value="{re.escape(fields[field])}"', page)
    assert (_limits(bot), AuditEvent.objects.count()) == before


def test_only_a_team_admin_sets_limits_and_only_by_post(admin, bot, reviewer, support_lead, team_admin):
    for user in (reviewer, support_lead):
        browser = Browser()
        browser.force_login(user)
        assert browser.post(f"/team/clients/{bot.pk}/limits", {"requests_per_second": "1"}).status_code == 403
    assert admin.get(f"/team/clients/{bot.pk}/limits").status_code == 405
    strict = Browser(enforce_csrf_checks=True)
    strict.force_login(team_admin)
    assert strict.post(f"/team/clients/{bot.pk}/limits", {"requests_per_second": "1"}).status_code == 403
    assert _limits(bot) == (None, None, None)
    assert admin.post("/team/clients/999999/limits", {"requests_per_second": "1"}).status_code == 404
