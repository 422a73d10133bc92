"""Running the console for a team, in a real headless Chromium: people, deactivation, webhook resends."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import Decision
from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery
from reviewconsole.webhooks.services import CASE_RELEASED, webhook_event_record
from tests.browser.session import sign_in
from tests.personas import _user_with
from tests.reviewconsole.review.conftest import escalate_case, refund_case
from tests.reviewconsole.webhooks.conftest import case, hooked_client, receiver  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def team_admin(db) -> User:
    return _user_with("tina", Role.TEAM_ADMIN)


def test_an_admin_adds_a_reviewer_who_sets_a_password_signs_in_and_works_the_queue(
    browser, live_server, page, team_admin
):
    queued = escalate_case(client_create(name="support-bot")[0], refund_case())
    sign_in(page, "tina")
    page.goto("/team/people/")
    page.get_by_label("Username").fill("rhea")
    page.get_by_label("Reviewer").check()
    page.get_by_role("button", name="Add and make an invitation link").click()
    link = page.get_by_label("Set-password link").input_value()
    assert link.startswith(f"{live_server.url}/set-password/"), "the link names the address the console is served on"

    newcomer = browser.new_context(base_url=live_server.url).new_page()
    try:
        newcomer.goto(link)
        newcomer.get_by_label("New password").fill("a-long-passphrase-9")
        newcomer.get_by_label("The same again").fill("a-long-passphrase-9")
        newcomer.get_by_role("button", name="Set password").click()
        newcomer.get_by_role("heading", name="Password set").wait_for()
        newcomer.get_by_role("link", name="sign in").click()
        newcomer.get_by_label("Username").fill("rhea")
        newcomer.get_by_label("Password").fill("a-long-passphrase-9")
        newcomer.get_by_role("button", name="Sign in").click()
        newcomer.wait_for_url("**/review/")
        newcomer.wait_for_load_state("load")
        newcomer.keyboard.press("n")
        newcomer.wait_for_url(f"**/review/cases/{queued.pk}/")
        assert "You hold this case" in newcomer.locator("#lease").inner_text()
        newcomer.keyboard.press("r")
        reject = newcomer.locator("#decide-reject")
        reject.get_by_label("Note").fill("The answer promises a refund the policy does not give.")
        reject.get_by_role("button", name="Reject").click()
        newcomer.wait_for_url("**/review/**")
    finally:
        newcomer.context.close()
    decision = Decision.objects.get(case=queued)
    assert decision.reviewer.username == "rhea"

    page.goto("/team/people/")
    assert "rhea" in page.locator("#people").inner_text()


def test_a_deactivated_reviewers_open_session_stops_working(browser, live_server, page, team_admin, reviewer):
    rita = browser.new_context(base_url=live_server.url).new_page()
    try:
        sign_in(rita, "rita")
        rita.goto("/review/")
        rita.get_by_role("heading", name="Review queue").wait_for()

        sign_in(page, "tina")
        page.goto(f"/team/people/{reviewer.pk}/")
        page.get_by_role("link", name="Deactivate…").click()
        page.get_by_role("heading", name="Deactivate rita?").wait_for()
        assert User.objects.get(pk=reviewer.pk).is_active, "the first click only asks"
        page.get_by_role("button", name="Deactivate").click()
        assert "Deactivated: cannot sign in" in page.locator("#status").inner_text()

        rita.reload()
        rita.wait_for_url("**/login/**")
        assert rita.get_by_role("button", name="Sign in").is_visible()
    finally:
        rita.context.close()


def test_an_operator_sends_a_failed_webhook_again_and_the_receiver_gets_it_signed(
    page, team_admin, case, receiver, settings  # noqa: F811
):
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.respond(503)
    delivery = webhook_event_record(case=case, event_type=CASE_RELEASED, payload={"case_id": case.pk})
    # Tasks run in-process after the commit that enqueued them; the first attempt met the 503.
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED

    sign_in(page, "tina")
    page.goto("/team/webhooks/?status=FAILED")
    row = page.locator("#deliveries tbody tr").first
    assert "503" in row.inner_text()
    row.get_by_role("button", name="Send again").click()
    page.get_by_text("is being sent again").wait_for()

    assert WebhookDelivery.objects.get(pk=delivery.pk).status == DeliveryStatus.DELIVERED
    resent = receiver.requests[-1]
    assert len(receiver.requests) == 2
    assert resent.verify_error == "" and resent.verified["data"] == {"case_id": case.pk}


def test_an_operator_sends_a_pending_webhook_now_instead_of_waiting_for_its_retry(
    page, team_admin, case, receiver  # noqa: F811
):
    receiver.respond(503)
    delivery = webhook_event_record(case=case, event_type=CASE_RELEASED, payload={"case_id": case.pk})
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 1

    sign_in(page, "tina")
    page.goto("/team/webhooks/")
    row = page.locator("#deliveries tbody tr").first
    assert "Pending" in row.inner_text() and "503" in row.inner_text()
    row.get_by_role("button", name="Send again").click()
    page.get_by_text("is being sent again").wait_for()

    assert "Delivered" in page.locator("#deliveries tbody tr").first.inner_text()
    assert len(receiver.requests) == 2 and receiver.requests[-1].verify_error == ""
    event = AuditEvent.objects.get(action="webhook.resent")
    assert event.actor == "user:tina" and event.payload["was"] == "PENDING"


def test_rotating_a_token_asks_first_then_shows_the_new_one_once_and_a_reload_rotates_nothing(page, team_admin):
    client, old_token = client_create(name="support-bot")
    sign_in(page, "tina")
    page.goto(f"/team/clients/{client.pk}/")
    page.get_by_role("link", name="Rotate token…").click()
    page.get_by_role("heading", name="Rotate the token of support-bot?").wait_for()
    client.refresh_from_db()
    assert client.token_prefix == old_token[:12], "the first click only asks"

    page.get_by_role("button", name="Rotate token").click()
    page.wait_for_url(f"**/team/clients/{client.pk}/token")
    new_token = page.get_by_label("API token").input_value()
    client.refresh_from_db()
    assert new_token != old_token and client.token_prefix == new_token[:12]

    page.reload()
    assert page.get_by_label("API token").count() == 0
    assert "was shown once" in page.locator("main").inner_text()
    client.refresh_from_db()
    assert client.token_prefix == new_token[:12], "the reload rotated nothing"
    assert AuditEvent.objects.filter(action="client.token_rotated").count() == 1


def test_revoking_a_client_asks_first_and_cancel_leaves_it_working(page, team_admin):
    client, _ = client_create(name="support-bot")
    sign_in(page, "tina")
    page.goto(f"/team/clients/{client.pk}/")
    page.get_by_role("link", name="Revoke…").click()
    page.get_by_role("heading", name="Revoke support-bot?").wait_for()
    page.get_by_role("link", name="Cancel").click()
    assert "Active: its token works" in page.locator("#client-status").inner_text()
    client.refresh_from_db()
    assert client.is_active

    page.get_by_role("link", name="Revoke…").click()
    page.get_by_role("button", name="Revoke").click()
    assert "Revoked: its token is refused" in page.locator("#client-status").inner_text()
    assert AuditEvent.objects.filter(action="client.revoked").count() == 1


def test_an_admin_gives_a_client_its_own_limits_and_takes_them_back(page, team_admin, settings):
    settings.CLIENT_CASES_PER_DAY = 5000
    bot = client_create(name="support-bot")[0]
    sign_in(page, "tina")
    page.goto(f"/team/clients/{bot.pk}/")
    limits = page.locator("#client-limits")
    assert page.locator("#limit-cases_per_day").inner_text() == "5000 (default)"

    page.get_by_label("Cases per day").fill("-5")
    page.get_by_role("button", name="Save limits").click()
    # The browser holds a negative number back, saying why; nothing is sent.
    assert "greater than or equal to 0" in page.get_by_label("Cases per day").evaluate("e => e.validationMessage")
    bot.refresh_from_db()
    assert bot.cases_per_day is None

    page.get_by_label("Cases per day").fill("200")
    page.get_by_label("Requests per second").fill("0")
    page.get_by_role("button", name="Save limits").click()
    page.get_by_text("Limits of support-bot saved.").wait_for()
    assert page.locator("#limit-cases_per_day").inner_text() == "200"
    assert page.locator("#limit-requests_per_second").inner_text() == "no limit"

    page.get_by_label("Cases per day").fill("")
    page.get_by_role("button", name="Save limits").click()
    page.get_by_text("Limits of support-bot saved.").wait_for()
    assert limits.locator("#limit-cases_per_day").inner_text() == "5000 (default)"
    bot.refresh_from_db()
    assert (bot.cases_per_day, bot.requests_per_second) == (None, 0)
    events = AuditEvent.objects.filter(action="client.limits_changed").order_by("id")
    changes = [event.payload["changes"] for event in events]
    assert changes == [{"cases_per_day": {"from": None, "to": 200}, "requests_per_second": {"from": None, "to": 0}},
                       {"cases_per_day": {"from": 200, "to": None}}]
