"""`manage.py demo` creates one account per role, prints working passwords, and can run twice."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from reviewconsole.accounts.roles import Role, roles_of


def _run_demo(capsys) -> dict[str, str]:
    call_command("demo")
    printed = capsys.readouterr().out
    rows = [line.split() for line in printed.splitlines() if line.startswith("  ")]
    return {row[0]: row[1] for row in rows}


def test_demo_accounts_are_created_with_their_roles_and_printed_passwords_work(db, settings, tmp_path, capsys):
    settings.DEMO = True
    settings.VAR_DIR = tmp_path

    printed = _run_demo(capsys)

    assert set(printed) == {"reviewer", "policy", "support"}
    expected_roles = {"reviewer": Role.REVIEWER, "policy": Role.POLICY_ADMIN, "support": Role.SUPPORT_LEAD}
    for username, password in printed.items():
        user = authenticate(username=username, password=password)
        assert user is not None, username
        assert roles_of(user) == {expected_roles[username]}
    assert json.loads((tmp_path / "demo-accounts.json").read_text()) == printed


def test_running_demo_twice_keeps_the_same_accounts_and_passwords(db, settings, tmp_path, capsys):
    settings.DEMO = True
    settings.VAR_DIR = tmp_path

    first = _run_demo(capsys)
    second = _run_demo(capsys)

    assert first == second
    assert User.objects.filter(username__in=first).count() == 3
    assert authenticate(username="reviewer", password=second["reviewer"]) is not None


def test_demo_is_refused_outside_demo_or_debug_mode(db, settings, tmp_path):
    settings.DEMO = False
    settings.DEBUG = False
    settings.VAR_DIR = tmp_path
    with pytest.raises(CommandError, match="DEMO=1"):
        call_command("demo")
    assert not User.objects.exists()
    assert not (tmp_path / "demo-accounts.json").exists()
