"""The People page: a team admin adds people, sets their roles and deactivates them; all audited."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from reviewconsole.audit.models import AuditEvent

pytestmark = pytest.mark.django_db


def _signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _choose_password(client: Client, form_url: str, password: str):
    return client.post(form_url, {"new_password1": password, "new_password2": password}, follow=True)


def test_an_admin_adds_a_reviewer_who_sets_a_password_through_the_link_and_signs_in(team_admin):
    admin = _signed_in(team_admin)
    response = admin.post("/team/people/", {"username": "rhea", "email": "rhea@example.com", "roles": ["reviewer"]})
    assert response.status_code == 200
    link = response.context["link"]
    assert "/set-password/" in link and link in response.content.decode()
    rhea = User.objects.get(username="rhea")
    assert not rhea.has_usable_password()
    assert set(rhea.groups.values_list("name", flat=True)) == {"reviewer"}

    newcomer = Client()
    form = newcomer.get(link.removeprefix("http://testserver"), follow=True)
    assert "Choose a password" in form.content.decode()
    done = _choose_password(newcomer, form.redirect_chain[-1][0], "a-long-passphrase-9")
    assert "Password set" in done.content.decode()
    signed_in = newcomer.post("/login/", {"username": "rhea", "password": "a-long-passphrase-9"}, follow=True)
    assert signed_in.redirect_chain[-1][0] == "/review/"
    # The link worked once.
    again = Client().get(link.removeprefix("http://testserver"), follow=True)
    assert "no longer valid" in again.content.decode()

    event = AuditEvent.objects.get(action="person.added")
    assert event.actor == "user:tina" and event.payload["roles"] == ["reviewer"] and event.payload["invited"] is True


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"username": "", "roles": ["reviewer"]}, "username", "This field is required"),
        ({"username": "has space", "roles": ["reviewer"]}, "username", "valid username"),
        ({"username": "RITA", "roles": ["reviewer"]}, "username", "is taken"),
        ({"username": "newbie", "email": "not-mail", "roles": ["reviewer"]}, "email", "valid email"),
        ({"username": "newbie", "roles": ["overlord"]}, "roles", "not one of the available choices"),
    ],
)
def test_a_bad_person_is_refused_with_the_field_named_and_nothing_stored(team_admin, reviewer, fields, field, message):
    before = User.objects.count(), AuditEvent.objects.count()
    response = _signed_in(team_admin).post("/team/people/", fields)
    assert response.status_code == 400
    assert message in " ".join(response.context["form"].errors[field])
    assert f"{field.capitalize()}:" in response.content.decode()
    assert (User.objects.count(), AuditEvent.objects.count()) == before


def test_roles_are_given_and_taken_and_the_change_is_audited(team_admin, reviewer):
    admin = _signed_in(team_admin)
    response = admin.post(f"/team/people/{reviewer.pk}/", {"roles": ["support lead", "policy admin"]}, follow=True)
    assert "Roles of rita saved." in response.content.decode()
    assert set(reviewer.groups.values_list("name", flat=True)) == {"support lead", "policy admin"}
    event = AuditEvent.objects.get(action="person.roles_changed")
    assert event.payload == {"username": "rita", "added": ["policy admin", "support lead"], "removed": ["reviewer"]}
    # Rita's next page load sees her new roles: the audit trail opens, the queue does not.
    rita = _signed_in(reviewer)
    assert rita.get("/audit/").status_code == 200
    assert rita.get("/review/").status_code == 403


def test_the_last_team_admin_cannot_be_demoted_or_deactivated(team_admin):
    admin = _signed_in(team_admin)
    response = admin.post(f"/team/people/{team_admin.pk}/", {"roles": ["reviewer"]})
    assert response.status_code == 400
    assert "last active team admin" in response.content.decode()
    assert team_admin.groups.filter(name="team admin").exists()
    response = admin.post(f"/team/people/{team_admin.pk}/active", {"active": "0"}, follow=True)
    assert "cannot deactivate your own account" in response.content.decode()
    team_admin.refresh_from_db()
    assert team_admin.is_active


def test_a_deactivated_reviewers_open_session_stops_at_once_and_reactivation_restores_sign_in(team_admin, reviewer):
    rita = Client()
    assert rita.post("/login/", {"username": "rita", "password": "rita-password"}).status_code == 302
    assert rita.get("/review/").status_code == 200

    admin = _signed_in(team_admin)
    page = admin.post(f"/team/people/{reviewer.pk}/active", {"active": "0"}, follow=True)
    assert "rita can no longer sign in" in page.content.decode()
    assert "Deactivated: cannot sign in" in page.content.decode()

    assert rita.get("/review/").status_code == 302  # sent to sign in: the session is no longer hers
    assert rita.post("/login/", {"username": "rita", "password": "rita-password"}).status_code == 200

    admin.post(f"/team/people/{reviewer.pk}/active", {"active": "1"})
    assert rita.post("/login/", {"username": "rita", "password": "rita-password"}).status_code == 302
    actions = [event.action for event in AuditEvent.objects.order_by("id")]
    assert actions == ["person.deactivated", "person.reactivated"]


def test_a_new_link_works_and_the_old_one_stops_once_the_password_is_set(team_admin, reviewer):
    admin = _signed_in(team_admin)
    link = admin.post(f"/team/people/{reviewer.pk}/invite").context["link"].removeprefix("http://testserver")
    person = Client()
    form = person.get(link, follow=True)
    _choose_password(person, form.redirect_chain[-1][0], "another-long-phrase-3")
    assert Client().post("/login/", {"username": "rita", "password": "another-long-phrase-3"}).status_code == 302
    assert "no longer valid" in Client().get(link, follow=True).content.decode()


@pytest.mark.parametrize("path", ["/team/people/", "/team/people/{pk}/"])
def test_only_team_admins_open_the_people_pages(path, reviewer, policy_admin, support_lead, outsider, team_admin):
    url = path.format(pk=reviewer.pk)
    for user in (reviewer, policy_admin, support_lead, outsider):
        response = _signed_in(user).get(url)
        assert response.status_code == 403, user.username
    assert _signed_in(team_admin).get(url).status_code == 200
    assert Client().get(url).status_code == 302


@pytest.mark.parametrize("path", ["/team/people/", "/team/people/{pk}/", "/team/people/{pk}/active",
                                  "/team/people/{pk}/invite"])
def test_people_writes_need_the_csrf_token(path, team_admin, reviewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(team_admin)
    before = AuditEvent.objects.count()
    response = client.post(path.format(pk=reviewer.pk), {"username": "x", "roles": ["reviewer"], "active": "0"})
    assert response.status_code == 403
    assert AuditEvent.objects.count() == before
    reviewer.refresh_from_db()
    assert reviewer.is_active


def test_a_team_admin_without_other_roles_lands_on_the_people_page(team_admin):
    response = _signed_in(team_admin).get("/", follow=True)
    assert response.redirect_chain[-1][0] == "/team/people/"
    assert "<h1>People</h1>" in response.content.decode()
