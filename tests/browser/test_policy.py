"""A policy admin in a real browser: edit a word limit, try it on a sample live, publish, and a new case uses it."""

from __future__ import annotations

import json

import pytest

from reviewconsole.intake.models import Case
from reviewconsole.intake.services import client_create
from reviewconsole.policy.models import ConstitutionVersion, VersionStatus
from tests.browser.session import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCE = ("[refund-policy] Annual plans can be refunded in full within 30 days of purchase. Approved refunds are "
          "returned to the original payment method within 5 to 10 business days.")
LONG_ANSWER = ("Annual plans can be refunded in full within 30 days of purchase. Approved refunds are returned to "
               "the original payment method within 5 to 10 business days.")
SHORT_ANSWER = "Annual plans can be refunded within 30 days."



def test_an_admin_edits_a_word_limit_tries_it_publishes_it_and_a_new_case_uses_it(page, policy_admin):
    _, token = client_create(name="support-bot")
    sign_in(page, "paul")

    page.get_by_role("link", name="Policy").click()
    page.get_by_role("link", name="customer-support").click()
    page.get_by_role("link", name="v1", exact=True).click()
    page.get_by_role("link", name="Edit (saves a new version)").click()
    word_limit = page.locator("#rule-0")
    assert word_limit.get_by_label("Most words").input_value() == "150"
    word_limit.get_by_label("Most words").fill("20")
    page.get_by_label("What changed (for the history)").fill("replies of 20 words at most")
    page.get_by_role("button", name="Save as a new version").click()

    page.get_by_text("Saved as draft v2").wait_for()
    assert "Draft" in page.get_by_role("heading", level=1).inner_text()
    page.get_by_role("link", name="Try it on a sample").click()
    page.get_by_label("Question").fill("Can I get a refund on my annual plan?")
    page.locator("#try-sources").fill(SOURCE)
    page.get_by_label("Answer").fill(LONG_ANSWER)
    page.get_by_role("button", name="Check").click()

    row = page.locator('#result tr[data-rule="word-limit"]')
    row.locator(".verdict .tag.fail").wait_for()
    assert row.locator(".verdict-in-force").inner_text() == "pass"
    assert "changed" in row.inner_text() and "the limit is 20" in row.inner_text()
    # Live: shortening the answer re-checks it through htmx, with no click and no page load.
    page.get_by_label("Answer").fill(SHORT_ANSWER)
    row.locator(".verdict .tag.pass").wait_for()
    assert "changed" not in row.inner_text()
    # A sample the engine cannot check says which field is missing, in place of the stale result.
    page.locator("#try-sources").fill("")
    page.get_by_text("sources: paste at least one source").wait_for()
    page.locator("#try-sources").fill(SOURCE)
    row.locator(".verdict .tag.pass").wait_for()
    assert ConstitutionVersion.objects.get(document__name="customer-support", number=2).status == VersionStatus.DRAFT

    page.get_by_role("link", name="v2").first.click()
    page.get_by_role("button", name="Publish v2…").click()
    # Publishing asks first, showing what changes against the version in force.
    page.get_by_role("heading", name="Publish customer-support v2?").wait_for()
    assert "Most words" in page.locator("table.diff").inner_text()
    assert ConstitutionVersion.objects.get(document__name="customer-support", number=2).status == VersionStatus.DRAFT
    page.get_by_role("button", name="Publish v2 now").click()
    page.get_by_text("customer-support v2 is now in force.").wait_for()

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    response = page.request.post("/api/v1/cases", headers=headers, data=json.dumps({
        "question": "Can I get a refund?", "answer": LONG_ANSWER, "constitution": "customer-support",
        "sources": [{"id": "refund-policy", "text": SOURCE.removeprefix("[refund-policy] ")}],
    }))
    assert response.status == 202, response.text()
    case = Case.objects.get(pk=response.json()["id"])
    published = ConstitutionVersion.objects.get(document__name="customer-support", status=VersionStatus.PUBLISHED)
    assert published.number == 2 and case.constitution_pin == published
    assert response.json()["constitution_version"] == published.short_sha
    verdicts = {verdict.rule: verdict for verdict in case.candidates.get(position=0).rule_verdicts.all()}
    assert verdicts["word-limit"].passed is False and "the limit is 20" in verdicts["word-limit"].critique


def test_an_admin_adds_a_rule_removes_another_and_a_mistake_is_shown_on_its_field(page, policy_admin):
    # The second test here: the first one's teardown emptied the tables, built-ins included.
    sign_in(page, "paul")
    page.goto("/policy/constitutions/customer-support/v1/edit")

    page.get_by_role("button", name="Judged rule").click()
    added = page.locator("#rule-5")
    assert added.locator("legend").inner_text() == "Judged rule"
    added.get_by_label("Name").fill("Polite Tone")
    added.get_by_label("Instruction to the judge").fill("The answer is polite.")
    page.locator("#rule-1").get_by_label("Remove this rule").check()
    page.get_by_role("button", name="Save as a new version").click()

    page.get_by_text("Check the fields marked below.").wait_for()
    assert page.locator("#rules-5-name-error").inner_text().startswith("name: use only lower-case letters")
    assert page.locator("#rule-1").get_by_label("Remove this rule").is_checked()
    assert not ConstitutionVersion.objects.filter(document__name="customer-support", number=2).exists()
    page.locator("#rule-5").get_by_label("Name").fill("polite-tone")
    page.get_by_role("button", name="Save as a new version").click()

    page.get_by_text("Saved as draft v2").wait_for()
    rules = ConstitutionVersion.objects.get(document__name="customer-support", number=2).constitution().rules
    assert [rule.name for rule in rules] == ["word-limit", "say-when-not-found", "no-promise-outside-sources",
                                             "answers-the-question", "polite-tone"]
    assert rules[-1].instruction == "The answer is polite."
