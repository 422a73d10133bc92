"""`manage.py demo`: one account per role with printed passwords that work, audited, and only in a database
that is the demo's; it never resets a password, reactivates anyone, or touches a team's people."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from reviewconsole.accounts.roles import Role, roles_of
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.demo import DEMO_CASE_FILES
from reviewconsole.intake.models import Case
from reviewconsole.intake.models import Client as ApiClient
from reviewconsole.intake.services import client_create
from reviewconsole.team import services
from reviewconsole.team.demo import DEMO_USERS
from tests.personas import _user_with
from tests.reviewconsole.subprocesses import run_manage

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(settings, tmp_path):
    """`manage.py demo` as `make demo` runs it (DEMO=1), without the demo cases unless a test wants them."""
    settings.DEMO = True
    settings.VAR_DIR = tmp_path
    settings.DEMO_CASE_LOADERS = []
    return tmp_path


def _signs_in(username: str, password: str) -> bool:
    """Whether the console's sign-in form lets this username and password in."""
    return Client().post("/login/", {"username": username, "password": password}).status_code == 302


def _run_demo(capsys) -> dict[str, str]:
    return {username: password for username, (password, _roles) in _run_demo_rows(capsys).items()}


def _run_demo_rows(capsys) -> dict[str, tuple[str, str]]:
    """Each printed account: username -> (password, the roles as printed, with any note)."""
    call_command("demo")
    printed = capsys.readouterr().out
    rows = [line.split(maxsplit=2) for line in printed.splitlines() if line.startswith("  ")]
    return {row[0]: (row[1], row[2]) for row in rows}


def _written() -> tuple[int, int, int, int]:
    return User.objects.count(), ApiClient.objects.count(), Case.objects.count(), AuditEvent.objects.count()


def test_demo_accounts_are_created_with_their_roles_and_printed_passwords_work(demo, capsys):
    rows = _run_demo_rows(capsys)
    printed = {username: password for username, (password, _roles) in rows.items()}

    assert set(printed) == {"reviewer", "lead", "policy", "support", "admin"}
    expected_roles = {"reviewer": {Role.REVIEWER}, "lead": {Role.REVIEWER, Role.REVIEW_LEAD},
                      "policy": {Role.POLICY_ADMIN}, "support": {Role.SUPPORT_LEAD}, "admin": {Role.TEAM_ADMIN}}
    for username, password in printed.items():
        assert _signs_in(username, password), username
        assert roles_of(User.objects.get(username=username)) == expected_roles[username]
    assert rows["lead"][1] == "Reviewer, review lead" and rows["policy"][1] == "Policy admin"
    assert json.loads((demo / "demo-accounts.json").read_text()) == printed
    assert (demo / "demo-accounts.json").stat().st_mode & 0o777 == 0o600


def test_what_the_demo_writes_is_audited_and_a_second_run_writes_nothing_new(demo, settings, capsys,
                                                                               django_capture_on_commit_callbacks):
    settings.DEMO_CASE_LOADERS = ["reviewconsole.intake.demo.load_demo_cases"]
    with django_capture_on_commit_callbacks(execute=True):
        first = _run_demo(capsys)

    added = AuditEvent.objects.filter(action="person.added").order_by("id")
    assert [(event.actor, event.payload["username"], event.payload["invited"]) for event in added] == [
        ("system:demo", username, False) for username in DEMO_USERS
    ]
    assert added.get(object_id=str(User.objects.get(username="lead").pk)).payload["roles"] == [
        "review lead", "reviewer"
    ]
    client_event = AuditEvent.objects.get(action="client.created")
    assert (client_event.actor, client_event.payload["name"]) == ("system:demo", "demo-assistant")
    mark = AuditEvent.objects.get(action="demo.installed")
    assert mark.actor == "system:demo" and mark.payload == {"accounts": list(DEMO_USERS), "client": "demo-assistant"}
    # The demo cases come in as any client's submissions do.
    demo_cases = sum(len(json.loads(path.read_text())) for path in DEMO_CASE_FILES)
    assert AuditEvent.objects.filter(action="case.received", actor="client:demo-assistant").count() == demo_cases
    assert all(json.dumps(first[name]) not in json.dumps(event.payload) for event in added for name in first)

    before = _written()
    with django_capture_on_commit_callbacks(execute=True):
        second = _run_demo(capsys)
    assert second == first
    assert _written() == before


