"""Signing in and out, and what each persona sees on the home page."""

from __future__ import annotations

from django.contrib.auth.models import Group, User

from reviewconsole.accounts.roles import Role


def test_anonymous_visitors_are_sent_to_sign_in(client, db):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/"


def test_login_page_has_a_labelled_form(client, db):
    response = client.get("/login/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<label for="id_username">Username</label>' in html
    assert '<label for="id_password">Password</label>' in html
    assert "/static/css/console.css" in html
    assert "/static/django_htmx/htmx-2.min.js" in html


def test_wrong_password_shows_an_error_and_signs_nobody_in(client, reviewer):
    response = client.post("/login/", {"username": "rita", "password": "wrong"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_reviewer_signs_in_and_lands_on_the_queue(client, reviewer):
    response = client.post("/login/", {"username": "rita", "password": "rita-password"}, follow=True)
    assert response.redirect_chain == [("/", 302), ("/review/", 302)]
    html = response.content.decode()
    assert "<h1>Review queue</h1>" in html
    assert "rita · reviewer" in html


def test_a_single_role_lands_on_its_own_start_page(client, support_lead, policy_admin):
    client.force_login(support_lead)
    assert client.get("/")["Location"] == "/audit/"
    client.force_login(policy_admin)
    assert client.get("/")["Location"] == "/policy/"


def test_a_user_with_several_roles_sees_each_on_the_home_page(client, support_lead):
    support_lead.groups.add(Group.objects.get_or_create(name=Role.POLICY_ADMIN.value)[0])
    client.force_login(support_lead)
    html = client.get("/").content.decode()
    assert "Welcome, sam" in html
    assert "<strong>Policy admin</strong>, <strong>Support lead</strong>" in html
    assert 'href="/policy/"' in html and 'href="/audit/"' in html


def test_user_without_a_role_is_told_to_ask_for_one(client, outsider):
    client.force_login(outsider)
    assert "Your account has no role yet" in client.get("/").content.decode()


def test_usernames_are_escaped(client, db):
    user = User.objects.create_user(username="<b>x</b>", password="pw-123456789")
    client.force_login(user)
    html = client.get("/").content.decode()
    assert "<b>x</b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html


def test_sign_out_needs_post_and_ends_the_session(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/logout/").status_code == 405
    response = client.post("/logout/")
    assert response.status_code == 302
    assert client.get("/").status_code == 302


def test_a_page_asks_for_the_users_roles_once(client, policy_admin):
    # The access check, the navigation and the canary banner all need the roles.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(policy_admin)
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/policy/rule-health/")

    assert response.status_code == 200
    assert "Policy" in response.content.decode()
    assert sum(1 for query in queries if "auth_user_groups" in query["sql"]) == 1
