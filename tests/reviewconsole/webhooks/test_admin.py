"""The outbox in the admin: operators see what failed and why, and send it again."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery

CHANGELIST = "/admin/webhooks/webhookdelivery/"


@pytest.fixture
def operator(db) -> User:
    return User.objects.create_superuser("olga", "olga@example.com", "olga-password")


@pytest.fixture
def failed_delivery(case, receiver, record_sent, settings) -> WebhookDelivery:
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.respond(500)
    delivery = record_sent(case)
    assert delivery.status == DeliveryStatus.FAILED
    return delivery


def test_the_list_shows_status_event_attempts_and_last_error(client, operator, failed_delivery):
    client.force_login(operator)

    response = client.get(CHANGELIST, {"status__exact": "FAILED"})

    assert response.status_code == 200
    html = response.content.decode()
    assert failed_delivery.message_id in html
    assert "case.released" in html
    assert "Failed" in html
    assert "HTTP 500 Internal Server Error" in html
    assert response.context["cl"].result_count == 1
    assert client.get(CHANGELIST, {"status__exact": "DELIVERED"}).context["cl"].result_count == 0


def test_retry_now_sends_a_failed_delivery_again(
    client, operator, failed_delivery, receiver, django_capture_on_commit_callbacks
):
    client.force_login(operator)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            CHANGELIST, {"action": "retry_now", "_selected_action": [failed_delivery.pk]}, follow=True
        )

    assert response.status_code == 200
    assert "1 delivery(ies) put back to pending and queued to send." in response.content.decode()
    assert len(receiver.requests) == 2
    failed_delivery.refresh_from_db()
    assert failed_delivery.status == DeliveryStatus.DELIVERED


def test_retry_now_skips_deliveries_that_have_not_failed(client, operator, case, record_sent, receiver):
    delivered = record_sent(case)
    client.force_login(operator)

    response = client.post(CHANGELIST, {"action": "retry_now", "_selected_action": [delivered.pk]}, follow=True)

    assert "1 skipped: only failed or pending deliveries can be retried." in response.content.decode()
    assert len(receiver.requests) == 1
    delivered.refresh_from_db()
    assert delivered.status == DeliveryStatus.DELIVERED


def test_a_delivery_cannot_be_added_or_edited_by_hand(client, operator, failed_delivery):
    client.force_login(operator)

    assert client.get(f"{CHANGELIST}add/").status_code == 403
    page = client.get(f"{CHANGELIST}{failed_delivery.pk}/change/")
    assert page.status_code == 200
    assert 'name="body"' not in page.content.decode(), "fields are read-only"
