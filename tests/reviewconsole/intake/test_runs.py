"""verify_case: claiming, storing the chain once, routing, failures, and the stuck-case sweeper."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.intake import services
from reviewconsole.intake.models import Candidate, Case, CaseStatus, Claim
from reviewconsole.intake.tasks import verify_case
from reviewconsole.policy.engine import run_engine
from reviewconsole.review.models import Escalation
from reviewconsole.review.services import escalation_priority
from reviewconsole.sweeper import sweep_claims
from reviewconsole.webhooks.models import WebhookDelivery
from tests.reviewconsole.api.conftest import SUPPORTED_CASE, case_body
from verification import Case as ContractCase


def _submitted(api_client, body=None, *, webhook: bool = True) -> Case:
    if webhook:
        api_client.client.webhook_url = "http://127.0.0.1:9/hooks"
        api_client.client.save()
    case, created = services.case_submit(
        client=api_client.client, submission=ContractCase.model_validate(body or case_body())
    )
    assert created
    return case


def test_a_run_stores_the_whole_chain_once_and_opens_an_escalation(api_client):
    case = _submitted(api_client)

    verify_case.apply(args=(case.pk,))
    verify_case.apply(args=(case.pk,))  # a duplicate message finds the case finished

    case.refresh_from_db()
    assert case.status == CaseStatus.ESCALATED
    assert case.attempts == 1
    chain = case.run_record["candidates"]
    assert list(Candidate.objects.filter(case=case).values_list("candidate_id", flat=True)) == [c["id"] for c in chain]
    first = Candidate.objects.get(case=case, position=0)
    assert first.origin == "CLIENT" and first.text == case_body()["answer"]
    claim_texts = list(Claim.objects.filter(candidate=first).values_list("text", flat=True))
    assert claim_texts == [c["text"] for c in chain[0]["claims"]]
    escalation = Escalation.objects.get(case=case)
    assert escalation.priority > 0
    delivery = WebhookDelivery.objects.get(case=case)
    assert delivery.event_type == "case.escalated"
    assert delivery.payload["status"] == "ESCALATED" and delivery.payload["answer"] is None


def test_a_supported_answer_is_released_with_its_answer_in_the_webhook(api_client):
    case = _submitted(api_client, SUPPORTED_CASE)
    verify_case.apply(args=(case.pk,))
    case.refresh_from_db()
    assert case.status == CaseStatus.RELEASED
    assert not Escalation.objects.filter(case=case).exists()
    assert WebhookDelivery.objects.get(case=case).payload["answer"] == SUPPORTED_CASE["answer"]


def test_every_released_case_is_spot_checked_when_the_share_is_one(api_client, settings):
    settings.SPOT_CHECK_RATE = 1.0
    case = _submitted(api_client, SUPPORTED_CASE)
    verify_case.apply(args=(case.pk,))
    escalation = Escalation.objects.get(case=case)
    assert escalation.is_spot_check and escalation.priority == 0
    assert Case.objects.get(pk=case.pk).status == CaseStatus.RELEASED


def test_a_case_running_elsewhere_is_not_claimed_until_its_deadline_passes(api_client, settings):
    case = _submitted(api_client)
    now = timezone.now()
    first = services.case_run_claim(case_id=case.pk, now=now)

    assert first is not None
    assert services.case_run_claim(case_id=case.pk, now=now + timedelta(seconds=10)) is None
    assert first.deadline >= now + timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    later = services.case_run_claim(case_id=case.pk, now=first.deadline + timedelta(seconds=1))
    assert later is not None and later.token != first.token


def test_a_run_whose_claim_was_taken_over_stores_nothing(api_client):
    case = _submitted(api_client)
    now = timezone.now()
    stale = services.case_run_claim(case_id=case.pk, now=now)
    services.case_run_claim(case_id=case.pk, now=stale.deadline + timedelta(seconds=1))
    record = run_engine(services.case_contract(case))

    assert services.case_run_finish(claim=stale, record=record, now=timezone.now()) is None
    assert not Candidate.objects.filter(case=case).exists()
    assert Case.objects.get(pk=case.pk).status == CaseStatus.RUNNING


def test_an_engine_defect_marks_the_case_failed_instead_of_crashing_the_submission(api_client, monkeypatch):
    case = _submitted(api_client)

    def broken(case, **options):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr("reviewconsole.intake.services.run_engine", broken)
    verify_case.apply(args=(case.pk,))

    case.refresh_from_db()
    assert case.status == CaseStatus.FAILED
    assert case.error == "internal error: ZeroDivisionError: boom"
    assert not Candidate.objects.filter(case=case).exists()


def test_the_sweeper_requeues_lost_and_dead_cases(api_client, settings, django_capture_on_commit_callbacks):
    settings.STUCK_CASE_SECONDS = 60
    lost = _submitted(api_client, case_body(external_id="lost"))
    dead = _submitted(api_client, case_body(external_id="dead"))
    fresh = _submitted(api_client, case_body(external_id="fresh"))
    long_ago = timezone.now() - timedelta(minutes=10)
    Case.objects.filter(pk=lost.pk).update(submitted_at=long_ago)
    assert services.case_run_claim(case_id=dead.pk, now=long_ago - timedelta(minutes=10)) is not None  # then died

    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_claims.apply().get() == 2  # runs them in-process here
    assert Case.objects.get(pk=lost.pk).status == CaseStatus.ESCALATED
    assert Case.objects.get(pk=dead.pk).status == CaseStatus.ESCALATED
    assert Case.objects.get(pk=dead.pk).attempts == 2
    assert Case.objects.get(pk=fresh.pk).status == CaseStatus.QUEUED


def test_stored_candidates_and_claims_are_immutable(api_client):
    case = _submitted(api_client)
    verify_case.apply(args=(case.pk,))
    candidate = Candidate.objects.filter(case=case).first()

    candidate.text = "something else"
    with pytest.raises(TypeError, match="immutable"):
        candidate.save()
    with pytest.raises(TypeError, match="immutable"):
        Claim.objects.filter(candidate=candidate).update(state="SUPPORTED")
    assert Candidate.objects.get(pk=candidate.pk).text == case_body()["answer"]


@pytest.mark.parametrize(
    ("severity", "reason", "higher_than"),
    [
        ("CRITICAL", "CONFLICTING_EVIDENCE", ("MODERATE", "CRITICAL_CLAIM")),
        ("MODERATE", "CYCLE_DETECTED", ("MINOR", "CRITICAL_CLAIM")),
    ],
)
def test_priority_follows_severity_then_reason(severity, reason, higher_than):
    assert escalation_priority(severity=severity, reason=reason) > escalation_priority(
        severity=higher_than[0], reason=higher_than[1]
    )
    assert escalation_priority(severity="CRITICAL", reason="CRITICAL_CLAIM", spot_check=True) == 0
