"""How a case was handled, as people read it in a real browser: the constitution version it ran under by
its number, the repair by its words, and a decision a review lead took over two reviews that disagreed."""

from __future__ import annotations

import pytest
from django.test import Client as HttpClient

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Case
from reviewconsole.intake.services import client_create
from tests.browser.session import sign_in
from tests.personas import _user_with
from tests.reviewconsole.review.conftest import (
    default_policy_publish,
    escalate_case,
    latest,
    on_version,
    refund_case,
    review_from_next,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _as(username: str, *roles: Role) -> HttpClient:
    http = HttpClient()
    http.force_login(_user_with(username, *roles))
    return http



@pytest.fixture
def adjudicated(db) -> Case:
    """The refund case (repaired from the sources) under a policy of two reviews: Rita approves, Ravi rejects,
    and Lena, a review lead, rejects it. The client named no constitution."""
    pin = default_policy_publish(double_review_reasons=["CRITICAL_CLAIM"])
    case = escalate_case(client_create(name="support-bot")[0], refund_case())
    assert case.constitution_name == "" and case.constitution_pin == pin
    review_from_next(_as("rita", Role.REVIEWER), case, "approve")
    review_from_next(_as("ravi", Role.REVIEWER), case, "reject")
    lead = _as("lena", Role.REVIEWER, Role.REVIEW_LEAD)
    lead.post(f"/review/cases/{case.pk}/reject", on_version(latest(case), reason_code="WRONG_FACTS", note="No."))
    return case


def test_the_review_lead_sees_on_the_case_page_that_the_decision_was_adjudicated(page, adjudicated):
    sign_in(page, "lena")
    page.goto(f"/review/cases/{adjudicated.pk}/")

    taken = page.locator("#decision-taken")
    assert "Rejected (version c1) by lena" in taken.inner_text()
    assert taken.get_by_text("Adjudicated", exact=True).is_visible()
    assert "The two independent reviews disagreed, and a review lead took this decision." in taken.inner_text()


def test_a_support_lead_reads_the_version_number_the_repair_and_the_adjudication(page, adjudicated):
    _user_with("sam", Role.SUPPORT_LEAD)
    sign_in(page, "sam")
    page.goto(f"/audit/cases/{adjudicated.pk}/")

    number = adjudicated.constitution_pin.number
    constitution = page.locator("#case-constitution").inner_text()
    assert constitution.startswith(f"default v{number} ") and f"v{adjudicated.constitution_version}" not in constitution
    repaired = page.locator("#candidate-c1 h3").inner_text()
    assert "Replaced by what the sources say" in repaired and "REPLACE_WITH_EVIDENCE" not in repaired
    decision = page.locator("#decisions li").filter(has_text="by lena").inner_text()
    assert "adjudicated: the two independent reviews disagreed, and a review lead took this decision" in decision


def test_a_team_admin_sees_the_constitution_a_client_case_ran_under(page, adjudicated):
    _user_with("tina", Role.TEAM_ADMIN)
    sign_in(page, "tina")
    page.goto(f"/team/clients/{adjudicated.client_id}/")

    row = page.locator("#client-cases tbody tr").filter(has_text=f"#{adjudicated.pk}")
    assert row.locator("td").nth(3).inner_text() == f"default v{adjudicated.constitution_pin.number}"
