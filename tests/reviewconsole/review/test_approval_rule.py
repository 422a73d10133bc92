"""The approval rule: approving with failing claims needs labels or an override reason.

A failing claim the deciding reviewer labelled supported no longer counts; one labelled refuted or not in
the sources, or not labelled, still needs the written override.
"""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.review.approval import approval_check
from reviewconsole.review.models import ClaimLabelKind, Decision, DecisionKind, Escalation
from reviewconsole.review.services import claim_label_set
from tests.reviewconsole.review.conftest import gate_record, latest, on_version
from verification import Reason, State

pytestmark = pytest.mark.django_db

WARNING = re.compile(r'<p class="warn" id="approval-warning">(.*?)</p>', re.S)


def _failing_record():
    """The plans answer with both claims failing: the price refuted, phone support not in the sources."""
    record = gate_record()
    candidate = record.candidates[0]
    price, support = candidate.claims
    claims = [price.model_copy(update={"state": State.REFUTED}),
              support.model_copy(update={"state": State.INSUFFICIENT_EVIDENCE})]
    return record.model_copy(update={"candidates": [candidate.model_copy(update={"claims": claims})],
                                     "reason": Reason.UNSUPPORTED_CLAIM})


@pytest.fixture
def held(client, reviewer, run_as_engine):
    """Rita holds a case whose current answer has two failing claims."""
    case = run_as_engine(_failing_record())
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    return case


def _label(case, reviewer, position: int, label: str) -> None:
    escalation = Escalation.objects.get(case=case)
    claim = latest(case).claims.get(position=position)
    claim_label_set(escalation=escalation, claim=claim, reviewer=reviewer, label=label, blind=False,
                    now=timezone.now())


def test_unlabelled_failing_claims_need_the_override_and_the_page_says_how_many(client, held):
    page = client.get(f"/review/cases/{held.pk}/").content.decode()
    assert WARNING.search(page).group(1) == ("2 claims still fail and are not labelled supported: approving needs a "
                                             "written reason, or label the claims you checked as supported.")

    refused = client.post(f"/review/cases/{held.pk}/approve", on_version(latest(held)))

    assert refused.status_code == 400
    assert "Approving needs an override reason: 2 claims still fail and are not labelled supported." in \
        refused.content.decode()
    assert not Decision.objects.exists()


def test_a_failing_claim_labelled_supported_no_longer_counts(client, reviewer, held):
    _label(held, reviewer, 0, ClaimLabelKind.SUPPORTED)
    _label(held, reviewer, 1, ClaimLabelKind.REFUTED)

    page = client.get(f"/review/cases/{held.pk}/").content.decode()
    # The claim still failing is the one Rita labelled refuted: the page names it as her own conflict.
    assert WARNING.search(page).group(1) == ("You labelled “It includes phone support.” refuted: approving needs a "
                                             "written reason.")
    refused = client.post(f"/review/cases/{held.pk}/approve", on_version(latest(held)))
    assert refused.status_code == 400
    assert "Approving needs an override reason: you labelled “It includes phone support.” refuted." in \
        refused.content.decode()

    _label(held, reviewer, 1, ClaimLabelKind.SUPPORTED)

    page = client.get(f"/review/cases/{held.pk}/").content.decode()
    assert 'id="approval-warning"' not in page and 'name="override_reason"' not in page
    approved = client.post(f"/review/cases/{held.pk}/approve", on_version(latest(held)))
    assert approved.status_code == 302
    decision = Decision.objects.get()
    assert (decision.kind, decision.override_reason) == (DecisionKind.APPROVE, "")


def test_a_label_not_in_the_sources_still_needs_the_override(reviewer, held):
    _label(held, reviewer, 0, ClaimLabelKind.SUPPORTED)
    _label(held, reviewer, 1, ClaimLabelKind.NOT_IN_SOURCES)

    check = approval_check(candidate=latest(held), reviewer=reviewer)

    assert (check.failing, check.unlabelled_failing, check.needs_override) == (2, 1, True)


