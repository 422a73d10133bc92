"""A run the release gate held back goes to a person: its priority sits below unsupported claims, and its
severity is that of the claims held back."""

from __future__ import annotations

import pytest

from reviewconsole.intake import services
from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.intake.tasks import verify_case
from reviewconsole.review.models import Escalation
from reviewconsole.review.services import escalation_priority
from reviewconsole.webhooks.models import WebhookDelivery
from tests.reviewconsole.review.conftest import PLANS_CASE, gate_record
from verification import Case as ContractCase
from verification import RunRecord, Severity

pytestmark = pytest.mark.django_db


def _run(api_client, monkeypatch, record: RunRecord) -> Case:
    monkeypatch.setattr("reviewconsole.intake.services.run_engine", lambda case, **options: record)
    api_client.client.webhook_url = "http://127.0.0.1:9/hooks"
    api_client.client.save()
    case, _ = services.case_submit(client=api_client.client, submission=ContractCase.model_validate(PLANS_CASE))
    verify_case.apply(args=(case.pk,))
    return Case.objects.get(pk=case.pk)


def test_a_supported_but_uncertain_answer_ranks_below_unsupported_claims_of_the_same_severity():
    held_back = escalation_priority(severity="MODERATE", reason="BELOW_RELEASE_THRESHOLD")
    assert escalation_priority(severity="MODERATE", reason="UNSUPPORTED_CLAIM") > held_back
    assert held_back > escalation_priority(severity="MODERATE", reason="NO_CHECKABLE_CLAIMS")
    assert held_back > escalation_priority(severity="MODERATE", reason="SOME_REASON_NOT_KNOWN_YET")
    assert held_back == 212


def test_a_held_back_run_is_escalated_with_the_severity_of_the_claim_held_back(api_client, monkeypatch):
    record = gate_record(price_severity=Severity.CRITICAL, support_severity=Severity.MINOR)

    case = _run(api_client, monkeypatch, record)

    escalation = Escalation.objects.get(case=case)
    assert case.status == CaseStatus.ESCALATED and case.reason == "BELOW_RELEASE_THRESHOLD"
    # The critical price claim cleared the gate; what a person must look at is the minor one.
    assert (escalation.reason, escalation.severity, escalation.priority) == ("BELOW_RELEASE_THRESHOLD", "MINOR", 112)
    delivery = WebhookDelivery.objects.get(case=case)
    assert delivery.payload["reason"] == "BELOW_RELEASE_THRESHOLD" and delivery.payload["answer"] is None
