"""A reviewer's tools in a real headless Chromium, by keyboard: a comment on one claim, the constitution's
guidelines, undoing a label and a decision, and the day's progress (a reviewer's, and a lead's team view)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import ClaimComment, ClaimLabel, Decision, Escalation, EscalationStatus
from tests.browser.session import sign_in
from tests.personas import _user_with
from tests.reviewconsole.review.conftest import EARNINGS_CASE, escalate_case, refund_case

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def api_client(db):
    # No webhook URL: the browser tests must not try to reach a client over the network.
    return client_create(name="support-bot")[0]


def _held(page, case: Case) -> None:
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/cases/{case.pk}/")


def test_a_comment_on_a_claim_is_shown_beside_it_to_the_next_reviewer(as_person, reviewer, api_client):
    case = escalate_case(api_client, refund_case())
    _user_with("ravi", Role.REVIEWER)
    rita = as_person("rita")
    _held(rita, case)

    rita.keyboard.press("j")
    rita.keyboard.press("c")
    box = rita.locator("#comment-claim-0")
    assert box.evaluate("e => e === document.activeElement")
    box.fill("<b>Check</b> the 30-day window against the plan's terms.")
    rita.keyboard.press("Control+Enter")
    shown = rita.locator("#comments-claim-0 .comments li")
    shown.wait_for()
    # Escaped: the markup is text, not a bold element.
    assert "<b>Check</b> the 30-day window" in shown.inner_text()
    assert rita.locator("#comments-claim-0 .comments b").count() == 0
    # The focus is back on the claim's row, so j/k go on from there.
    rita.wait_for_function("() => document.activeElement?.id === 'claim-0'")

    # Too long: the reviewer is told the limit, by the field's name, and nothing is stored.
    rita.keyboard.press("c")
    rita.locator("#comment-claim-0").fill("x" * 1001)
    rita.keyboard.press("Control+Enter")
    rita.locator("#comments-claim-0 [role=alert]").get_by_text(
        "comment: at most 1000 characters (1001 written)."
    ).wait_for()
    assert ClaimComment.objects.count() == 1
    event = AuditEvent.objects.get(action="claim.commented")
    assert event.case_id == case.pk and event.payload["text"].startswith("<b>Check</b>")

    rita.get_by_role("button", name="Put it back in the queue").click()
    ravi = as_person("ravi")
    _held(ravi, case)
    beside = ravi.locator("#claim-0 .comments li")
    assert "rita" in beside.inner_text() and "the 30-day window" in beside.inner_text()


def test_a_policy_admin_writes_guidelines_and_a_reviewer_opens_them_with_g(
    as_person, reviewer, policy_admin, api_client
):
    case = escalate_case(api_client, refund_case())
    name = Escalation.objects.get(case=case).case.constitution_pin.document.name
    paul = as_person("paul")
    paul.goto(f"/policy/constitutions/{name}/")
    paul.get_by_label("Guidelines", exact=True).fill("x" * 10_001)
    paul.get_by_role("button", name="Save guidelines").click()
    paul.get_by_text("guidelines: at most 10,000 characters (10,001 written).").wait_for()
    text = ("## Refunds\n\nCheck **every** refund period against the plan's terms.\n\n"
            "- Example: <i>60 days</i> is wrong for annual plans.")
    paul.get_by_label("Guidelines", exact=True).fill(text)
    # The preview follows the typing, rendered as reviewers will see it, before anything is saved.
    paul.locator("#guidelines-preview h2").get_by_text("Refunds").wait_for()
    assert paul.locator("#guidelines-preview strong").inner_text() == "every"
    assert not AuditEvent.objects.filter(action="policy.changed").exists()
    paul.get_by_role("button", name="Save guidelines").click()
    paul.get_by_text(f"Saved the reviewer guidelines of {name}").wait_for()
    event = AuditEvent.objects.get(action="policy.changed", payload__change="guidelines saved")
    assert event.payload["guidelines"] == text

    rita = as_person("rita")
    _held(rita, case)
    panel = rita.locator("#guidelines-text")
    assert not panel.is_visible()
    rita.keyboard.press("g")
    panel.wait_for()
    assert "Check every refund period" in panel.inner_text() and "**" not in panel.inner_text()
    assert panel.locator("h2").inner_text() == "Refunds" and panel.locator("strong").inner_text() == "every"
    # Markdown formats; the HTML in it stays text.
    assert "<i>60 days</i> is wrong" in panel.locator("li").inner_text() and panel.locator("i").count() == 0
    rita.keyboard.press("g")
    assert not panel.is_visible()
    # The keys dialog names the new keys.
    rita.keyboard.press("?")
    keys = rita.locator("#keys-help").inner_text()
    assert "comment on the focused claim" in keys and "undo" in keys and "guidelines" in keys


def test_a_reviewer_undoes_a_label_and_a_decision_with_u(page, reviewer, api_client):
    case = escalate_case(api_client, refund_case())
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, "rita")
    _held(page, case)

    # A first label undone: the claim is unlabelled again.
    page.keyboard.press("j")
    page.keyboard.press("2")
    page.locator("#label-claim-0 .label").get_by_text("Refuted").wait_for()
    page.keyboard.press("u")
    page.locator("#label-claim-0 .label-none").wait_for()
    assert not ClaimLabel.objects.exists()
    # A changed label undone: the one it replaced comes back.
    page.wait_for_function("() => document.activeElement?.id === 'claim-0'")
    page.keyboard.press("1")
    page.locator("#label-claim-0 .label").get_by_text("Supported").wait_for()
    page.keyboard.press("3")
    page.locator("#label-claim-0 .label").get_by_text("Not in the sources").wait_for()
    page.keyboard.press("u")
    page.locator("#label-claim-0 .label").get_by_text("Supported").wait_for()
    assert ClaimLabel.objects.get().label == "SUPPORTED"
    actions = list(AuditEvent.objects.filter(action__startswith="claim.label").values_list("action", flat=True))
    assert actions.count("claim.labelled") == 3 and actions.count("claim.label_undone") == 2

    # A rejection, then undone from the page that follows it: the case is open again, and the reviewer's.
    page.keyboard.press("r")
    page.locator("#reject_reason_code").select_option("WRONG_FACTS")
    page.locator("#decide-reject textarea").fill("60 days is wrong.")
    page.keyboard.press("Control+Enter")
    bar = page.locator("#undo-bar")
    bar.wait_for()
    assert f"You rejected case #{case.pk}" in bar.inner_text()
    assert Escalation.objects.get(case=case).status == EscalationStatus.DECIDED
    page.keyboard.press("u")
    page.get_by_text(f"Your decision on case {case.pk} is undone").wait_for()
    assert page.url.endswith(f"/review/cases/{case.pk}/")
    escalation = Escalation.objects.get(case=case)
    assert escalation.status == EscalationStatus.OPEN and escalation.holder.username == "rita"
    assert not Decision.objects.exists()
    case.refresh_from_db()
    assert case.status == "ESCALATED"
    # The original stays in the log, and the undo is its own event.
    assert AuditEvent.objects.filter(action="decision.rejected", case_id=case.pk).count() == 1
    assert AuditEvent.objects.filter(action="decision.undone", case_id=case.pk).count() == 1
    page.locator("#decide-reject summary").wait_for()  # hers to decide again


def test_progress_for_a_reviewer_and_the_team_view_for_a_lead(as_person, reviewer, api_client):
    first = escalate_case(api_client, refund_case())
    escalate_case(api_client, EARNINGS_CASE)
    Escalation.objects.filter(case=first).update(priority=999)
    lead: User = _user_with("lena", Role.REVIEWER, Role.REVIEW_LEAD)
    rita = as_person("rita")
    rita.goto("/review/")
    assert rita.locator("#decided-today").inner_text() == "0"
    assert rita.locator("#left-in-queue").inner_text() == "2"

    _held(rita, first)
    rita.keyboard.press("r")
    rita.locator("#reject_reason_code").select_option("WRONG_FACTS")
    rita.locator("#decide-reject textarea").fill("60 days is wrong.")
    rita.keyboard.press("Control+Enter")
    rita.locator("#undo-bar").wait_for()  # on the next case, which rita now holds
    held = Escalation.objects.get(holder__username="rita", status=EscalationStatus.OPEN)
    decision = Decision.objects.get()
    assert decision.seconds_spent is not None

    rita.goto("/review/")
    assert rita.locator("#decided-today").inner_text() == "1"
    assert rita.locator("#left-in-queue").inner_text() == "1"  # the case she holds
    assert rita.locator("#median-time").inner_text().endswith(" s")
    rita.goto("/review/decisions/")
    assert rita.locator("#my-decisions .time-spent").first.inner_text().endswith(" s")

    lena = as_person(lead.username)
    lena.get_by_role("link", name="Team", exact=True).click()
    row = lena.locator('[data-person="rita"]')
    assert row.locator(".decided").inner_text() == "1"
    assert row.locator(".held").inner_text() == f"#{held.case_id}"
    assert row.locator(".median").inner_text().endswith(" s")
    assert lena.locator('[data-person="lena"] .decided').inner_text() == "0"


def test_an_undo_offer_leaves_the_screen_when_its_window_ends(page, reviewer, api_client, settings):
    settings.REVIEW_UNDO_SECONDS = 4
    case = escalate_case(api_client, refund_case())
    sign_in(page, "rita")
    _held(page, case)

    page.keyboard.press("j")
    page.keyboard.press("1")
    undo_label = page.locator("#label-claim-0 [data-label-undo]")
    undo_label.wait_for()
    # Gone when the server would refuse it, with no reload: the label stays.
    undo_label.wait_for(state="detached", timeout=8_000)
    assert page.locator("#label-claim-0 .label").inner_text() == "Supported"

    page.keyboard.press("r")
    page.locator("#reject_reason_code").select_option("WRONG_FACTS")
    page.locator("#decide-reject textarea").fill("60 days is wrong.")
    page.keyboard.press("Control+Enter")
    bar = page.locator("#undo-bar")
    bar.wait_for()
    bar.wait_for(state="detached", timeout=8_000)
    page.keyboard.press("u")  # nothing left to undo: the decision stands
    page.wait_for_load_state("networkidle")
    assert Escalation.objects.get(case=case).status == EscalationStatus.DECIDED