def test_another_reviewers_labels_do_not_lift_the_override(client, reviewer, second_reviewer, held):
    # Ravi held the case before and labelled both claims supported; now Rita decides.
    Escalation.objects.filter(case=held).update(holder=second_reviewer)
    _label(held, second_reviewer, 0, ClaimLabelKind.SUPPORTED)
    _label(held, second_reviewer, 1, ClaimLabelKind.SUPPORTED)
    Escalation.objects.filter(case=held).update(holder=reviewer)

    refused = client.post(f"/review/cases/{held.pk}/approve", on_version(latest(held)))

    assert refused.status_code == 400 and "2 claims still fail" in refused.content.decode()
    assert approval_check(candidate=latest(held), reviewer=second_reviewer).needs_override is False


def test_the_rule_is_asked_for_again_after_a_label_keeping_the_reason_typed(
    client, reviewer, held, django_assert_max_num_queries
):
    url = f"/review/cases/{held.pk}/?part=approval-rule&override_reason=Checked+by+phone"

    # Asked for after every label: a few queries, not the whole case page's.
    with django_assert_max_num_queries(8):
        fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()

    assert fragment.lstrip().startswith('<div id="approval-rule"') and "<html" not in fragment
    assert 'hx-trigger="htmx:afterRequest from:#claims"' in fragment
    assert re.search(r'<textarea name="override_reason"[^>]* required[^>]*>\s*Checked by phone</textarea>', fragment)

    _label(held, reviewer, 0, ClaimLabelKind.SUPPORTED)
    _label(held, reviewer, 1, ClaimLabelKind.SUPPORTED)
    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()

    assert 'name="override_reason"' not in fragment and "approving needs" not in fragment
    # Without htmx the same address is the whole case page.
    assert "<html" in client.get(url).content.decode()


# --- A claim the reviewer labelled wrong: the engine found it supported, the person did not ------------


@pytest.fixture
def held_supported(client, reviewer, run_as_engine):
    """Rita holds a case whose claims the engine found supported (held back only by the release gate)."""
    case = run_as_engine(gate_record())
    assert not latest(case).claims.exclude(state="SUPPORTED").exists()
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    return case


def test_approving_a_claim_the_reviewer_labelled_refuted_names_it_and_needs_a_reason(client, reviewer, held_supported):
    case = held_supported
    assert 'id="approval-warning"' not in client.get(f"/review/cases/{case.pk}/").content.decode()
    _label(case, reviewer, 0, ClaimLabelKind.REFUTED)
    _label(case, reviewer, 1, ClaimLabelKind.NOT_IN_SOURCES)

    page = client.get(f"/review/cases/{case.pk}/").content.decode()
    assert WARNING.search(page).group(1) == (
        "You labelled “The Team plan costs $20 per user per month.” refuted and “It includes phone support.” not "
        "in the sources: approving needs a written reason."
    )
    assert re.search(r'<textarea name="override_reason"[^>]* required', page)

    refused = client.post(f"/review/cases/{case.pk}/approve", on_version(latest(case)))
    assert refused.status_code == 400
    assert "Approving needs an override reason: you labelled “The Team plan costs $20 per user per month.” " \
        "refuted" in refused.content.decode()
    assert not Decision.objects.exists()

    approved = client.post(f"/review/cases/{case.pk}/approve",
                           on_version(latest(case), override_reason="The customer was quoted this price in writing."))
    assert approved.status_code == 302
    decision = Decision.objects.get()
    assert decision.override_reason == "The customer was quoted this price in writing."
    event = AuditEvent.objects.get(action="decision.approved", object_id=str(decision.pk))
    assert event.payload["override_reason"] == "The customer was quoted this price in writing."
    assert event.payload["overrides_labels"] == [
        {"claim": "k1", "label": "REFUTED"}, {"claim": "k2", "label": "NOT_IN_SOURCES"},
    ]


def test_an_approval_with_no_label_against_it_records_no_overridden_label(client, reviewer, held_supported):
    _label(held_supported, reviewer, 0, ClaimLabelKind.SUPPORTED)

    approved = client.post(f"/review/cases/{held_supported.pk}/approve", on_version(latest(held_supported)))

    assert approved.status_code == 302

    event = AuditEvent.objects.get(action="decision.approved")
    assert (event.payload["override_reason"], event.payload["overrides_labels"]) == ("", [])