def test_a_second_run_keeps_the_passwords_and_never_resets_one_chosen_since(demo, capsys):
    first = _run_demo(capsys)
    # The demo reviewer chose a password of their own (through a set-password link, say).
    reviewer = User.objects.get(username="reviewer")
    reviewer.set_password("chosen-since-the-demo-7")
    reviewer.save()

    rows = _run_demo_rows(capsys)

    assert {name: password for name, (password, _) in rows.items() if name != "reviewer"} == {
        name: password for name, password in first.items() if name != "reviewer"
    }
    assert rows["reviewer"] == ("(unchanged)", "Reviewer (its password is not the one in demo-accounts.json, "
                                               "and is left as it is)")
    assert _signs_in("reviewer", "chosen-since-the-demo-7") and not _signs_in("reviewer", first["reviewer"])


def test_a_deactivated_demo_account_stays_deactivated(demo, capsys):
    _run_demo(capsys)
    support = User.objects.get(username="support")
    services.person_active_set(actor="user:admin", user=support, active=False)

    rows = _run_demo_rows(capsys)

    support.refresh_from_db()
    assert not support.is_active
    assert rows["support"][1] == "Support lead (deactivated, and left so)"
    assert not AuditEvent.objects.filter(action="person.reactivated").exists()


@pytest.mark.parametrize("active", [True, False], ids=["active", "deactivated"])
def test_a_database_holding_another_person_is_refused_and_nothing_written(demo, capsys, active):
    _run_demo(capsys)
    alice = _user_with("alice", Role.TEAM_ADMIN)
    alice.is_active = active
    alice.save()
    before, credentials = _written(), (demo / "demo-accounts.json").read_text()

    with pytest.raises(CommandError) as refused:
        call_command("demo")

    who = "alice" if active else "alice (deactivated)"
    assert str(refused.value) == (
        f"refused, nothing written: this database is not the demo's: it holds 1 person who is not a demo account: "
        f"{who}. The demo fills a database of its own: run it with a new VAR_DIR (or remove the demo's "
        "var/reviewconsole.sqlite3)"
    )
    assert _written() == before
    assert (demo / "demo-accounts.json").read_text() == credentials


def test_a_teams_database_is_refused_even_where_its_people_share_the_demos_names(demo):
    # Not the demo's: no demo.installed mark, and not new. Its "admin" keeps its password and its roles.
    admin = _user_with("admin", Role.TEAM_ADMIN)
    client_create(name="support-bot")
    for name in ("bob", "carol"):
        _user_with(name, Role.REVIEWER)
    before = _written()

    with pytest.raises(CommandError) as refused:
        call_command("demo")

    assert "it holds 2 people who are not a demo account: bob, carol" in str(refused.value)
    assert ("no earlier `manage.py demo` made it (it has no demo.installed event), and it is not new: it holds "
            "3 people and 1 API client") in str(refused.value)
    assert _written() == before
    assert _signs_in("admin", "admin-password") and roles_of(admin) == {Role.TEAM_ADMIN}
    assert not (demo / "demo-accounts.json").exists()


def test_a_database_with_an_api_client_and_no_mark_is_refused(demo):
    client_create(name="support-bot")

    with pytest.raises(CommandError, match="it is not new: it holds 0 people and 1 API client"):
        call_command("demo")
    assert not User.objects.exists()


def test_a_client_added_to_the_demo_database_does_not_stop_the_demo(demo, capsys):
    # The README's `manage.py create_client support-bot` on the demo console: the mark says whose it is.
    first = _run_demo(capsys)
    client_create(name="support-bot")
    assert _run_demo(capsys) == first


def test_demo_is_refused_outside_demo_mode_even_in_debug_mode(db, settings, tmp_path):
    settings.DEMO = False
    settings.DEBUG = True
    settings.VAR_DIR = tmp_path
    with pytest.raises(CommandError, match="DEMO=1"):
        call_command("demo")
    assert not User.objects.exists()
    assert not (tmp_path / "demo-accounts.json").exists()


def test_manage_py_demo_exits_non_zero_and_says_why_on_a_database_with_other_people(tmp_path):
    # As an operator runs it: the refusal is one line on stderr and the exit code is 1.
    for command in (["migrate", "--no-input", "-v0"], ["user", "add", "alice", "--role", "reviewer"]):
        done = run_manage(command, {"DEMO": "1"}, tmp_path)
        assert done.returncode == 0, done.stderr

    refused = run_manage(["demo"], {"DEMO": "1"}, tmp_path)

    assert refused.returncode == 1
    assert refused.stderr.startswith("CommandError: refused, nothing written: this database is not the demo's: it "
                                     "holds 1 person who is not a demo account: alice; no earlier `manage.py demo`")
    assert not (tmp_path / "demo-accounts.json").exists()
