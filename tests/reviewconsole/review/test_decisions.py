"""Approve, edit, reject and notes: stored, refused when the case changed, webhook sent, next case opened."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Candidate, Case, CaseStatus
from reviewconsole.intake.services import client_token_rotate
from reviewconsole.review.models import (
    CaseNote,
    Decision,
    DecisionKind,
    EditVerification,
    EditVerificationStatus,
    Escalation,
    EscalationStatus,
)
from reviewconsole.review.tasks import verify_edit
from reviewconsole.webhooks.models import EventType, WebhookDelivery
from tests.reviewconsole.review.conftest import EARNINGS_CASE, FIXED_ANSWER, latest, on_version

pytestmark = pytest.mark.django_db

@pytest.fixture
def claimed(client, reviewer, escalate) -> Case:
    """The reviewer holds the refund case (the top one); the earnings case waits behind it."""
    case = escalate()
    escalate(EARNINGS_CASE)
    Escalation.objects.filter(case=case).update(priority=999)
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    return case


def test_approve_authorizes_the_candidate_shown_and_moves_on(client, reviewer, claimed):
    candidate = latest(claimed)

    response = client.post(f"/review/cases/{claimed.pk}/approve", on_version(candidate, note="fine as repaired"))

    next_case = Escalation.objects.exclude(case=claimed).get()
    assert response.status_code == 302 and response["Location"] == f"/review/cases/{next_case.case_id}/"
    decision = Decision.objects.get(case=claimed)
    assert (decision.kind, decision.candidate, decision.reviewer, decision.note) == (
        DecisionKind.APPROVE, candidate, reviewer, "fine as repaired"
    )
    escalation = Escalation.objects.get(case=claimed)
    assert escalation.status == EscalationStatus.DECIDED and escalation.lease_expires_at is None
    claimed.refresh_from_db()
    assert claimed.status == CaseStatus.RELEASED and claimed.final_answer == candidate.text
    webhook = WebhookDelivery.objects.get(case=claimed, event_type=EventType.CASE_DECIDED)
    assert webhook.payload["decision"]["kind"] == "APPROVE" and webhook.payload["answer"] == candidate.text
    # The next case is now the reviewer's.
    assert next_case.holder == reviewer


def test_the_webhook_and_the_api_tell_a_decision_in_one_shape(client, claimed, settings):
    settings.REVIEW_UNDO_SECONDS = 0  # no undo: the API shows the decision at once
    candidate = latest(claimed)
    client.post(f"/review/cases/{claimed.pk}/approve",
                on_version(candidate, note="fine as repaired", override_reason="checked the invoice by hand"))
    token = client_token_rotate(client=claimed.client)

    from_api = client.get(f"/api/v1/cases/{claimed.pk}", headers={"Authorization": f"Bearer {token}"}).json()
    webhook = WebhookDelivery.objects.get(case=claimed, event_type=EventType.CASE_DECIDED)

    assert webhook.payload["decision"] == from_api["decision"]
    assert from_api["decision"]["kind"] == "APPROVE" and from_api["decision"]["note"] == "fine as repaired"
    assert from_api["decision"]["override"] is True and from_api["decision"]["candidate"] == candidate.candidate_id


def test_approve_is_refused_when_the_case_changed_since_the_page_loaded(client, claimed):
    shown = Candidate.objects.get(case=claimed, candidate_id="c0")  # an older version than the current one

    response = client.post(f"/review/cases/{claimed.pk}/approve", on_version(shown))

    assert response.status_code == 409
    assert "The case changed since you opened it" in response.content.decode()
    assert not Decision.objects.exists() and not WebhookDelivery.objects.filter(event_type="case.decided").exists()
    assert Escalation.objects.get(case=claimed).status == EscalationStatus.OPEN


def test_a_form_without_its_version_says_so_by_field_name(client, claimed):
    # A page saved before a deploy, a browser extension or a hand-made request can drop the hidden fields.
    current = latest(claimed)
    response = client.post(f"/review/cases/{claimed.pk}/approve", {"candidate_id": current.candidate_id, "sha256": ""})

    assert response.status_code == 400
    html = response.content.decode()
    assert "sha256: This field is required." in html and "Reload the case" in html
    assert not Decision.objects.exists()


def test_approving_failing_claims_needs_a_written_override(client, claimed):
    # The client's own answer, with its refuted claim, as the newest version.
    refuted = Candidate.objects.get(case=claimed, candidate_id="c0")
    client.post(f"/review/cases/{claimed.pk}/edit", on_version(latest(claimed), text=refuted.text))
    edit = latest(claimed)
    verify_edit.apply(args=(edit.pk,))

    # The browser is asked to refuse an empty reason before it posts anything (Ctrl+Enter included).
    page = client.get(f"/review/cases/{claimed.pk}/").content.decode()
    assert re.search(r'<textarea name="override_reason"[^>]* required[ >]', page)

    refused = client.post(f"/review/cases/{claimed.pk}/approve", on_version(edit))
    assert refused.status_code == 400
    html = refused.content.decode()
    # The case page again, with why next to the field, and links that still lead to the case.
    assert "Can I get a refund on my annual plan?" in html and "You hold this case" in html
    field = re.search(r'(<textarea name="override_reason"[^>]*>)\s*</textarea><ul class="errorlist" id="(\w+)">'
                      r"<li>Approving needs an override reason: 1 claim still fails and is not labelled "
                      r"supported.</li>", html)
    assert field and f'aria-describedby="{field.group(2)}"' in field.group(1) and " required " in field.group(1)
    # Served at …/approve, a link relative to it (href="?version=c0") would lead to a 405.
    assert f'href="/review/cases/{claimed.pk}/?version=c0#current"' in html and 'href="?' not in html
    assert not Decision.objects.filter(kind=DecisionKind.APPROVE).exists()

    approved = client.post(
        f"/review/cases/{claimed.pk}/approve",
        on_version(edit, override_reason="Customer was promised 60 days by phone."),
    )
    assert approved.status_code == 302
    decision = Decision.objects.get(kind=DecisionKind.APPROVE)
    assert decision.candidate == edit and decision.override_reason == "Customer was promised 60 days by phone."


def test_edit_makes_a_reviewer_candidate_that_a_worker_verifies(
    client, reviewer, claimed, django_capture_on_commit_callbacks
):
    parent = latest(claimed)

    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(
            f"/review/cases/{claimed.pk}/edit", on_version(parent, text=FIXED_ANSWER, note="30 days")
        )

    assert response.status_code == 302 and response["Location"] == f"/review/cases/{claimed.pk}/#current"
    edit = latest(claimed)
    assert (edit.origin, edit.parent, edit.text, edit.candidate_id) == ("REVIEWER", parent, FIXED_ANSWER, "c2")
    assert EditVerification.objects.get(candidate=edit).status == EditVerificationStatus.PENDING
    assert Decision.objects.get(kind=DecisionKind.EDIT).candidate == edit
    assert len(callbacks) == 1  # the re-verification, sent once the edit is committed
    assert Escalation.objects.get(case=claimed).holder == reviewer  # an edit keeps the case

    # While pending: approving is refused, and the page polls for the result.
    assert client.post(f"/review/cases/{claimed.pk}/approve", on_version(edit)).status_code == 409
    poll = client.get(f"/review/cases/{claimed.pk}/edit-status", headers={"HX-Request": "true"})
    assert poll.status_code == 200 and 'hx-trigger="every 1s"' in poll.content.decode()
    assert "<html" not in poll.content.decode()

    verify_edit.apply(args=(edit.pk,))

    verification = EditVerification.objects.get(candidate=edit)
    assert (verification.status, verification.terminal) == (EditVerificationStatus.DONE, "PERMIT")
    assert sorted(edit.claims.values_list("state", flat=True)) == ["SUPPORTED", "SUPPORTED"]
    # The edit is judged against the constitution too, and checked as written (no engine repair).
    assert set(edit.rule_verdicts.values_list("rule", "passed")) >= {("word-limit", True)}
    assert Candidate.objects.filter(case=claimed).count() == 3
    done = client.get(f"/review/cases/{claimed.pk}/edit-status", headers={"HX-Request": "true"})
    assert done.status_code == 200 and done["HX-Refresh"] == "true"
    assert client.get(f"/review/cases/{claimed.pk}/edit-status").status_code == 302  # no htmx: the page
    page = client.get(f"/review/cases/{claimed.pk}/").content.decode()
    assert "Re-verification done: <strong>Cleared for release</strong> · All claims supported." in page

    # Verified and all supported: approved without an override.
    assert client.post(f"/review/cases/{claimed.pk}/approve", on_version(edit)).status_code == 302
    claimed.refresh_from_db()
    assert claimed.final_answer == FIXED_ANSWER and claimed.status == CaseStatus.RELEASED


def test_an_edit_that_breaks_a_blocking_rule_is_stored_and_shown_as_blocking(client, reviewer, escalate):
    case = escalate(constitution="customer-support")
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    parent = latest(case)
    promise = "Refunds are guaranteed within 30 days of purchase."
    assert client.post(f"/review/cases/{case.pk}/edit", on_version(parent, text=promise)).status_code == 302
    edit = latest(case)

    verify_edit.apply(args=(edit.pk,))

    assert edit.rule_verdicts.get(rule="no-guarantees").blocking is True
    assert edit.rule_verdicts.get(rule="word-limit").blocking is False
    page = client.get(f"/review/cases/{case.pk}/").content.decode()
    assert re.search(r"<strong>no-guarantees</strong>.*?<span class=\"tag fail\">blocking</span>", page)


def test_edit_refuses_an_unchanged_or_empty_answer(client, claimed):
    current = latest(claimed)
    for text in (current.text, "   "):
        response = client.post(f"/review/cases/{claimed.pk}/edit", on_version(current, text=text))
        assert response.status_code == 400
    assert Candidate.objects.filter(case=claimed).count() == 2


def test_reject_needs_a_reason_code_and_a_note(client, claimed):
    candidate = latest(claimed)
    refused = client.post(f"/review/cases/{claimed.pk}/reject", on_version(candidate, reason_code="NOPE"))
    assert refused.status_code == 400

    response = client.post(
        f"/review/cases/{claimed.pk}/reject",
        on_version(candidate, reason_code="WRONG_FACTS", note="Policy is 30 days."),
    )

    assert response.status_code == 302
    decision = Decision.objects.get(case=claimed)
    assert (decision.kind, decision.reason_code, decision.note) == ("REJECT", "WRONG_FACTS", "Policy is 30 days.")
    claimed.refresh_from_db()
    assert claimed.status == CaseStatus.REJECTED
    webhook = WebhookDelivery.objects.get(case=claimed, event_type=EventType.CASE_DECIDED)
    assert webhook.payload["decision"]["reason_code"] == "WRONG_FACTS" and webhook.payload["answer"] is None


def test_a_case_held_by_another_reviewer_cannot_be_decided(client, claimed):
    actions = [f'action="/review/cases/{claimed.pk}/{action}"' for action in ("approve", "edit", "reject")]
    mine = client.get(f"/review/cases/{claimed.pk}/").content.decode()
    assert all(action in mine for action in actions)
    other = User.objects.create_user(username="ravi")
    other.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    client.force_login(other)

    page = client.get(f"/review/cases/{claimed.pk}/").content.decode()
    response = client.post(f"/review/cases/{claimed.pk}/approve", on_version(latest(claimed)))

    assert "Held by rita" in page and "rita is deciding this case" in page
    # No decision controls to fill in for nothing; notes stay open to everyone.
    assert not any(action in page for action in actions) and 'id="decide-' not in page
    assert f'action="/review/cases/{claimed.pk}/notes"' in page
    # The server still refuses a decision posted anyway.
    assert response.status_code == 409 and "Another reviewer holds this case" in response.content.decode()
    assert not Decision.objects.exists()


def test_a_case_nobody_holds_offers_no_decision_until_it_is_claimed(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    actions = [f'action="/review/cases/{case.pk}/{action}"' for action in ("approve", "edit", "reject")]

    page = client.get(f"/review/cases/{case.pk}/").content.decode()
    response = client.post(f"/review/cases/{case.pk}/approve", on_version(latest(case)))

    # Opened from the queue: the reviewer reads it, and is told to claim it to decide.
    assert "Nobody holds this case." in page and 'id="claim-first-note"' in page
    assert not any(action in page for action in actions) and 'id="decide-' not in page
    # The server refuses a decision posted anyway, and says what to do.
    assert response.status_code == 409 and "Claim this case before you decide it" in response.content.decode()
    assert not Decision.objects.exists()

    client.post(f"/review/cases/{case.pk}/lease", {"take": "1"})
    page = client.get(f"/review/cases/{case.pk}/").content.decode()
    assert all(action in page for action in actions) and 'id="claim-first-note"' not in page


def test_a_decided_case_cannot_be_decided_again(client, claimed):
    candidate = latest(claimed)
    client.post(f"/review/cases/{claimed.pk}/approve", on_version(candidate))
    again = client.post(f"/review/cases/{claimed.pk}/reject", on_version(candidate, reason_code="OTHER", note="x"))
    assert again.status_code == 409 and Decision.objects.count() == 1


def test_decisions_are_for_reviewers_only(client, support_lead, claimed):
    client.force_login(support_lead)
    assert client.post(f"/review/cases/{claimed.pk}/approve", on_version(latest(claimed))).status_code == 403
    client.logout()
    assert client.post(f"/review/cases/{claimed.pk}/approve", on_version(latest(claimed))).status_code == 302
    assert not Decision.objects.exists()


def test_notes_on_a_case(client, reviewer, claimed):
    assert client.post(f"/review/cases/{claimed.pk}/notes", {"text": " "}).status_code == 400

    response = client.post(f"/review/cases/{claimed.pk}/notes", {"text": "Check the <b>phone log</b>."})

    assert response.status_code == 302 and response["Location"].endswith("#notes")
    note = CaseNote.objects.get(case=claimed)
    assert (note.author, note.text) == (reviewer, "Check the <b>phone log</b>.")
    html = client.get(f"/review/cases/{claimed.pk}/").content.decode()
    assert "Check the &lt;b&gt;phone log&lt;/b&gt;." in html


def test_a_reviewer_may_note_a_case_another_holds_and_the_page_says_so(client, reviewer, claimed):
    """Wanted: a note is how a colleague tells the holder something (a hand-off, a fact to check); it decides
    nothing and is audited under its author."""
    other = User.objects.create_user(username="ravi")
    other.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    client.force_login(other)
    page = client.get(f"/review/cases/{claimed.pk}/").content.decode()
    assert "rita is deciding this case. You can read it and add a note (under Notes)" in page
    assert ('id="notes-for-holder">rita holds this case, and you may still add a note: it decides nothing, is kept '
            'under your name in the audit trail, and rita sees it here.</p>') in page

    response = client.post(f"/review/cases/{claimed.pk}/notes", {"text": "The customer called again today."})

    assert response.status_code == 302
    note = CaseNote.objects.get(case=claimed)
    assert note.author == other
    assert AuditEvent.objects.get(action="note.added").actor == "user:ravi"
    client.force_login(reviewer)
    held = client.get(f"/review/cases/{claimed.pk}/").content.decode()
    assert "<strong>ravi</strong>" in held and "The customer called again today." in held
    assert 'id="notes-for-holder"' not in held  # the holder is not told they may note their own case


def test_approving_without_failing_claims_asks_for_no_override(client, claimed):
    page = client.get(f"/review/cases/{claimed.pk}/").content.decode()
    assert 'name="override_reason"' not in page and "approving needs a written reason" not in page


def test_my_decisions_lists_only_my_own(client, reviewer, claimed):
    client.post(f"/review/cases/{claimed.pk}/approve", on_version(latest(claimed), note="mine"))
    other = User.objects.create_user(username="ravi")
    Decision.objects.create(case=claimed, reviewer=other, kind="REJECT", candidate=latest(claimed), note="theirs")

    html = client.get("/review/decisions/").content.decode()

    assert "mine" in html and "theirs" not in html and f"#{claimed.pk}" in html
    assert client.post("/review/decisions/").status_code == 405
    client.logout()
    assert client.get("/review/decisions/").status_code == 302


def test_my_decisions_give_the_reject_reason_in_words(client, claimed):
    client.post(
        f"/review/cases/{claimed.pk}/reject",
        on_version(latest(claimed), reason_code="NOT_IN_SOURCES", note="No source."),
    )

    html = client.get("/review/decisions/").content.decode()

    assert "<td>Not backed by the sources</td>" in html and "NOT_IN_SOURCES" not in html
