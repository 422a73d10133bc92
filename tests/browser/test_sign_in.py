"""The demo reviewer signs in through a real browser and lands on the console."""

from __future__ import annotations

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_demo_reviewer_signs_in_and_out(page, settings, tmp_path, capsys):
    settings.DEMO = True
    settings.VAR_DIR = tmp_path
    call_command("demo")
    password = next(line.split()[1] for line in capsys.readouterr().out.splitlines() if line.startswith("  reviewer"))

    page.goto("/")
    assert page.url.endswith("/login/?next=/")
    page.get_by_label("Username").fill("reviewer")
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()

    # A reviewer's home is the queue.
    page.get_by_role("heading", name="Review queue").wait_for()
    assert "reviewer · reviewer" in page.locator(".who").inner_text()
    # The stylesheet is served locally (no CDN): the top bar is styled.
    assert page.locator(".topbar").evaluate("e => getComputedStyle(e).display") == "flex"

    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("heading", name="Sign in").wait_for()


def test_wrong_password_is_refused_in_the_browser(page, reviewer):
    page.goto("/login/")
    page.get_by_label("Username").fill("rita")
    page.get_by_label("Password").fill("not-her-password")
    page.get_by_role("button", name="Sign in").click()
    assert "correct username and password" in page.get_by_role("alert").inner_text()
