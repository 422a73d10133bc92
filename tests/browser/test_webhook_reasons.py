"""The Webhooks page, in a real headless Chromium: each delivery says how its last attempt went in a few
words of ours, and never shows what the receiver answered (an internal service's page, say)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Case
from reviewconsole.webhooks.models import DeliveryStatus
from reviewconsole.webhooks.services import CASE_RELEASED, webhook_event_record
from tests.browser.session import sign_in
from tests.personas import _user_with
from tests.reviewconsole.webhooks.conftest import make_client, receiver  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECRET_PAGE = "INTERNAL-ONLY-7731 redis_version:7.2.4"


@pytest.fixture
def team_admin(db) -> User:
    return _user_with("tina", Role.TEAM_ADMIN)


def test_the_deliveries_page_shows_the_reason_and_never_the_receivers_answer(
    page,
    team_admin,
    receiver,  # noqa: F811
    settings,
):
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.answer = SECRET_PAGE.encode()
    receiver.respond(500)
    answered = make_client("acme", webhook_url=receiver.url, webhook_secret=receiver.secret)
    failed = webhook_event_record(
        case=Case.objects.create(client=answered, question="Q?"), event_type=CASE_RELEASED, payload={}
    )
    # A URL stored before destinations were checked at save: the send refuses it, reaching nothing.
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    inside = make_client("inside", webhook_url=f"http://localhost:{receiver.port}/hooks")
    refused = webhook_event_record(
        case=Case.objects.create(client=inside, question="Q?"), event_type=CASE_RELEASED, payload={}
    )
    for delivery in (failed, refused):
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.FAILED
    assert len(receiver.requests) == 1

    sign_in(page, "tina")
    page.goto("/team/webhooks/?status=FAILED")

    rows = {row.locator("td").nth(1).inner_text(): row for row in page.locator("#deliveries tbody tr").all()}
    assert set(rows) == {"acme", "inside"}
    assert rows["acme"].locator(".delivery-reason").inner_text() == "HTTP 500 Internal Server Error"
    assert re.fullmatch(
        r"refused: localhost resolves to a loopback address (127\.0\.0\.1|::1)",
        rows["inside"].locator(".delivery-reason").inner_text(),
    )
    assert "Failed" in rows["inside"].inner_text()
    assert "INTERNAL-ONLY-7731" not in page.content()
