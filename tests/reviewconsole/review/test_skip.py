"""Skip: the reviewer puts the held case back in the queue and is served the next one, and "Next case" does
not serve the skipped case straight back to them (it does to everyone else)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.review import services
from reviewconsole.review.models import Escalation
from reviewconsole.review.services import escalation_skip
from tests.reviewconsole.review.conftest import signed_in

pytestmark = pytest.mark.django_db




def test_skip_puts_the_case_back_and_serves_the_next(reviewer, two_cases):
    refund, earnings = two_cases
    http = signed_in(reviewer)
    assert http.post("/review/next")["Location"] == f"/review/cases/{refund.pk}/"
    page = http.get(f"/review/cases/{refund.pk}/").content.decode()
    assert f'id="skip-form" method="post" action="/review/cases/{refund.pk}/skip"' in page

    response = http.post(f"/review/cases/{refund.pk}/skip")

    assert response["Location"] == f"/review/cases/{earnings.pk}/"
    assert Escalation.objects.get(case=refund).holder is None
    assert Escalation.objects.get(case=earnings).holder == reviewer
    page = http.get(response["Location"]).content.decode()
    assert (f"Skipped case {refund.pk}: it is back in the queue; Next case will not serve it to you again "
            "for 15 minutes.") in page
    skip = AuditEvent.objects.get(action="escalation.skipped")
    assert (skip.actor, skip.case_id, skip.payload["released"]) == ("user:rita", refund.pk, True)
    assert AuditEvent.objects.filter(action="lease.released", case_id=refund.pk).count() == 1


def test_the_skipped_case_is_not_served_straight_back_but_is_to_others(reviewer, second_reviewer, escalate):
    only = escalate()
    http = signed_in(reviewer)
    http.post("/review/next")

    response = http.post(f"/review/cases/{only.pk}/skip", follow=True)

    assert response.redirect_chain[-1][0] == "/review/"
    assert "No other case is waiting for you" in response.content.decode()
    # Pressing n again does not bring it back at once...
    assert http.post("/review/next")["Location"] == "/review/"
    # ...while another reviewer is served it straight away.
    assert signed_in(second_reviewer).post("/review/next")["Location"] == f"/review/cases/{only.pk}/"


def test_after_the_skip_period_the_case_is_served_again(reviewer, escalate, settings):
    settings.REVIEW_SKIP_SECONDS = 120  # a deployment's own period, not the default
    only = escalate()
    now = timezone.now()
    services.escalation_claim_next(reviewer=reviewer, now=now)

    assert escalation_skip(escalation=Escalation.objects.get(case=only), reviewer=reviewer, now=now) is None
    assert services.escalation_claim_next(reviewer=reviewer, now=now + timedelta(seconds=119)) is None
    served = services.escalation_claim_next(reviewer=reviewer, now=now + timedelta(seconds=121))
    assert served is not None and served.case_id == only.pk


def test_a_skipped_case_can_still_be_claimed_by_hand(reviewer, escalate):
    only = escalate()
    http = signed_in(reviewer)
    http.post("/review/next")
    http.post(f"/review/cases/{only.pk}/skip")

    http.post(f"/review/cases/{only.pk}/lease", {"take": "1"})

    assert Escalation.objects.get(case=only).holder == reviewer


def test_skipping_a_case_one_does_not_hold_leaves_its_holder_alone(reviewer, second_reviewer, two_cases):
    refund, earnings = two_cases
    signed_in(second_reviewer).post("/review/next")  # ravi holds the refund case

    response = signed_in(reviewer).post(f"/review/cases/{refund.pk}/skip")

    assert Escalation.objects.get(case=refund).holder == second_reviewer
    assert response["Location"] == f"/review/cases/{earnings.pk}/"
    assert AuditEvent.objects.get(action="escalation.skipped").payload["released"] is False


def test_skip_is_for_reviewers_and_by_post(client, reviewer, outsider, escalate):
    case = escalate()
    client.force_login(outsider)
    assert client.post(f"/review/cases/{case.pk}/skip").status_code == 403
    client.force_login(reviewer)
    assert client.get(f"/review/cases/{case.pk}/skip").status_code == 405
    assert client.post("/review/cases/999999/skip").status_code == 404
