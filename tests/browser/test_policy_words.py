"""The policy pages in a real browser speak in words, not codes: the editor's routing checkboxes, a version's
double-review setting as a sentence, and rule health that keeps rules nobody checked apart."""

from __future__ import annotations

import re

import pytest

from reviewconsole.intake.models import Candidate, Case, RuleVerdict
from reviewconsole.intake.services import client_create
from tests.browser.session import sign_in
from tests.reviewconsole.review.conftest import default_policy_publish

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = re.compile(r"\b[A-Z]+(?:_[A-Z]+)+\b")  # ALL_SUPPORTED, BELOW_RELEASE_THRESHOLD, NOT_CALIBRATED ...


def test_the_editor_names_terminals_reasons_and_severities_in_words(page, policy_admin):
    sign_in(page, "paul")
    page.goto("/policy/constitutions/customer-support/v1/edit")

    routing = page.locator("section.card").filter(has=page.get_by_role("heading", name="Routing and budgets"))
    for words in ("Needs review", "Abstained", "All claims supported", "Below the release threshold",
                  "No release calibration for this verifier", "Critical", "Moderate"):
        assert routing.get_by_label(words, exact=True).count() == 1, words
    checkboxes = routing.locator("fieldset label.check")
    assert not [text for text in checkboxes.all_inner_texts() if CODE.search(text) or text.strip() == "PERMIT"]
    # The code stays what the form sends.
    assert routing.get_by_label("Below the release threshold", exact=True).get_attribute("value") == \
        "BELOW_RELEASE_THRESHOLD"


def test_a_versions_double_review_setting_reads_as_a_sentence(page, policy_admin):
    version = default_policy_publish(double_review_reasons=["CRITICAL_CLAIM", "CONFLICTING_EVIDENCE"],
                                     double_review_severities=["CRITICAL", "MODERATE"])
    sign_in(page, "paul")
    page.goto(f"/policy/constitutions/default/v{version.number}/")

    assert page.locator("#double-review").inner_text() == (
        "For a case escalated for critical claim not supported or conflicting evidence, "
        "or whose most severe failing claim is critical or moderate."
    )
    goes_to_a_person = page.locator("#needs-person").inner_text()
    assert "Needs review" in goes_to_a_person and "REVIEW" not in goes_to_a_person

    page.goto("/policy/constitutions/customer-support/v1/")
    kinds = page.locator("td.rule-kind").all_inner_texts()
    assert "Word limit" in kinds and not [kind for kind in kinds if "_" in kind], kinds


def test_rule_health_shows_a_rule_no_model_checked_as_not_checked(page, policy_admin):
    client, _ = client_create(name="support-bot")
    for _ in range(9):
        case = Case.objects.create(client=client, question="q", answer="a", constitution_name="customer-support",
                                   run_record={"non_converging_rules": []})
        candidate = Candidate.objects.create(case=case, position=0, candidate_id="c0", origin="CLIENT", text="a",
                                             sha256="0" * 64)
        RuleVerdict.objects.create(candidate=candidate, position=0, rule="answers-the-question", passed=None,
                                   critique="needs judgment and no model is configured", checked_by="not_checked")
    sign_in(page, "paul")
    page.goto("/policy/rule-health/")

    row = page.locator('tr[data-rule="customer-support/answers-the-question"]')
    assert row.locator("td.judged").inner_text() == "0"
    assert row.locator("td.failed").inner_text() == "—"
    assert row.locator("td.not-checked").inner_text().startswith("9 not checked")
