"""Claim labels in a real headless Chromium: labelling by keyboard, and a blind spot check that shows the
engine's verdicts only once every claim is labelled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.intake.models import Case
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.review.models import ClaimLabel, Escalation
from tests.browser.session import sign_in
from tests.reviewconsole.review.conftest import PLANS_CASE, escalate_case, latest, refund_case
from tests.reviewconsole.review.test_labels_blind import CLIENT_ANSWER, released_record
from verification import Case as Submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def api_client(db):
    # No webhook URL: the browser tests must not try to reach a client over the network.
    return client_create(name="support-bot")[0]


def _focused_row(page) -> str | None:
    return page.evaluate("() => document.activeElement?.closest('[data-claim-row]')?.id ?? null")


def test_a_reviewer_labels_claims_by_keyboard(page, reviewer, api_client):
    case = escalate_case(api_client, refund_case())
    claims = list(latest(case).claims.all())
    assert len(claims) >= 2
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{case.pk}/")

    page.keyboard.press("j")
    assert _focused_row(page) == "claim-0"
    # The focus is visible: the focused row is outlined.
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
    page.keyboard.press("2")
    page.locator("#label-claim-0 .label").get_by_text("Refuted").wait_for()

    page.keyboard.press("j")
    assert _focused_row(page) == "claim-1"
    page.keyboard.press("1")
    page.locator("#label-claim-1 .label").get_by_text("Supported").wait_for()

    # Back up with k and change the first label: the focus stayed on the rows through each swap.
    page.keyboard.press("k")
    assert _focused_row(page) == "claim-0"
    page.keyboard.press("3")
    page.locator("#label-claim-0 .label").get_by_text("Not in the sources").wait_for()

    stored = {label.claim.position: (label.label, label.reviewer.get_username(), label.blind)
              for label in ClaimLabel.objects.select_related("claim", "reviewer")}
    assert stored == {0: ("NOT_IN_SOURCES", "rita", False), 1: ("SUPPORTED", "rita", False)}
    # After a reload the labels are still shown beside the engine's states.
    page.reload()
    row = page.locator("#claim-0")
    assert row.locator(".state").count() == 1
    assert row.locator(".label").inner_text() == "Not in the sources"
    assert row.locator('button[data-label-key="3"]').get_attribute("aria-pressed") == "true"

    # A label the server refuses (the lease ran out meanwhile) says why in the claim's cell; nothing changes.
    Escalation.objects.filter(case=case).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    page.locator('#claim-1 button[data-label-key="2"]').click()
    page.locator("#label-claim-1 [role=alert]").get_by_text("You do not hold this case").wait_for()
    assert ClaimLabel.objects.get(claim__position=1).label == "SUPPORTED"
    # The button it came from is gone with the old cell; the focus is back on the claim's row (moved there
    # once the swap settles, a moment after the alert shows).
    page.wait_for_function("() => document.activeElement?.closest('[data-claim-row]')?.id === 'claim-1'",
                           timeout=5000)
    assert _focused_row(page) == "claim-1"


@pytest.fixture
def spot_check(monkeypatch, settings, api_client) -> Case:
    """A released two-claim answer the engine repaired, drawn for a spot check."""
    settings.SPOT_CHECK_RATE = 1.0
    monkeypatch.setattr("reviewconsole.intake.services.run_engine", lambda case, **options: released_record())
    body = {**PLANS_CASE, "answer": CLIENT_ANSWER, "external_id": "plans-released"}
    case, _ = case_submit(client=api_client, submission=Submission.model_validate(body))
    verify_case.apply(args=(case.pk,))
    case.refresh_from_db()
    assert case.status == "RELEASED" and case.escalation.is_spot_check
    return case


def test_a_blind_spot_check_hides_the_verdicts_until_every_claim_is_labelled(page, reviewer, spot_check):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{spot_check.pk}/")

    blind_note = page.locator("#blind-note")
    assert "(2 to go)" in blind_note.inner_text()
    hidden = ["#release-gate", ".state", ".release-score", ".evidence-link", "#diff", "mark[id^=ev-]"]
    for selector in hidden:
        assert page.locator(selector).count() == 0, selector
    assert page.get_by_text("No legal advice is given.").count() == 0

    page.keyboard.press("j")
    page.keyboard.press("1")
    page.locator("#label-claim-0 .label").get_by_text("Supported").wait_for()
    assert "(1 to go)" in blind_note.inner_text()
    for selector in hidden:
        assert page.locator(selector).count() == 0, selector

    # The last label reloads the page, and everything the engine decided is there.
    page.keyboard.press("j")
    page.keyboard.press("2")
    page.locator("#release-gate").wait_for()
    assert page.locator("#blind-note").count() == 0
    assert page.locator("#claim-0 .state").inner_text() == "Supported"
    assert page.locator("#claim-1 .label").inner_text() == "Refuted"
    assert page.get_by_text("No legal advice is given.").count() == 1
    assert page.locator("#diff").count() == 1
    assert sorted(ClaimLabel.objects.values_list("label", "blind")) == [("REFUTED", True), ("SUPPORTED", True)]


def _console_errors(page) -> list[str]:
    """Errors the page logs or throws from now on (htmx logs a selector that matches nothing as one)."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def test_a_spot_check_opened_from_the_queue_is_blind_from_its_header_and_says_to_claim_it(page, reviewer, spot_check):
    errors = _console_errors(page)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    page.goto(f"/review/cases/{spot_check.pk}/")

    # Not held: the header tells nothing of the engine's verdict, and the hint matches what the page offers.
    header = page.locator("header.case-head")
    for verdict in ("Cleared for release", "Repaired", "All claims supported", "Moderate"):
        assert verdict not in header.inner_text(), verdict
    assert "Hidden until you have labelled every claim" in header.inner_text()
    note = page.locator("#blind-note")
    assert "Claim it (at the top of the page) to label each claim" in note.inner_text()
    assert "label it:" not in note.inner_text()
    assert page.locator("[data-label-form]").count() == 0
    assert page.locator("#decide-approve").count() == 0 and page.locator("#decide-reject").count() == 0
    claim_first = page.locator("#claim-first-note").inner_text()
    assert "Claim it (at the top of the page) to approve, edit or reject" in claim_first

    page.get_by_role("button", name="Claim it").click()
    page.locator("#label-claim-0 [data-label-form]").wait_for()
    assert "Read each claim against the sources and label it:" in note.inner_text()
    assert page.locator("#decide-approve").count() == 1 and page.locator("#claim-first-note").count() == 0
    assert "Cleared for release" not in header.inner_text()

    page.locator("#label-claim-0").get_by_role("button", name="Supported").click()
    page.locator("#label-claim-0 .label").get_by_text("Supported").wait_for()
    page.wait_for_load_state("networkidle")  # the approve rule asked for again after the label
    page.locator("#label-claim-1").get_by_role("button", name="Refuted").click()
    # The last label reloads the page: now the verdict is in the header.
    page.locator("#release-gate").wait_for()
    assert "Cleared for release" in page.locator("header.case-head").inner_text()
    page.wait_for_load_state("networkidle")
    assert errors == []


def test_labelling_claims_logs_no_error_in_the_browser(page, reviewer, api_client):
    case = escalate_case(api_client, refund_case())
    errors = _console_errors(page)
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{case.pk}/")

    for position in range(latest(case).claims.count()):
        page.locator(f"#label-claim-{position}").get_by_role("button", name="Supported").click()
        page.locator(f"#label-claim-{position} .label").get_by_text("Supported").wait_for()
        page.wait_for_load_state("networkidle")

    assert ClaimLabel.objects.filter(label="SUPPORTED").count() == latest(case).claims.count()
    assert errors == []
