"""The webhook deliveries page: what was sent where, what failed and why, and sending it again."""

from __future__ import annotations

import pytest
from django.test import Client as Browser

from reviewconsole.audit.models import AuditEvent
from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery
from reviewconsole.webhooks.services import CASE_RELEASED
from tests.reviewconsole.webhooks.conftest import make_client


@pytest.fixture
def admin(team_admin) -> Browser:
    browser = Browser()
    browser.force_login(team_admin)
    return browser


def _failed(record_sent, case, receiver, settings) -> WebhookDelivery:
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.respond(503)
    delivery = record_sent(case, CASE_RELEASED)
    assert delivery.status == DeliveryStatus.FAILED
    return delivery


def test_a_failed_delivery_shows_its_error_and_is_sent_again_signed(
    admin, case, receiver, record_sent, settings, django_capture_on_commit_callbacks
):
    delivery = _failed(record_sent, case, receiver, settings)
    page = admin.get("/team/webhooks/", {"status": "FAILED"}).content.decode()
    assert "acme" in page and f"#{case.pk}" in page and "Failed" in page and "503" in page
    # The id the client saw in its webhook-id header, for a client asking after one message.
    assert delivery.message_id in page
    assert "Send again" in page

    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(f"/team/webhooks/{delivery.pk}/resend", {"back": "/team/webhooks/?status=FAILED"})
    assert response.status_code == 302 and response["Location"] == "/team/webhooks/?status=FAILED"
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 1
    assert len(receiver.requests) == 2
    resent = receiver.requests[-1]
    assert resent.verify_error == "" and resent.headers["webhook-id"] == delivery.message_id
    event = AuditEvent.objects.get(action="webhook.resent")
    assert event.actor == "user:tina" and event.case_id == case.pk
    assert event.payload["message_id"] == delivery.message_id


def test_only_a_failed_delivery_is_sent_again(admin, case, receiver, record_sent):
    delivery = record_sent(case, CASE_RELEASED)
    assert delivery.status == DeliveryStatus.DELIVERED
    page = admin.post(f"/team/webhooks/{delivery.pk}/resend", follow=True).content.decode()
    assert "only a failed or pending delivery is sent again" in page
    assert len(receiver.requests) == 1 and not AuditEvent.objects.filter(action="webhook.resent").exists()


def test_deliveries_filter_by_client_and_status_and_bad_filters_are_named(admin, case, receiver, record_sent, settings):
    record_sent(case, CASE_RELEASED)
    other = make_client("globex", webhook_url=receiver.url, webhook_secret=receiver.secret)
    other_case = case.__class__.objects.create(client=other, question="q")
    record_sent(other_case, CASE_RELEASED)
    only_globex = admin.get("/team/webhooks/", {"client": other.pk}).context["page"].object_list
    assert [d.client.name for d in only_globex] == ["globex"]
    assert len(admin.get("/team/webhooks/").context["page"].object_list) == 2
    assert not admin.get("/team/webhooks/", {"status": "FAILED"}).context["page"].object_list
    bad = admin.get("/team/webhooks/", {"status": "LOST", "client": "abc"})
    assert bad.status_code == 400
    assert "Status:" in bad.content.decode() and "Client:" in bad.content.decode()


def test_the_webhooks_page_is_for_team_admins_and_resending_needs_csrf(
    reviewer, policy_admin, support_lead, case, receiver, record_sent, settings, team_admin
):
    delivery = _failed(record_sent, case, receiver, settings)
    for user in (reviewer, policy_admin, support_lead):
        browser = Browser()
        browser.force_login(user)
        assert browser.get("/team/webhooks/").status_code == 403
        assert browser.post(f"/team/webhooks/{delivery.pk}/resend").status_code == 403
    strict = Browser(enforce_csrf_checks=True)
    strict.force_login(team_admin)
    assert strict.post(f"/team/webhooks/{delivery.pk}/resend").status_code == 403
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED and len(receiver.requests) == 1
