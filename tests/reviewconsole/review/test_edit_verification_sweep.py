"""A reviewer's edit whose verifying worker died: the sweeper runs it again, or fails it after its attempts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.intake.models import Candidate, Case, CaseStatus
from reviewconsole.review import services
from reviewconsole.review.models import Decision, EditVerification, EditVerificationStatus
from reviewconsole.review.tasks import verify_edit
from reviewconsole.sweeper import sweep_claims
from tests.reviewconsole.review.conftest import FIXED_ANSWER, latest, on_version

pytestmark = pytest.mark.django_db

@pytest.fixture
def edit(client, reviewer, escalate) -> Candidate:
    """The reviewer's edit of an escalated case, waiting for a worker (its message not yet delivered)."""
    case = escalate()
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    response = client.post(f"/review/cases/{case.pk}/edit", on_version(latest(case), text=FIXED_ANSWER))
    assert response.status_code == 302
    edited = latest(case)
    assert edited.text == FIXED_ANSWER
    return edited


def _worker_took_it_and_died(edit: Candidate, *, ago: timedelta = timedelta(hours=1)) -> None:
    """A worker claims the verification as verify_edit does, then is killed; its claim is `ago` old."""
    assert services.edit_verification_claim(candidate_pk=edit.pk, now=timezone.now())
    verification = EditVerification.objects.get(candidate=edit)
    EditVerification.objects.filter(pk=verification.pk).update(
        started_at=verification.started_at - ago, run_deadline=verification.run_deadline - ago
    )


def _approve(client, edit: Candidate, **fields: str):
    return client.post(f"/review/cases/{edit.case_id}/approve", on_version(edit, **fields))


def test_a_verification_whose_worker_died_is_run_again_by_the_sweeper(
    client, edit, django_capture_on_commit_callbacks
):
    _worker_took_it_and_died(edit)
    stranded = _approve(client, edit, override_reason="checked by hand")
    assert stranded.status_code == 409 and "Your edit is still being verified" in stranded.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_claims.apply().get() == 1  # the sweep runs it again, in-process here

    verification = EditVerification.objects.get(candidate=edit)
    assert (verification.status, verification.terminal, verification.attempts) == (
        EditVerificationStatus.DONE, "PERMIT", 2
    )
    assert verification.run_deadline is None
    assert sorted(edit.claims.values_list("state", flat=True)) == ["SUPPORTED", "SUPPORTED"]
    assert _approve(client, edit).status_code == 302
    assert Case.objects.get(pk=edit.case_id).status == CaseStatus.RELEASED


def test_a_verification_out_of_attempts_is_failed_and_approvable_with_an_override(client, edit, settings):
    settings.CELERY_TASK_MAX_RETRIES = 2
    for _ in range(3):  # three workers took it, and each died
        _worker_took_it_and_died(edit)

    assert sweep_claims.apply().get() == 0  # nothing left to run: failed instead

    verification = EditVerification.objects.get(candidate=edit)
    assert (verification.status, verification.attempts) == (EditVerificationStatus.FAILED, 3)
    assert verification.error == "gave up after 3 attempt(s): no worker finished verifying the edit"
    assert not edit.claims.exists()
    refused = _approve(client, edit)
    assert refused.status_code == 400
    assert "Approving needs an override reason: the edit could not be verified." in refused.content.decode()
    assert _approve(client, edit, override_reason="Read it against the policy myself.").status_code == 302
    decision = Decision.objects.get(case_id=edit.case_id, kind="APPROVE")
    assert (decision.candidate, decision.override_reason) == (edit, "Read it against the policy myself.")


def test_a_running_verification_is_left_to_its_worker_until_its_deadline(edit, settings):
    now = timezone.now()
    assert services.edit_verification_claim(candidate_pk=edit.pk, now=now)

    verify_edit.apply(args=(edit.pk,))  # a duplicate message: the worker holding it is alive
    assert services.edit_verifications_sweep(now=now + timedelta(seconds=60)) == []

    verification = EditVerification.objects.get(candidate=edit)
    assert (verification.status, verification.attempts) == (EditVerificationStatus.RUNNING, 1)
    assert verification.run_deadline >= now + timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    late = verification.run_deadline + timedelta(seconds=1)
    assert services.edit_verifications_sweep(now=late) == [edit.pk]
    assert EditVerification.objects.get(candidate=edit).status == EditVerificationStatus.PENDING
    assert services.edit_verification_claim(candidate_pk=edit.pk, now=late)
    assert EditVerification.objects.get(candidate=edit).attempts == 2


def test_a_verification_whose_message_was_lost_is_run_by_the_sweeper(
    edit, settings, django_capture_on_commit_callbacks
):
    settings.STUCK_CASE_SECONDS = 60
    assert services.edit_verifications_sweep(now=timezone.now()) == []  # just made: its message is on its way
    EditVerification.objects.filter(candidate=edit).update(created_at=timezone.now() - timedelta(minutes=10))

    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_claims.apply().get() == 1

    verification = EditVerification.objects.get(candidate=edit)
    assert (verification.status, verification.attempts) == (EditVerificationStatus.DONE, 1)
