"""The breaker per calibration stratum: spot checks of released answers are counted by what their evidence
was, and a stratum whose unsafe share is above the budget stops that stratum's releases alone."""

from __future__ import annotations

import pytest
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Candidate, Case, CaseStatus, Claim
from reviewconsole.intake.release_hold import release_hold
from reviewconsole.intake.services import client_create
from reviewconsole.policy.breaker import open_breaker
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.review.models import ClaimLabel, Escalation
from reviewconsole.support.breaker_watch import breaker_check
from verification import RunRecord, Terminal

pytestmark = pytest.mark.django_db(transaction=True)


def _spot_check(client, reviewer, stratum: str, label: str) -> Case:
    pin = constitution_in_force("default")
    case = Case.objects.create(client=client, question="q", answer="a", status=CaseStatus.RELEASED,
                               constitution_name="default", constitution_pin=pin, terminal="PERMIT",
                               reason="ALL_SUPPORTED", run_record={"release_stratum": stratum})
    candidate = Candidate.objects.create(case=case, position=0, candidate_id="c0", origin="CLIENT", text="a",
                                         sha256="0" * 64)
    claim = Claim.objects.create(candidate=candidate, position=0, claim_id="k0", text="a", start=0, end=1,
                                 state="SUPPORTED", severity="MINOR", method="offline", confidence=0.9,
                                 release_score=0.95)
    Escalation.objects.create(case=case, reason="ALL_SUPPORTED", severity="MINOR", is_spot_check=True)
    ClaimLabel.objects.create(claim=claim, case=case, reviewer=reviewer, label=label)
    return case


def test_a_stratum_whose_spot_checks_are_unsafe_stops_its_own_releases_only(reviewer):
    client, _ = client_create(name="bot")
    for _ in range(3):
        _spot_check(client, reviewer, "aligned", "REFUTED")
    for _ in range(20):
        _spot_check(client, reviewer, "proven", "SUPPORTED")

    opened = breaker_check(constitution="default", now=timezone.now())

    assert [(breaker.stratum, breaker.evidence["spot_checks"], breaker.evidence["unsafe"]) for breaker in opened] == [
        ("aligned", 3, 3)]
    assert AuditEvent.objects.filter(action="gate.paused", payload__stratum="aligned").count() == 1
    assert open_breaker("default", "aligned") is not None and open_breaker("default", "proven") is None
    assert open_breaker("default") is None  # the whole constitution's releases run
    fresh = Case.objects.create(client=client, question="q", constitution_name="default",
                                constitution_pin=constitution_in_force("default"))
    # The two fields the hold reads of a run record: what the engine decided, and the answer's stratum.
    def released(stratum: str) -> RunRecord:
        return RunRecord.model_construct(terminal=Terminal.PERMIT, release_stratum=stratum)

    assert release_hold(fresh, released("aligned")) == "BREAKER"
    assert release_hold(fresh, released("proven")) == ""
    # Checked again, nothing opens twice.
    assert breaker_check(constitution="default", now=timezone.now()) == []
