"""A real headless Chromium (Debian's, at /usr/bin/chromium) driven by Playwright."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.browser.session import sign_in


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
