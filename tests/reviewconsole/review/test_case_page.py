"""The case page explains a case at a glance: header, versions, claims by state, evidence, diff."""

from __future__ import annotations

import re

import pytest
from django.utils.html import escape

from reviewconsole.intake.models import Candidate, Case, CaseStatus, RepairAttempt
from reviewconsole.review.models import Escalation
from tests.reviewconsole.review.conftest import refund_case

pytestmark = pytest.mark.django_db


def test_anonymous_and_other_roles_are_refused(client, support_lead, outsider, escalate):
    case = escalate()
    url = f"/review/cases/{case.pk}/"
    assert client.get(url)["Location"] == f"/login/?next={url}"
    for user in (support_lead, outsider):
        client.force_login(user)
        assert client.get(url).status_code == 403


def test_only_cases_sent_to_review_can_be_opened(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    Escalation.objects.filter(case=case).delete()
    assert client.get(f"/review/cases/{case.pk}/").status_code == 404
    assert client.post(f"/review/cases/{case.pk}/approve").status_code == 404


def test_wrong_method(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    assert client.post(f"/review/cases/{case.pk}/").status_code == 405
    for action in ("approve", "edit", "reject", "notes", "release"):
        assert client.get(f"/review/cases/{case.pk}/{action}").status_code == 405


def test_header_timeline_claims_and_evidence(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "Can I get a refund on my annual plan?" in html
    assert "support-bot" in html and "REVIEW" in html and "CRITICAL_CLAIM" in html
    assert "Repairs" in html and "/ 6" in html  # budget usage against the constitution's limit
    # The chain as the engine stored it, each step with its origin and operation.
    candidates = list(Candidate.objects.filter(case=case))
    assert len(candidates) >= 2
    for candidate in candidates:
        step = f'<strong>{candidate.candidate_id}</strong></a> · <span class="origin">{candidate.origin}</span>'
        assert step + (f" · {candidate.operation}" if candidate.operation else "") in html
    for repair in RepairAttempt.objects.filter(case=case).exclude(outcome="ACCEPTED"):
        assert repair.operation in html and escape(repair.failure) in html
    # The diff from the client's answer to the current version: the refuted claim was removed or replaced.
    assert re.search(r'change-(removed|changed)">.*?k1.*?Refuted', html, re.S)
    assert escape(case.run_record["review_package"]["policy_reason"]) in html


def test_an_older_version_shows_its_refuted_claim_with_evidence_highlighted(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/?version=c0").content.decode()

    # The claim is marked in the answer, with its state in words beside the colour.
    assert re.search(r'<mark id="text-claim-0" class="state-refuted"[^>]*>You can request a full refund', html)
    assert '<span class="state state-refuted">Refuted</span>' in html
    # Its evidence span is marked in the source and linked from the claim, and back.
    mark = re.search(r'<a class="mark-link" href="#claim-0"><mark id="(ev-0-\d)" class="state-refuted"', html)
    assert mark and f'href="#{mark.group(1)}"' in html
    assert "Annual plans can be refunded in full within 30 days of purchase.</mark>" in html


def test_diff_between_any_two_versions_by_htmx(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    url = f"/review/cases/{case.pk}/?older=c1&newer=c0"

    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
    full = client.get(url).content.decode()

    assert fragment.lstrip().startswith('<div id="diff">') and "<html" not in fragment
    assert "c1 → c0" in fragment
    # Going from c1 back to c0, the refuted claim comes back (added, or changed back to its old text).
    assert re.search(r'change-(added|changed)">.*?k1', fragment, re.S)
    assert "<html" in full and "c1 → c0" in full


def test_client_and_model_text_is_escaped(client, reviewer, escalate):
    body = refund_case(
        question="Refund? <img src=x onerror=alert(1)>",
        answer="You can request a full refund within 60 days <script>alert(1)</script> of purchase. "
        "Approved refunds are returned to the original payment method within 5 to 10 business days.",
    )
    case = escalate(body)
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/?version=c0").content.decode()

    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_spot_check_of_a_released_case_has_no_review_package(client, reviewer, escalate):
    case = escalate()
    Case.objects.filter(pk=case.pk).update(status=CaseStatus.RELEASED, run_record=None)
    Escalation.objects.filter(case=case).update(is_spot_check=True)
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "spot check" in html and "left no review package" in html
