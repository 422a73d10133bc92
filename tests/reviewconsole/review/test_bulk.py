"""A review lead's actions on several queue cases at once: assign, unassign, return to the queue; each case
changed and audited on its own, refused for anyone who is not a lead."""

from __future__ import annotations

import pytest

from reviewconsole.audit.models import AuditEvent
from reviewconsole.review.models import Escalation, EscalationStatus
from tests.reviewconsole.review.conftest import signed_in

pytestmark = pytest.mark.django_db




def test_only_a_lead_sees_the_bulk_actions(reviewer, lead, two_cases):
    refund, _ = two_cases
    assert 'id="bulk-form"' not in signed_in(reviewer).get("/review/").content.decode()
    html = signed_in(lead).get("/review/").content.decode()
    assert 'id="bulk-form"' in html
    assert f'name="cases" value="{refund.pk}" form="bulk-form"' in html


def test_a_lead_assigns_several_cases_at_once_each_audited(lead, second_reviewer, two_cases):
    refund, earnings = two_cases
    http = signed_in(lead)

    response = http.post("/review/bulk", {"action": "assign", "cases": [refund.pk, earnings.pk],
                                          "assignee": second_reviewer.pk, "query": "severity=CRITICAL&after=zz"})

    assert response.status_code == 302 and response["Location"] == "/review/?severity=CRITICAL"
    assert {e.assigned_to for e in Escalation.objects.all()} == {second_reviewer}
    events = AuditEvent.objects.filter(action="escalation.assigned").order_by("id")
    assert [(e.case_id, e.actor, e.payload["assignee"]) for e in events] == [
        (refund.pk, "user:lena", "ravi"), (earnings.pk, "user:lena", "ravi"),
    ]
    page = http.get(response["Location"]).content.decode()
    assert f"Assigned cases #{refund.pk}, #{earnings.pk} to ravi." in page


def test_a_lead_unassigns_several_cases(lead, second_reviewer, two_cases):
    refund, earnings = two_cases
    Escalation.objects.update(assigned_to=second_reviewer)

    signed_in(lead).post("/review/bulk", {"action": "unassign", "cases": [refund.pk, earnings.pk]})

    assert not Escalation.objects.filter(assigned_to__isnull=False).exists()
    assert AuditEvent.objects.filter(action="escalation.unassigned").count() == 2


def test_a_lead_returns_held_and_assigned_cases_to_the_queue(lead, reviewer, second_reviewer, two_cases):
    refund, earnings = two_cases
    signed_in(reviewer).post("/review/next")  # rita holds the refund case
    Escalation.objects.filter(case=earnings).update(assigned_to=second_reviewer)

    response = signed_in(lead).post("/review/bulk", {"action": "return", "cases": [refund.pk, earnings.pk]},
                                     follow=True)

    for escalation in Escalation.objects.all():
        assert (escalation.holder, escalation.lease_expires_at, escalation.assigned_to) == (None, None, None)
    events = {e.case_id: e.payload for e in AuditEvent.objects.filter(action="escalation.returned")}
    assert events == {refund.pk: {"holder": "rita", "assignee": None},
                      earnings.pk: {"holder": None, "assignee": "ravi"}}
    assert f"Returned cases #{refund.pk}, #{earnings.pk} to the queue" in response.content.decode()
    # Anyone's "Next case" may serve it now.
    assert signed_in(second_reviewer).post("/review/next")["Location"] == f"/review/cases/{refund.pk}/"


def test_cases_that_cannot_change_are_reported_and_the_others_still_change(lead, second_reviewer, two_cases):
    refund, earnings = two_cases
    Escalation.objects.filter(case=earnings).update(status=EscalationStatus.DECIDED)

    response = signed_in(lead).post("/review/bulk", {"action": "assign", "cases": [refund.pk, earnings.pk, 999999],
                                                      "assignee": second_reviewer.pk}, follow=True)

    html = response.content.decode()
    assert f"Assigned case #{refund.pk} to ravi." in html
    assert f"Case #{earnings.pk} was left as it was: Only a case waiting in the queue can be assigned" in html
    assert "Case #999999 was left as it was: it is not in the review queue." in html
    assert Escalation.objects.get(case=earnings).assigned_to is None
    assert AuditEvent.objects.filter(action="escalation.assigned").count() == 1


def test_returning_a_case_already_free_says_so(lead, two_cases):
    refund, _ = two_cases
    html = signed_in(lead).post("/review/bulk", {"action": "return", "cases": [refund.pk]}, follow=True)
    assert "it is in the queue already: nobody holds it and it is assigned to nobody." in html.content.decode()
    assert not AuditEvent.objects.filter(action="escalation.returned").exists()


@pytest.mark.parametrize(("data", "message"), [
    ({"action": "assign", "assignee": ""}, "cases: select at least one case"),
    ({"action": "assign", "cases": ["1"], "assignee": ""}, "assignee: choose the reviewer to assign the selected"),
    ({"action": "assign", "cases": ["1"], "assignee": "999999"}, "assignee: choose an active reviewer from the list."),
    ({"action": "delete", "cases": ["1"]}, "action: choose assign, unassign or return to the queue."),
    ({"action": "return", "cases": ["1; drop"]}, "cases: each selected case must be a case number."),
    ({"action": "return", "cases": [str(n) for n in range(1, 52)]}, "cases: at most 50 cases at once"),
])
def test_a_bulk_action_asked_wrongly_is_refused_naming_the_field(lead, two_cases, data, message):
    response = signed_in(lead).post("/review/bulk", data)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert not AuditEvent.objects.filter(action__startswith="escalation.").exclude(action="escalation.opened").exists()


def test_a_reviewer_who_is_not_a_lead_is_refused_with_why(reviewer, second_reviewer, two_cases):
    refund, _ = two_cases

    response = signed_in(reviewer).post("/review/bulk", {"action": "assign", "cases": [refund.pk],
                                                          "assignee": second_reviewer.pk})

    assert response.status_code == 403
    assert "Acting on several cases at once is for review leads" in response.content.decode()
    assert Escalation.objects.get(case=refund).assigned_to is None


def test_bulk_actions_take_posts_only(lead):
    assert signed_in(lead).get("/review/bulk").status_code == 405
