"""Signing a persona in through the real login form."""

from __future__ import annotations

from tests.personas import PASSWORD_SUFFIX


def sign_in(page, username: str) -> None:
    """Sign in and wait until the console (with its deferred script) has loaded the landing page."""
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"{username}{PASSWORD_SUFFIX}")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Sign out").wait_for()
    page.wait_for_load_state("load")  # console.js (deferred) listens for keys from here on
