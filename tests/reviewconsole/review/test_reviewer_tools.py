"""A reviewer's tools through the views and services: the time a decision took, undo and its refusals
(after the window, once sent, someone else's), claim comments' refusals, and who may open the team page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case
from reviewconsole.intake.services import client_token_rotate
from reviewconsole.review import services
from reviewconsole.review.models import ClaimComment, ClaimLabel, Decision, Escalation, EscalationStatus
from reviewconsole.webhooks.models import DeliveryStatus, EventType, WebhookDelivery
from tests.reviewconsole.review.conftest import EARNINGS_CASE, latest, past_undo_window

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _reject(case: Case, reviewer, now) -> Decision:
    candidate = latest(case)
    escalation = Escalation.objects.get(case=case)
    decision = services.decision_reject(
        escalation_id=escalation.pk, reviewer=reviewer, candidate_id=candidate.candidate_id, sha256=candidate.sha256,
        reason_code="WRONG_FACTS", now=now,
    )
    assert isinstance(decision, Decision)
    return decision


def _messages(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_a_decision_records_the_time_from_the_claim_and_the_webhook_waits_out_the_undo_window(
    reviewer, escalate, settings
):
    settings.REVIEW_UNDO_SECONDS = 30
    case = escalate()
    claimed_at = timezone.now()
    services.escalation_claim_next(reviewer=reviewer, now=claimed_at)

    decision = _reject(case, reviewer, claimed_at + timedelta(seconds=95))

    assert decision.seconds_spent == 95
    event = AuditEvent.objects.get(action="decision.rejected", case_id=case.pk)
    assert event.payload["seconds_spent"] == 95
    delivery = WebhookDelivery.objects.get(case=case, event_type=EventType.CASE_DECIDED)
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 0
    assert delivery.next_attempt_at >= claimed_at + timedelta(seconds=125)


def test_an_undo_withdraws_the_waiting_webhook_and_reopens_the_case_for_the_reviewer(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    _reject(case, reviewer, timezone.now())
    following = escalate(EARNINGS_CASE)
    client.post("/review/next")  # the reviewer goes on to the next case
    assert Escalation.objects.get(case=following).holder == reviewer

    response = client.post(f"/review/cases/{case.pk}/undo")

    assert response.status_code == 302 and response["Location"] == f"/review/cases/{case.pk}/"
    assert f"Your decision on case {case.pk} is undone" in _messages(response)[0]
    assert not WebhookDelivery.objects.filter(case=case, event_type=EventType.CASE_DECIDED).exists()
    escalation = Escalation.objects.get(case=case)
    assert (escalation.status, escalation.holder) == (EscalationStatus.OPEN, reviewer)
    assert Escalation.objects.get(case=following).holder is None  # one case held at a time
    page = client.get(f"/review/cases/{case.pk}/").content.decode()
    assert 'id="decide-reject"' in page


@pytest.mark.parametrize(("change", "why"), [
    ("late", "The undo window (30 seconds) has passed: the decision stands."),
    ("sent", "The decision was already sent to the client, so it stands."),
])
def test_an_undo_is_refused_after_the_window_or_once_the_client_was_sent_it(
    client, reviewer, escalate, settings, change, why
):
    settings.REVIEW_UNDO_SECONDS = 30
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    decision = _reject(case, reviewer, timezone.now())
    if change == "late":
        Decision.objects.filter(pk=decision.pk).update(created_at=timezone.now() - timedelta(seconds=31))
    else:
        WebhookDelivery.objects.filter(case=case).update(status=DeliveryStatus.DELIVERED, attempts=1)

    response = client.post(f"/review/cases/{case.pk}/undo")

    assert _messages(response) == [f"Not undone: {why}"]
    assert Decision.objects.filter(pk=decision.pk).exists()
    assert Escalation.objects.get(case=case).status == EscalationStatus.DECIDED
    assert not AuditEvent.objects.filter(action="decision.undone").exists()


def test_a_polling_client_sees_a_decision_only_once_it_can_no_longer_be_undone(client, reviewer, escalate, settings):
    settings.REVIEW_UNDO_SECONDS = 30
    case = escalate()
    token = client_token_rotate(client=case.client)
    client.force_login(reviewer)
    client.post("/review/next")
    _reject(case, reviewer, timezone.now())

    def polled() -> dict:
        return client.get(f"/api/v1/cases/{case.pk}", HTTP_AUTHORIZATION=f"Bearer {token}").json()

    during = polled()
    assert (during["status"], during["decision"], during["released_answer"]) == ("ESCALATED", None, None)

    past_undo_window(case)
    after = polled()
    assert (after["status"], after["decision"]["kind"]) == ("REJECTED", "REJECT")


def test_only_the_reviewer_who_decided_may_undo(client, reviewer, second_reviewer, escalate):
    case = escalate()
    services.escalation_claim_next(reviewer=reviewer, now=timezone.now())
    _reject(case, reviewer, timezone.now())
    client.force_login(second_reviewer)

    response = client.post(f"/review/cases/{case.pk}/undo")

    assert _messages(response) == [f"Not undone: Only rita, who decided case {case.pk}, can undo that decision."]
    assert Decision.objects.exists()
    with pytest.raises(services.UndoRefused):
        services.decision_undo(case_id=case.pk, reviewer=second_reviewer, now=timezone.now())


def test_a_label_undo_after_the_window_is_refused_in_the_claims_cell(client, reviewer, escalate, settings):
    settings.REVIEW_UNDO_SECONDS = 30
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    claim = latest(case).claims.first()
    client.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label", {"label": "REFUTED"}, **HTMX)
    ClaimLabel.objects.update(updated_at=timezone.now() - timedelta(seconds=31))

    response = client.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label/undo", **HTMX)

    assert response.status_code == 409
    assert "The undo window (30 seconds) has passed" in response.content.decode()
    assert ClaimLabel.objects.get().label == "REFUTED"


def test_a_comment_is_refused_when_empty_or_from_someone_not_holding_the_case(
    client, reviewer, second_reviewer, escalate
):
    case = escalate()
    claim = latest(case).claims.first()
    url = f"/review/cases/{case.pk}/claims/{claim.pk}/comments"
    client.force_login(reviewer)
    client.post("/review/next")

    empty = client.post(url, {"comment": "   "}, **HTMX)
    assert empty.status_code == 400 and "comment: write something first." in empty.content.decode()

    client.force_login(second_reviewer)
    other = client.post(url, {"comment": "I think this is fine."}, **HTMX)
    assert other.status_code == 409 and "Claim this case first" in other.content.decode()
    assert not ClaimComment.objects.exists()
    assert client.get(url).status_code == 405


def test_the_team_page_is_for_review_leads(client, reviewer, lead):
    client.force_login(reviewer)
    assert client.get("/review/team/").status_code == 403
    client.force_login(lead)
    page = client.get("/review/team/")
    assert page.status_code == 200 and 'data-person="rita"' in page.content.decode()


def test_guidelines_are_saved_by_policy_admins_only_and_their_length_is_checked(client, reviewer, policy_admin):
    client.force_login(reviewer)
    assert client.post("/policy/constitutions/default/guidelines", {"guidelines": "x"}).status_code == 403
    client.force_login(policy_admin)
    assert client.get("/policy/constitutions/default/guidelines").status_code == 405
    too_long = client.post("/policy/constitutions/default/guidelines", {"guidelines": "x" * 10_001})
    assert too_long.status_code == 400
    assert "guidelines: at most 10,000 characters (10,001 written)." in too_long.content.decode()
    saved = client.post("/policy/constitutions/default/guidelines", {"guidelines": "Check dates.\r\nAlways."})
    assert saved.status_code == 302
    event = AuditEvent.objects.get(action="policy.changed", payload__change="guidelines saved")
    assert event.payload["guidelines"] == "Check dates.\nAlways." and event.actor == "user:paul"
