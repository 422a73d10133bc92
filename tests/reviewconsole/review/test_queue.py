"""The queue page: who may open it, its order, filters, counts per reason, htmx fragment (paging: test_queue_paging)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.intake.models import Case
from reviewconsole.review.models import Escalation
from tests.reviewconsole.review.conftest import EARNINGS_CASE, gate_record
from verification import types as contract

pytestmark = pytest.mark.django_db


def test_anonymous_users_are_sent_to_sign_in(client):
    response = client.get("/review/?severity=CRITICAL")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/review/%3Fseverity%3DCRITICAL"


@pytest.mark.parametrize("persona", ["outsider", "support_lead", "policy_admin"])
def test_other_roles_get_403(client, persona, request):
    client.force_login(request.getfixturevalue(persona))
    assert client.get("/review/").status_code == 403
    assert client.post("/review/next").status_code == 403


def test_wrong_method_is_refused(client, reviewer):
    client.force_login(reviewer)
    assert client.post("/review/").status_code == 405
    assert client.get("/review/next").status_code == 405


def test_open_cases_by_priority_then_age(client, reviewer, escalate):
    older, newer, earnings = escalate(), escalate(external_id="ticket-2"), escalate(EARNINGS_CASE)
    Escalation.objects.filter(case=older).update(created_at=timezone.now() - timedelta(hours=2))
    Escalation.objects.filter(case=earnings).update(priority=999)
    client.force_login(reviewer)

    html = client.get("/review/").content.decode()

    positions = [html.index(f'href="/review/cases/{case.pk}/"') for case in (earnings, older, newer)]
    assert positions == sorted(positions)


def _conflicting(run_as_engine) -> Case:
    """A case escalated for conflicting evidence, of moderate severity (its held-back claim's)."""
    return run_as_engine(gate_record().model_copy(update={"reason": contract.Reason.CONFLICTING_EVIDENCE}))


def test_filters_and_counts_per_reason(client, reviewer, escalate, run_as_engine):
    refund, earnings = escalate(), _conflicting(run_as_engine)
    client.force_login(reviewer)

    html = client.get("/review/").content.decode()
    assert 'data-reason="CRITICAL_CLAIM"' in html and 'data-reason="CONFLICTING_EVIDENCE"' in html
    assert "2 open cases" in html

    html = client.get("/review/?reason=CONFLICTING_EVIDENCE").content.decode()
    assert f"/review/cases/{earnings.pk}/" in html and f"/review/cases/{refund.pk}/" not in html
    # The counts stay the choices of the reason filter: both reasons still listed.
    assert 'data-reason="CRITICAL_CLAIM"' in html

    html = client.get("/review/?severity=MODERATE").content.decode()
    assert f"/review/cases/{earnings.pk}/" in html and f"/review/cases/{refund.pk}/" not in html
    assert 'data-reason="CRITICAL_CLAIM"' not in html

    assert "No open case matches" in client.get("/review/?spot_check=only").content.decode()
    assert "No open case matches" in client.get("/review/?assignee=me").content.decode()
    other_client = client.get(f"/review/?client={refund.client_id + 999}").content.decode()
    # An unknown client id is an invalid choice: ignored rather than emptying the queue.
    assert "2 open cases" in other_client


def test_held_filter_shows_who_holds_what(client, reviewer, escalate):
    case = escalate()
    escalate(EARNINGS_CASE)
    client.force_login(reviewer)
    client.post("/review/next")

    mine = client.get("/review/?held=me").content.decode()
    assert f"/review/cases/{case.pk}/" in mine and "1 open case" in mine
    assert "1 open case" in client.get("/review/?held=none").content.decode()
    # Holding a case is not being assigned it: nothing is assigned to anyone yet.
    assert "No open case matches" in client.get("/review/?assignee=me").content.decode()
    assert "2 open cases" in client.get("/review/?assignee=none").content.decode()


def test_htmx_request_gets_only_the_results_fragment(client, reviewer, escalate):
    escalate()
    client.force_login(reviewer)

    fragment = client.get("/review/?severity=CRITICAL", headers={"HX-Request": "true"})
    full = client.get("/review/?severity=CRITICAL")

    assert fragment.status_code == full.status_code == 200
    assert fragment.content.decode().lstrip().startswith('<div id="queue-results"')
    assert "<html" not in fragment.content.decode()
    assert "<html" in full.content.decode() and 'id="queue-results"' in full.content.decode()
    assert "HX-Request" in fragment["Vary"]


def test_all_reasons_chip_counts_every_reason_while_one_is_filtered(client, reviewer, escalate, run_as_engine):
    escalate(), escalate(external_id="ticket-2")
    _conflicting(run_as_engine)
    client.force_login(reviewer)

    for query in ("", "?reason=CONFLICTING_EVIDENCE"):
        html = client.get(f"/review/{query}").content.decode()
        chips = dict(re.findall(r'>([^<>]+?) <span class="count">(\d+)</span></a>', html))
        assert chips == {"All reasons": "3", "Critical claim not supported": "2", "Conflicting evidence": "1"}
    # The page itself lists the filtered cases only.
    assert "1 of 1 open case" in html


def test_reasons_are_shown_in_words_not_codes(client, reviewer, escalate):
    escalate()
    client.force_login(reviewer)

    html = client.get("/review/").content.decode()

    assert "CRITICAL_CLAIM" not in _visible_text(html)
    assert "<td>Critical claim not supported</td>" in html


def _visible_text(html: str) -> str:
    """What a person reads: the page without its tags (attributes, links' query strings and all)."""
    return re.sub(r"<[^>]*>", " ", html)
