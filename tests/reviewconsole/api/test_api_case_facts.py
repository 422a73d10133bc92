"""What the API says about how a case was handled: the constitution (and version) its run used, whoever
named it, and whether a review lead took the decision over two reviews that disagreed."""

from __future__ import annotations

import pytest

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Case
from reviewconsole.policy.selectors import constitution_in_force
from tests.personas import _user_with
from tests.reviewconsole.api.conftest import case_body, post_case
from tests.reviewconsole.review.conftest import default_policy_publish, latest, on_version, review_from_next, signed_in

pytestmark = pytest.mark.django_db


def test_a_case_that_names_no_constitution_reports_the_default_it_ran_under(client, api_client):
    submitted = post_case(client, api_client, case_body())
    in_force = constitution_in_force("default")

    body = submitted.json()
    assert submitted.status_code == 202 and "constitution" not in case_body()
    assert (body["constitution"], body["constitution_version"], body["constitution_version_number"]) == (
        "default", in_force.short_sha, in_force.number
    )
    polled = client.get(body["status_url"], **api_client.auth).json()
    assert (polled["constitution"], polled["constitution_version_number"]) == ("default", in_force.number)



@pytest.fixture
def disputed(client, api_client, django_capture_on_commit_callbacks) -> tuple[Case, str]:
    """The refund case, sent through the API under a policy of two reviews; the two reviewers disagree."""
    default_policy_publish(double_review_reasons=["CRITICAL_CLAIM"])
    with django_capture_on_commit_callbacks(execute=True):
        status_url = post_case(client, api_client, case_body()).json()["status_url"]
    case = Case.objects.get()
    review_from_next(signed_in(_user_with("rita", Role.REVIEWER)), case, "approve")
    review_from_next(signed_in(_user_with("ravi", Role.REVIEWER)), case, "reject")
    return case, status_url


def test_a_decision_a_review_lead_took_over_two_reviews_that_disagreed_says_it_was_adjudicated(
    client, api_client, disputed
):
    case, status_url = disputed
    assert client.get(status_url, **api_client.auth).json()["decision"] is None

    lead = signed_in(_user_with("lena", Role.REVIEWER, Role.REVIEW_LEAD))
    lead.post(f"/review/cases/{case.pk}/reject", on_version(latest(case), reason_code="WRONG_FACTS", note="No."))

    decision = client.get(status_url, **api_client.auth).json()["decision"]
    assert (decision["kind"], decision["adjudicated"]) == ("REJECT", True)


def test_a_decision_two_agreeing_reviews_took_was_not_adjudicated(
    client, api_client, django_capture_on_commit_callbacks
):
    default_policy_publish(double_review_reasons=["CRITICAL_CLAIM"])
    with django_capture_on_commit_callbacks(execute=True):
        status_url = post_case(client, api_client, case_body()).json()["status_url"]
    case = Case.objects.get()
    review_from_next(signed_in(_user_with("rita", Role.REVIEWER)), case, "reject")
    review_from_next(signed_in(_user_with("ravi", Role.REVIEWER)), case, "reject")

    decision = client.get(status_url, **api_client.auth).json()["decision"]
    assert (decision["kind"], decision["adjudicated"]) == ("REJECT", False)
