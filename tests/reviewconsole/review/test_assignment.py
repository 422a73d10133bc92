"""Assignment: a review lead gives a case to a reviewer; "Next case" serves it to them first, and the queue
shows and filters by the assignee."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from reviewconsole.audit.models import AuditEvent
from reviewconsole.review.models import Escalation, EscalationStatus
from tests.reviewconsole.review.conftest import latest, on_version, signed_in

pytestmark = pytest.mark.django_db




def test_a_lead_assigns_a_case_from_its_page(lead, second_reviewer, two_cases):
    refund, _ = two_cases
    http = signed_in(lead)
    page = http.get(f"/review/cases/{refund.pk}/").content.decode()
    assert "Assigned to nobody." in page and f'<option value="{second_reviewer.pk}">ravi</option>' in page

    response = http.post(f"/review/cases/{refund.pk}/assign", {"assignee": second_reviewer.pk})

    assert response.status_code == 302 and response["Location"] == f"/review/cases/{refund.pk}/"
    assert Escalation.objects.get(case=refund).assigned_to == second_reviewer
    event = AuditEvent.objects.get(action="escalation.assigned")
    assert (event.actor, event.payload) == ("user:lena", {"assignee": "ravi", "previous": None})
    page = http.get(f"/review/cases/{refund.pk}/").content.decode()
    assert f"Case {refund.pk} is assigned to ravi." in page
    assert re.search(r'Assigned to <strong>ravi</strong>', page)


def test_htmx_assignment_swaps_only_the_assignment_card(lead, second_reviewer, two_cases):
    refund, _ = two_cases

    response = signed_in(lead).post(f"/review/cases/{refund.pk}/assign", {"assignee": second_reviewer.pk},
                                     headers={"HX-Request": "true"})

    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert html.lstrip().startswith('<section class="card" id="assignment"')
    assert f"Case {refund.pk} is assigned to ravi." in html


def test_a_lead_takes_an_assignment_back(lead, second_reviewer, two_cases):
    refund, _ = two_cases
    http = signed_in(lead)
    http.post(f"/review/cases/{refund.pk}/assign", {"assignee": second_reviewer.pk})

    response = http.post(f"/review/cases/{refund.pk}/assign", {"assignee": ""})

    assert response.status_code == 302 and Escalation.objects.get(case=refund).assigned_to is None
    event = AuditEvent.objects.get(action="escalation.unassigned")
    assert event.payload == {"assignee": None, "previous": "ravi"}


@pytest.mark.parametrize("assignee", ["not-a-number", "999999"])
def test_an_unknown_assignee_is_refused_on_its_field(lead, two_cases, assignee):
    refund, _ = two_cases

    response = signed_in(lead).post(f"/review/cases/{refund.pk}/assign", {"assignee": assignee},
                                     headers={"HX-Request": "true"})

    assert response.status_code == 400
    assert "assignee: choose an active reviewer from the list." in response.content.decode()
    assert Escalation.objects.get(case=refund).assigned_to is None
    assert not AuditEvent.objects.filter(action__startswith="escalation.assign").exists()


def test_someone_who_is_not_a_reviewer_cannot_be_assigned(lead, support_lead, two_cases):
    refund, _ = two_cases

    response = signed_in(lead).post(f"/review/cases/{refund.pk}/assign", {"assignee": support_lead.pk})

    assert response.status_code == 400
    assert "assignee: choose an active reviewer from the list." in response.content.decode()
    assert Escalation.objects.get(case=refund).assigned_to is None


def test_a_decided_case_cannot_be_assigned(lead, reviewer, two_cases):
    refund, _ = two_cases
    http = signed_in(reviewer)
    http.post("/review/next")
    http.post(f"/review/cases/{refund.pk}/reject", on_version(latest(refund), reason_code="OTHER", note="No."))
    assert Escalation.objects.get(case=refund).status == EscalationStatus.DECIDED

    response = signed_in(lead).post(f"/review/cases/{refund.pk}/assign", {"assignee": reviewer.pk})

    assert response.status_code == 409 and "this one is not open" in response.content.decode()
    assert Escalation.objects.get(case=refund).assigned_to is None


def test_only_leads_assign(client, reviewer, lead, two_cases):
    refund, _ = two_cases
    url = f"/review/cases/{refund.pk}/assign"
    assert client.post(url, {"assignee": reviewer.pk}).status_code == 302  # to sign in
    client.force_login(reviewer)
    assert client.post(url, {"assignee": reviewer.pk}).status_code == 403
    assert f'action="{url}"' not in client.get(f"/review/cases/{refund.pk}/").content.decode()
    client.force_login(lead)
    assert client.get(url).status_code == 405
    assert Escalation.objects.get(case=refund).assigned_to is None


def test_next_case_serves_the_assigned_case_first_and_to_nobody_else(lead, reviewer, second_reviewer, two_cases):
    refund, earnings = two_cases
    signed_in(lead).post(f"/review/cases/{earnings.pk}/assign", {"assignee": second_reviewer.pk})

    # Ravi gets his assigned case although the refund case is higher in the queue.
    assert signed_in(second_reviewer).post("/review/next")["Location"] == f"/review/cases/{earnings.pk}/"
    Escalation.objects.update(holder=None, lease_expires_at=None)
    # Rita is never served Ravi's case: she gets the refund case, then nothing.
    rita = signed_in(reviewer)
    assert rita.post("/review/next")["Location"] == f"/review/cases/{refund.pk}/"
    rita.post(f"/review/cases/{refund.pk}/release")
    Escalation.objects.filter(case=refund).update(status=EscalationStatus.DECIDED)
    assert rita.post("/review/next")["Location"] == "/review/"
    # Opened from the queue, she may still claim it by hand (Ravi may be away).
    rita.post(f"/review/cases/{earnings.pk}/lease", {"take": "1"})
    assert Escalation.objects.get(case=earnings).holder == reviewer


def test_the_queue_shows_and_filters_by_assignee_and_holder(lead, reviewer, second_reviewer, two_cases):
    refund, earnings = two_cases
    signed_in(lead).post(f"/review/cases/{earnings.pk}/assign", {"assignee": second_reviewer.pk})
    rita = signed_in(reviewer)
    rita.post("/review/next")  # she holds the refund case

    html = rita.get("/review/").content.decode()
    rows = {found.group(1): found.group(0)
            for found in re.finditer(r'<tr data-queue-row>\s*<td><a class="open-case" href="/review/cases/(\d+)/">'
                                     r".*?</tr>", html, re.S)}
    assert "<th scope=\"col\">Assigned to</th><th scope=\"col\">Held by</th>" in html
    assert re.search(r"<td>ravi</td>\s*<td><span class=\"muted\">nobody</span></td>", rows[str(earnings.pk)])
    assert re.search(r"<td><span class=\"muted\">nobody</span></td>\s*<td>rita</td>", rows[str(refund.pk)])

    def listed(query: str, http=rita) -> set[int]:
        page = http.get(f"/review/?{query}").content.decode()
        return {int(case) for case in re.findall(r'class="open-case" href="/review/cases/(\d+)/"', page)}

    assert listed(f"assignee={second_reviewer.pk}") == {earnings.pk}
    assert listed("assignee=none") == {refund.pk}
    assert listed("assignee=me") == set()
    assert listed("assignee=me", signed_in(second_reviewer)) == {earnings.pk}
    assert listed("held=me") == {refund.pk} and listed("held=none") == {earnings.pk}
    assert listed(f"held={second_reviewer.pk}") == set()


def test_an_assignee_who_reviewed_a_double_reviewed_case_is_done_with_it(double_review, lead, reviewer, escalate):
    case = escalate()
    signed_in(lead).post(f"/review/cases/{case.pk}/assign", {"assignee": reviewer.pk})
    rita = signed_in(reviewer)
    assert rita.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"

    rita.post(f"/review/cases/{case.pk}/reject", on_version(latest(case), reason_code="OTHER", note="No."))

    escalation = Escalation.objects.get(case=case)
    assert escalation.assigned_to is None and escalation.status == EscalationStatus.OPEN
    assert AuditEvent.objects.get(action="escalation.reviewed").payload["assignment_done"] is True
    # And the second review cannot be given back to her.
    response = signed_in(lead).post(f"/review/cases/{case.pk}/assign", {"assignee": reviewer.pk})
    assert response.status_code == 400 and "rita reviewed this case already" in response.content.decode()


def test_inactive_reviewers_are_not_offered(lead, reviewer, two_cases):
    refund, _ = two_cases
    User.objects.filter(pk=reviewer.pk).update(is_active=False)

    page = signed_in(lead).get(f"/review/cases/{refund.pk}/").content.decode()

    assert f'<option value="{reviewer.pk}">' not in page
