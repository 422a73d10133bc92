"""The support lead's read-only case view: what was asked, sourced, released, decided, and when."""

from __future__ import annotations

import pytest
from django.test import Client as Browser
from django.urls import reverse

from reviewconsole.audit.models import AuditExport
from reviewconsole.intake.services import client_create
from reviewconsole.review.reasons import code_label
from tests.reviewconsole.api.conftest import SUPPORTED_CASE
from tests.reviewconsole.audit.conftest import run_case

pytestmark = pytest.mark.django_db


def _as(user) -> Browser:
    browser = Browser()
    browser.force_login(user)
    return browser


def test_a_released_case_shows_question_sources_versions_answer_and_timeline_and_no_decision_controls(
    history, support_lead
):
    case = history.released
    page = _as(support_lead).get(reverse("audit:case", args=[case.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert SUPPORTED_CASE["question"] in html
    for source in SUPPORTED_CASE["sources"]:
        assert source["text"][:60] in html
    record = page.context["record"]
    assert record.released_answer == case.final_answer and case.final_answer in html
    assert [c.candidate_id for c in record.candidates] == list(
        case.candidates.order_by("position").values_list("candidate_id", flat=True)
    )
    assert "the engine released it" in html
    assert [e.action for e in record.timeline][0] == "case.received"
    assert "case.terminal" in html
    # Read-only: no form posts anywhere but sign-out.
    assert html.count("<form") == html.count('action="/logout/"')
    for control in ("Approve", "Reject", "Save and verify again"):
        assert f">{control}<" not in html


def test_decided_cases_show_who_decided_and_what_the_customer_got(history, support_lead):
    browser = _as(support_lead)
    approved = browser.get(reverse("audit:case", args=[history.approved.pk])).content.decode()
    assert "Approved" in approved and "by rita" in approved
    assert history.approved.candidates.order_by("-position").first().text[:50] in approved
    rejected = browser.get(reverse("audit:case", args=[history.rejected.pk]))
    assert rejected.context["record"].released_answer is None
    text = rejected.content.decode()
    assert "Nothing was released: a reviewer rejected it" in text and "contradicts the policy" in text
    decisions = text[text.index('<ul id="decisions">'):]
    decisions = decisions[: decisions.index("</ul>")]
    assert code_label("WRONG_FACTS") in decisions and "WRONG_FACTS" not in decisions


def test_client_text_is_escaped(db, support_lead):
    case = run_case(client_create(name="bot")[0], {**SUPPORTED_CASE, "question": "<script>alert(1)</script> refund?"})
    html = _as(support_lead).get(reverse("audit:case", args=[case.pk])).content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_search_results_link_to_the_case(history, support_lead):
    browser = _as(support_lead)
    link = f'href="{reverse("audit:case", args=[history.released.pk])}"'
    assert link in browser.get(reverse("audit:cases")).content.decode()
    assert link in browser.get(reverse("audit:events"), {"case": history.released.pk}).content.decode()


def test_only_support_leads_read_cases_here_and_an_unknown_case_is_a_404_that_says_so(
    history, reviewer, policy_admin, outsider, support_lead
):
    url = reverse("audit:case", args=[history.released.pk])
    for user in (reviewer, policy_admin, outsider):
        assert _as(user).get(url).status_code == 403
    assert Browser().get(url).status_code == 302
    missing = _as(support_lead).get(reverse("audit:case", args=[999999]))
    assert missing.status_code == 404 and "There is no case #999999." in missing.content.decode()


def test_an_export_of_one_case_links_to_that_case(history, support_lead):
    browser = _as(support_lead)
    browser.post(reverse("audit:export_create"), {"case": history.approved.pk, "format": "csv"})
    export = AuditExport.objects.get()
    page = browser.get(reverse("audit:export", args=[export.pk])).content.decode()
    assert f'case <a href="{reverse("audit:case", args=[history.approved.pk])}">#{history.approved.pk}</a>' in page
