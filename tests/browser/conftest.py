"""A real headless Chromium (Debian's, at /usr/bin/chromium) driven by Playwright."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.session import sign_in

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

# Playwright's sync API runs an event loop in the test thread; the database calls the tests make
# around it are still synchronous, so Django's async guard does not apply.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing: `make test` installs it (bin/ensure-services)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture
def as_person(browser, live_server):
    """A page of its own per person: each signs in in a separate browser context, as on separate machines."""
    contexts = []

    def open_as(username: str):
        context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        sign_in(page, username)
        return page

    yield open_as
    for context in contexts:
        context.close()
