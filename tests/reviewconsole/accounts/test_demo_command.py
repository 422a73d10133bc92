"""`manage.py demo` creates one account per role, prints working passwords, and can run twice."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from reviewconsole.accounts.roles import Role, roles_of


def _signs_in(username: str, password: str) -> bool:
    """Whether the console's sign-in form lets this username and password in."""
    return Client().post("/login/", {"username": username, "password": password}).status_code == 302


def _run_demo(capsys) -> dict[str, str]:
    return {username: password for username, (password, _roles) in _run_demo_rows(capsys).items()}


def _run_demo_rows(capsys) -> dict[str, tuple[str, str]]:
    """Each printed account: username -> (password, the roles as printed)."""
    call_command("demo")
    printed = capsys.readouterr().out
    rows = [line.split(maxsplit=2) for line in printed.splitlines() if line.startswith("  ")]
    return {row[0]: (row[1], row[2]) for row in rows}


def test_demo_accounts_are_created_with_their_roles_and_printed_passwords_work(db, settings, tmp_path, capsys):
    settings.DEMO = True
    settings.VAR_DIR = tmp_path

    rows = _run_demo_rows(capsys)
    printed = {username: password for username, (password, _roles) in rows.items()}

    assert set(printed) == {"reviewer", "lead", "policy", "support", "admin"}
    expected_roles = {"reviewer": {Role.REVIEWER}, "lead": {Role.REVIEWER, Role.REVIEW_LEAD},
                      "policy": {Role.POLICY_ADMIN}, "support": {Role.SUPPORT_LEAD}, "admin": {Role.TEAM_ADMIN}}
    for username, password in printed.items():
        assert _signs_in(username, password), username
        assert roles_of(User.objects.get(username=username)) == expected_roles[username]
    assert rows["lead"][1] == "Reviewer, review lead" and rows["policy"][1] == "Policy admin"
    assert json.loads((tmp_path / "demo-accounts.json").read_text()) == printed


def test_running_demo_twice_keeps_the_same_accounts_and_passwords(db, settings, tmp_path, capsys):
    settings.DEMO = True
    settings.VAR_DIR = tmp_path

    first = _run_demo(capsys)
    second = _run_demo(capsys)

    assert first == second
    assert User.objects.filter(username__in=first).count() == 5
    assert _signs_in("reviewer", second["reviewer"])


def test_demo_is_refused_outside_demo_or_debug_mode(db, settings, tmp_path):
    settings.DEMO = False
    settings.DEBUG = False
    settings.VAR_DIR = tmp_path
    with pytest.raises(CommandError, match="DEMO=1"):
        call_command("demo")
    assert not User.objects.exists()
    assert not (tmp_path / "demo-accounts.json").exists()
