"""Any case is reachable: by number or words from "Find a case", released and decided cases included, and
the queue's rows show the start of the answer."""

from __future__ import annotations

import re

import pytest

from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.intake.services import case_submit
from reviewconsole.intake.tasks import verify_case
from reviewconsole.review.models import Escalation, EscalationStatus
from tests.reviewconsole.api.conftest import SUPPORTED_CASE
from tests.reviewconsole.review.conftest import EARNINGS_CASE
from verification import Case as Submission

pytestmark = pytest.mark.django_db


def _found(html: str) -> list[int]:
    return [int(number) for number in re.findall(r'class="open-case" href="/review/cases/(\d+)/"', html)]


@pytest.fixture
def released(webhook_client) -> Case:
    """A case the engine released: it never reached the queue."""
    case, _ = case_submit(client=webhook_client, submission=Submission.model_validate(SUPPORTED_CASE))
    verify_case.apply(args=(case.pk,))
    case.refresh_from_db()
    assert case.status == CaseStatus.RELEASED and not Escalation.objects.filter(case=case).exists()
    return case


def test_find_by_words_lists_released_and_queued_cases(client, reviewer, escalate, released):
    queued = escalate()
    client.force_login(reviewer)

    html = client.get("/review/cases/", {"q": "refunds"}).content.decode()

    assert sorted(_found(html)) == sorted([queued.pk, released.pk])
    assert "Released" in html and "In review" in html
    assert "Approved refunds are returned to the original payment method" in html  # the answer's start


def test_a_case_number_opens_the_case_released_ones_read_only(client, lead, released):
    client.force_login(lead)

    response = client.get("/review/cases/", {"q": f"#{released.pk}"})
    assert response.status_code == 302 and response["Location"] == f"/review/cases/{released.pk}/"

    html = client.get(response["Location"]).content.decode()
    assert "Read-only" in html and "How long do refunds take to arrive?" in html
    assert "What the customer was told" in html and "within 5 to 10 business days" in html


def test_an_open_spot_check_is_found_as_in_review_not_as_released(client, reviewer, escalate):
    case = escalate()
    Case.objects.filter(pk=case.pk).update(status=CaseStatus.RELEASED)
    Escalation.objects.filter(case=case).update(is_spot_check=True)
    client.force_login(reviewer)

    html = client.get("/review/cases/", {"q": "ticket-1001"}).content.decode()

    assert _found(html) == [case.pk]
    assert "In review" in html and "Released" not in html


def test_a_decided_case_is_found_and_read_not_decided(client, reviewer, escalate):
    case = escalate(EARNINGS_CASE)
    Escalation.objects.filter(case=case).update(status=EscalationStatus.DECIDED)
    Case.objects.filter(pk=case.pk).update(status=CaseStatus.REJECTED)
    client.force_login(reviewer)

    html = client.get("/review/cases/", {"q": "Norrland freight"}).content.decode()
    assert _found(html) == [case.pk] and "Rejected" in html

    html = client.get(f"/review/cases/{case.pk}/").content.decode()
    assert "This case was decided." in html and f'action="/review/cases/{case.pk}/approve"' not in html


def test_nothing_found_missing_number_and_bad_input(client, reviewer, escalate):
    escalate()
    client.force_login(reviewer)

    html = client.get("/review/cases/", {"q": "#999999"}).content.decode()
    assert _found(html) == [] and "No case matches “#999999”." in html
    assert _found(client.get("/review/cases/").content.decode()) == []
    response = client.get("/review/cases/", {"q": "<b>" + "x" * 200})
    html = response.content.decode()
    assert response.status_code == 400 and "q: Ensure this value has at most 200 characters" in html
    assert "&lt;b&gt;" in html and "<b>x" not in html


def test_only_reviewers_and_leads_find_cases(client, support_lead, outsider):
    assert client.get("/review/cases/")["Location"] == "/login/?next=/review/cases/"
    for user in (support_lead, outsider):
        client.force_login(user)
        assert client.get("/review/cases/").status_code == 403
    assert client.post("/review/cases/").status_code == 405


def test_queue_rows_show_the_start_of_the_answer(client, reviewer, escalate):
    case = escalate(EARNINGS_CASE)
    client.force_login(reviewer)

    html = client.get("/review/").content.decode()

    row = html[html.index(f'href="/review/cases/{case.pk}/"'):]
    row = row[:row.index("</tr>")]
    start = Case.objects.get(pk=case.pk).final_answer[:60]
    assert f'<span class="answer-start">{start}' in row
