"""`manage.py user`: the first admin and everyone after, from the command line, audited."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from reviewconsole.audit.models import AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(monkeypatch):
    def run(*args: str, stdin: str = "") -> str:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        out = io.StringIO()
        call_command("user", *args, stdout=out)
        return out.getvalue()

    return run


def test_the_first_admin_is_added_with_a_link_that_lets_them_choose_a_password_and_open_the_people_page(run):
    out = run("add", "alice", "--role", "team-admin", "--email", "alice@example.com")
    assert "Added alice (team admin)." in out
    link = out.split("(works once, for 24 hours): ")[1].strip()
    assert link.startswith("http://127.0.0.1:8000/set-password/")
    client = Client()
    form = client.get(link.removeprefix("http://127.0.0.1:8000"), follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": "correct-horse-77", "new_password2": "correct-horse-77"})
    signed_in = client.post("/login/", {"username": "alice", "password": "correct-horse-77"}, follow=True)
    assert signed_in.redirect_chain[-1][0] == "/team/people/"
    event = AuditEvent.objects.get(action="person.added")
    assert event.actor == "system:manage.py" and event.payload["roles"] == ["team admin"]


def test_a_password_can_come_from_standard_input_instead_of_a_link(run):
    out = run("add", "bob", "--role", "reviewer", "--password-stdin", stdin="a-long-secret-phrase\n")
    assert "works once" not in out
    assert Client().post("/login/", {"username": "bob", "password": "a-long-secret-phrase"}).status_code == 302


def test_roles_are_granted_and_revoked_and_accounts_deactivated(run, reviewer):
    assert "roles now: support lead" in run("roles", "rita", "--grant", "support lead", "--revoke", "reviewer")
    assert "rita deactivated." in run("deactivate", "RITA")
    assert "rita\tdeactivated\tsupport lead" in run("list")
    assert "rita reactivated." in run("reactivate", "rita")
    actions = list(AuditEvent.objects.order_by("id").values_list("action", flat=True))
    assert actions == ["person.roles_changed", "person.deactivated", "person.reactivated"]


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (("add", "carol", "--role", "overlord"), "",
         "--role: no role 'overlord'; roles are: reviewer, review-lead, policy-admin"),
        (("add", "has space", "--role", "reviewer"), "", "username: Enter a valid username"),
        (("add", "dave", "--password-stdin"), "\n", "--password-stdin: standard input held no password"),
        (("add", "dave", "--password-stdin"), "short\n", "password: This password is too short"),
        (("roles", "nobody", "--grant", "reviewer"), "", "USERNAME: nobody is called 'nobody'"),
        (("roles", "rita"), "", "roles: give --grant ROLE or --revoke ROLE"),
        (("roles", "rita", "--grant", "reviewer", "--revoke", "reviewer"), "",
         "--grant and --revoke both name reviewer"),
    ],
)
def test_bad_arguments_are_refused_naming_the_argument_and_nothing_changes(run, reviewer, args, stdin, message):
    before = User.objects.count(), AuditEvent.objects.count()
    with pytest.raises(CommandError) as refused:
        run(*args, stdin=stdin)
    assert message in str(refused.value)
    assert (User.objects.count(), AuditEvent.objects.count()) == before


def test_the_last_team_admin_cannot_be_removed_from_the_command_line_either(run):
    run("add", "alice", "--role", "team-admin")
    with pytest.raises(CommandError, match="roles: this is the last active team admin"):
        run("roles", "alice", "--revoke", "team-admin")
    with pytest.raises(CommandError, match="active: this is the last active team admin"):
        run("deactivate", "alice")
    run("add", "zoe", "--role", "team-admin")
    assert "alice deactivated." in run("deactivate", "alice")
