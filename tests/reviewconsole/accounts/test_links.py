"""Set-password links: only the newest works, a deactivation or a change of roles voids them, and they expire
after SET_PASSWORD_LINK_HOURS. Links are made and used the way people do: on the People page, then opened."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from reviewconsole.accounts.links import set_password_path, set_password_tokens
from reviewconsole.accounts.roles import Role
from tests.personas import _user_with
from tests.reviewconsole.subprocesses import run_manage

pytestmark = pytest.mark.django_db

HOUR = 3600


@pytest.fixture
def admin(db) -> Client:
    browser = Client()
    browser.force_login(_user_with("tina", Role.TEAM_ADMIN))
    return browser


def _link(admin: Client, person: User) -> str:
    """A new link for `person`, as a team admin makes it on their page."""
    return admin.post(f"/team/people/{person.pk}/invite").context["link"].removeprefix("http://testserver")


def _opens(link: str) -> bool:
    """Whether the link opens the form to choose a password (else the page says it is no longer valid)."""
    html = Client().get(link, follow=True).content.decode()
    assert ('name="new_password1"' in html) != ("no longer valid" in html)
    return 'name="new_password1"' in html


def _sets_password(link: str, password: str) -> bool:
    browser = Client()
    form = browser.get(link, follow=True)
    # A good link moves its token to the session and redirects to the form; a void one answers at once.
    form_url = form.redirect_chain[-1][0] if form.redirect_chain else link
    browser.post(form_url, {"new_password1": password, "new_password2": password})
    return Client().post("/login/", {"username": "rita", "password": password}).status_code == 302


def test_a_newer_link_voids_the_older_one(admin, reviewer):
    older = _link(admin, reviewer)
    assert _opens(older)
    newer = _link(admin, reviewer)

    assert not _opens(older)
    assert not _sets_password(older, "older-link-phrase-1")
    assert _sets_password(newer, "newer-link-phrase-2")


def test_two_links_made_in_the_same_second_differ(reviewer):
    # A token starts with the second it was made in; make pairs until a pair shares one (the first, nearly always).
    for _ in range(5):
        first, second = set_password_path(reviewer), set_password_path(reviewer)
        if first.split("/")[-2].split("-")[0] == second.split("/")[-2].split("-")[0]:
            break
    else:
        pytest.fail("no two links were made within one second")
    assert first != second
    assert not _opens(first) and _opens(second)


def test_a_link_made_before_a_deactivation_stays_void_after_the_reactivation(admin, reviewer):
    link = _link(admin, reviewer)
    admin.post(f"/team/people/{reviewer.pk}/active", {"active": "0"})
    admin.post(f"/team/people/{reviewer.pk}/active", {"active": "1"})
    reviewer.refresh_from_db()

    assert reviewer.is_active
    assert not _opens(link)
    assert _opens(_link(admin, reviewer))


@pytest.mark.parametrize(
    ("held", "wanted"),
    [
        ([Role.REVIEWER], ["reviewer", "team admin"]),  # one given
        ([Role.REVIEWER, Role.REVIEW_LEAD], ["reviewer"]),  # one taken away
        ([Role.REVIEWER], ["support lead"]),  # one for another
    ],
)
def test_any_change_of_roles_voids_the_links_made_before(admin, held, wanted):
    person = _user_with("lena", *held)
    link = _link(admin, person)
    response = admin.post(f"/team/people/{person.pk}/", {"roles": wanted}, follow=True)
    assert "Roles of lena saved." in response.content.decode()

    assert not _opens(link)
    assert _opens(_link(admin, person))


def test_saving_the_same_roles_leaves_the_link_working(admin, reviewer):
    link = _link(admin, reviewer)
    response = admin.post(f"/team/people/{reviewer.pk}/", {"roles": ["reviewer"]}, follow=True)
    assert "Nothing changed." in response.content.decode()

    assert _opens(link)


def _made_ago(person: User, seconds: int) -> str:
    """The newest link of `person` as it would read had it been made `seconds` ago."""
    newest = set_password_path(person)
    tokens = set_password_tokens
    made_at = tokens._num_seconds(tokens._now()) - seconds
    return newest.replace(newest.split("/")[-2], tokens._make_token_with_timestamp(person, made_at, tokens.secret))


def test_a_link_expires_after_24_hours_by_default(settings, reviewer):
    assert settings.SET_PASSWORD_LINK_HOURS == 24 and settings.PASSWORD_RESET_TIMEOUT == 24 * HOUR
    assert _opens(_made_ago(reviewer, 23 * HOUR))
    assert not _opens(_made_ago(reviewer, 25 * HOUR))


def test_a_shorter_lifetime_is_honoured(settings, reviewer):
    settings.PASSWORD_RESET_TIMEOUT = 2 * HOUR  # what SET_PASSWORD_LINK_HOURS=2 sets (below)
    assert _opens(_made_ago(reviewer, HOUR))
    assert not _opens(_made_ago(reviewer, 3 * HOUR))


def test_the_lifetime_is_read_from_set_password_link_hours(tmp_path):
    show = "from django.conf import settings; print(settings.SET_PASSWORD_LINK_HOURS, settings.PASSWORD_RESET_TIMEOUT)"
    result = run_manage(["shell", "-c", show], {"DEMO": "1", "SET_PASSWORD_LINK_HOURS": "2"}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "2 7200"
    refused = run_manage(["check"], {"DEMO": "1", "SET_PASSWORD_LINK_HOURS": "0"}, tmp_path)
    assert "configuration error: SET_PASSWORD_LINK_HOURS must be at least 1, got 0" in refused.stderr
