"""GET /api/v1/cases: a client's own cases, newest first, filtered, a page at a time; a reviewer's decision is
listed as the case's status shows it (after its undo window), and bad parameters are named."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviewconsole.intake.models import Case
from reviewconsole.review import services
from reviewconsole.review.services import decision_approve
from tests.reviewconsole.api.conftest import SUPPORTED_CASE, case_body, post_case
from tests.reviewconsole.review.conftest import latest, past_undo_window

LIST = "/api/v1/cases"


def _submit(client, api, django_capture_on_commit_callbacks, **changes) -> dict:
    with django_capture_on_commit_callbacks(execute=True):
        return post_case(client, api, case_body(**changes)).json()


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [case["id"] for case in response.json()["cases"]]


def test_a_client_lists_its_own_cases_newest_first_a_page_at_a_time(
    client, api_client, other_api_client, django_capture_on_commit_callbacks
):
    mine = [
        _submit(client, api_client, django_capture_on_commit_callbacks, external_id=f"ticket-{n}")["id"]
        for n in range(3)
    ]
    _submit(client, other_api_client, django_capture_on_commit_callbacks, external_id="ticket-0")

    first = client.get(LIST, {"limit": 2}, **api_client.auth)
    assert _ids(first) == [mine[2], mine[1]]
    page = first.json()
    listed = page["cases"][0]
    assert listed["external_id"] == "ticket-2" and listed["status"] == "ESCALATED"
    assert listed["status_url"] == f"/api/v1/cases/{mine[2]}" and "run_record" not in listed
    assert page["next_url"] == f"{LIST}?limit=2&cursor={page['next_cursor']}"

    second = client.get(page["next_url"], **api_client.auth)
    assert _ids(second) == [mine[0]]
    assert second.json()["next_cursor"] is None and second.json()["next_url"] is None
    # The other client's case under the same external_id is not this client's to see.
    assert _ids(client.get(LIST, {"external_id": "ticket-0"}, **api_client.auth)) == [mine[0]]


def test_filters_by_status_terminal_constitution_and_external_id(
    client, api_client, django_capture_on_commit_callbacks
):
    escalated = _submit(client, api_client, django_capture_on_commit_callbacks)["id"]
    released = _submit(client, api_client, django_capture_on_commit_callbacks, **SUPPORTED_CASE)["id"]
    assert Case.objects.get(pk=released).status == "RELEASED"

    def listed(**params) -> list[int]:
        return _ids(client.get(LIST, params, **api_client.auth))

    assert listed(status="ESCALATED") == [escalated]
    assert listed(status="RELEASED,REJECTED") == [released]
    assert _ids(client.get(f"{LIST}?status=RELEASED&status=ESCALATED", **api_client.auth)) == [released, escalated]
    assert listed(terminal="PERMIT") == [released]
    assert listed(terminal="REVIEW,ABSTAIN") == [escalated]
    # The cases named no constitution: they run, and are listed, under the default.
    assert listed(constitution="default") == [released, escalated]
    assert listed(constitution="strict") == []
    assert listed(external_id="ticket-2002") == [released]
    assert listed(external_id="ticket-9999") == []


def test_updated_since_lists_what_changed_and_a_decision_once_the_client_may_see_it(
    client, api_client, reviewer, django_capture_on_commit_callbacks
):
    escalated = _submit(client, api_client, django_capture_on_commit_callbacks)
    case = Case.objects.get(pk=escalated["id"])
    watermark = client.get(LIST, **api_client.auth).json()["cases"][0]["updated_at"]
    assert client.get(LIST, {"updated_since": watermark}, **api_client.auth).json()["cases"][0]["id"] == case.pk

    now = timezone.now()
    escalation = services.escalation_claim_next(reviewer=reviewer, now=now)
    repaired = latest(case)
    decision_approve(
        escalation_id=escalation.pk, reviewer=reviewer, candidate_id=repaired.candidate_id, sha256=repaired.sha256,
        now=now,
    )
    # The reviewer may still undo it: listed as the run left it, and not as changed since the watermark.
    assert _ids(client.get(LIST, {"status": "RELEASED"}, **api_client.auth)) == []
    pending = client.get(LIST, {"status": "ESCALATED"}, **api_client.auth).json()["cases"]
    assert [(c["id"], c["status"], c["decision"]) for c in pending] == [(case.pk, "ESCALATED", None)]
    later = (timezone.now() + timedelta(seconds=1)).isoformat()
    assert _ids(client.get(LIST, {"updated_since": later}, **api_client.auth)) == []

    past_undo_window(case)

    shown = client.get(LIST, {"updated_since": watermark}, **api_client.auth).json()["cases"]
    assert [(c["id"], c["status"], c["decision"]["kind"]) for c in shown] == [(case.pk, "RELEASED", "APPROVE")]
    assert shown[0]["updated_at"] > watermark
    assert _ids(client.get(LIST, {"status": "ESCALATED"}, **api_client.auth)) == []
    after = client.get(LIST, {"updated_since": shown[0]["updated_at"]}, **api_client.auth)
    assert _ids(after) == [case.pk]  # at the watermark itself: listed again, never missed


def test_each_bad_parameter_is_named_and_a_list_needs_a_token(client, api_client):
    def refused(query: str) -> list[tuple[str, str]]:
        response = client.get(f"{LIST}?{query}", **api_client.auth)
        assert response.status_code == 400, response.content
        assert response.json()["error"] == "invalid"
        return [(error["field"], error["message"]) for error in response.json()["errors"]]

    assert refused("state=RELEASED&page=2") == [
        ("page", "not a parameter of this endpoint; it takes status, terminal, constitution, external_id, "
                 "updated_since, limit, cursor"),
        ("state", "not a parameter of this endpoint; it takes status, terminal, constitution, external_id, "
                  "updated_since, limit, cursor"),
    ]
    assert refused("status=DONE")[0][0] == "status.0"
    assert "RELEASED" in refused("status=DONE")[0][1]
    assert refused("terminal=PERMIT,MAYBE")[0][0] == "terminal.1"
    assert refused("updated_since=2026-01-02T03:04:05") == [("updated_since", "Input should have timezone info")]
    assert refused("updated_since=0.5") == [
        ("updated_since", "must be an ISO 8601 time with its offset, such as 2026-01-02T03:04:05+00:00")
    ]
    assert refused("limit=0") == [("limit", "Input should be greater than or equal to 1")]
    assert refused("limit=101") == [("limit", "Input should be less than or equal to 100")]
    assert refused("cursor=abc") == [("cursor", "not a cursor this API gave; pass a page's next_cursor")]
    assert refused("external_id=a%00b") == [("external_id", "must not contain NUL (\\u0000)")]

    anonymous = client.get(LIST)
    assert anonymous.status_code == 401 and anonymous.json()["errors"][0]["field"] == "Authorization"
    wrong_method = client.put(LIST, **api_client.auth)
    assert wrong_method.status_code == 405 and wrong_method["Allow"] == "GET, POST"


def test_a_page_costs_the_same_queries_however_many_cases_and_decisions_it_holds(
    client, api_client, reviewer, django_capture_on_commit_callbacks
):
    def decided_pair(number: int) -> None:
        """A case a reviewer approved, then one still open."""
        case = Case.objects.get(pk=_submit(client, api_client, django_capture_on_commit_callbacks,
                                           external_id=f"decided-{number}")["id"])
        now = timezone.now()
        assert services.escalation_lease_take(escalation=case.escalation, reviewer=reviewer, now=now)
        repaired = latest(case)
        decision_approve(escalation_id=case.escalation.pk, reviewer=reviewer, candidate_id=repaired.candidate_id,
                         sha256=repaired.sha256, now=now)
        past_undo_window(case)
        _submit(client, api_client, django_capture_on_commit_callbacks, external_id=f"open-{number}")

    def queries_for_a_page() -> int:
        with CaptureQueriesContext(connection) as queries:
            page = client.get(LIST, **api_client.auth).json()["cases"]
        assert {case["status"] for case in page} == {"ESCALATED", "RELEASED"}
        return len(queries)

    decided_pair(1)
    few = queries_for_a_page()
    decided_pair(2)
    decided_pair(3)

    assert queries_for_a_page() == few
