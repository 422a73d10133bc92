"""Every page that shows a secret tells browsers and proxies not to keep it (`Cache-Control: no-store`), so
neither Back, a browser's cache on a shared machine nor a caching proxy can show it again."""

from __future__ import annotations

import pytest
from django.test import Client as Browser

from reviewconsole.intake.models import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(team_admin) -> Browser:
    browser = Browser()
    browser.force_login(team_admin)
    return browser


def _not_stored(response) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return "no-store" in directives and "private" in directives


def test_a_new_clients_token_and_signing_secret_are_not_stored(admin):
    made = admin.post("/team/clients/", {"name": "support-bot", "webhook_url": "https://bot.example.com/hooks"})
    assert made.context["token"] in made.content.decode() and made.context["secret"] in made.content.decode()
    assert _not_stored(made)


def test_a_rotated_token_and_a_new_signing_secret_are_not_stored(admin):
    admin.post("/team/clients/", {"name": "support-bot"})
    client = Client.objects.get(name="support-bot")

    rotated = admin.post(f"/team/clients/{client.pk}/rotate", follow=True)
    assert rotated.context["token"] in rotated.content.decode()
    assert _not_stored(rotated)
    # The reload that no longer shows it is not kept either: it says the token is gone.
    assert _not_stored(admin.get(f"/team/clients/{client.pk}/token"))

    secret = admin.post(f"/team/clients/{client.pk}/", {"webhook_url": "https://bot.example.com/h", "new_secret": "on"})
    assert secret.context["secret"].startswith("whsec_") and secret.context["secret"] in secret.content.decode()
    assert _not_stored(secret)


def test_set_password_links_and_the_page_they_open_are_not_stored(admin, reviewer):
    added = admin.post("/team/people/", {"username": "rhea", "roles": ["reviewer"]})
    assert added.context["link"] in added.content.decode()
    assert _not_stored(added)
    renewed = admin.post(f"/team/people/{reviewer.pk}/invite")
    assert renewed.context["link"] in renewed.content.decode()
    assert _not_stored(renewed)

    # The link's own page (the token moves to the session, then the form is shown) is not kept either.
    opened = Browser().get(renewed.context["link"].removeprefix("http://testserver"), follow=True)
    assert "Choose a password" in opened.content.decode()
    assert _not_stored(opened)


def test_pages_without_a_secret_are_left_to_the_usual_rules(admin):
    # The header marks the secret pages; the lists that link to them show no secret.
    assert "no-store" not in admin.get("/team/clients/").get("Cache-Control", "")
