"""Every machine step and human action of a case lands in the chain, in order, with its actor."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.review import services
from reviewconsole.review.models import Escalation
from reviewconsole.review.services import case_note_add
from tests.reviewconsole.audit.conftest import run_case
from tests.reviewconsole.review.conftest import refund_case


def _trail(case) -> list[tuple[str, str]]:
    return list(AuditEvent.objects.filter(case_id=case.pk).order_by("seq").values_list("actor", "action"))


@pytest.mark.django_db
def test_an_approved_case_tells_its_whole_story(history, reviewer):
    case = history.approved
    trail = _trail(case)
    candidates = case.candidates.count()
    repairs = case.repairs.count()
    assert trail[0] == ("client:support-bot", "case.received")
    assert trail.count(("engine", "candidate.created")) == candidates
    assert trail.count(("engine", "claims.verified")) == candidates
    assert trail.count(("engine", "repair.attempted")) == repairs
    actions = [action for _, action in trail]
    assert actions[-4:] == ["case.terminal", "escalation.opened", "lease.claimed", "decision.approved"]
    assert trail[-1][0] == f"user:{reviewer.username}"

    terminal = AuditEvent.objects.get(case_id=case.pk, action="case.terminal")
    assert terminal.payload["terminal"] == case.terminal and terminal.payload["reason"] == case.reason
    approved = AuditEvent.objects.get(case_id=case.pk, action="decision.approved")
    final = case.candidates.order_by("-position").first()
    assert approved.payload["sha256"] == final.sha256 and approved.payload["candidate"] == final.candidate_id
    received = AuditEvent.objects.get(case_id=case.pk, action="case.received")
    assert received.payload["sources"] == {s.source_id: s.sha256 for s in case.sources.all()}


@pytest.mark.django_db
def test_a_released_case_ends_at_its_terminal_state(history):
    actions = [action for _, action in _trail(history.released)]
    assert actions[0] == "case.received" and actions[-1] == "case.terminal"
    assert "escalation.opened" not in actions


@pytest.mark.django_db
def test_rejections_notes_and_releases_are_recorded(history, reviewer):
    rejected = AuditEvent.objects.get(case_id=history.rejected.pk, action="decision.rejected")
    assert rejected.payload["reason_code"] == "WRONG_FACTS"

    case = run_case(history.client, refund_case(external_id="to-skip"))
    escalation = Escalation.objects.get(case=case)
    assert services.escalation_lease_take(escalation=escalation, reviewer=reviewer, now=timezone.now())
    # Taking a case one already holds renews the lease without a second "claimed" event.
    assert services.escalation_lease_take(escalation=escalation, reviewer=reviewer, now=timezone.now())
    case_note_add(escalation=escalation, author=reviewer, text="Checking with billing")
    assert services.escalation_lease_release(escalation=escalation, reviewer=reviewer)
    assert [action for _, action in _trail(case)][-4:] == [
        "escalation.opened", "lease.claimed", "note.added", "lease.released"
    ]
    call_command("audit_verify")
