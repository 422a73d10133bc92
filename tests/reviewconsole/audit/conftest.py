"""A small, real audit history: cases submitted and run through the engine, then decided by a reviewer."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from reviewconsole.audit.sealer import log_seal_pending
from reviewconsole.intake.models import Case, Client
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.review import services
from reviewconsole.review.services import decision_approve, decision_reject
from tests.reviewconsole.api.conftest import SUPPORTED_CASE
from tests.reviewconsole.review.conftest import refund_case
from verification import Case as Submission


@pytest.fixture(autouse=True)
def export_dir(settings, tmp_path):
    settings.AUDIT_EXPORT_DIR = tmp_path / "exports"
    settings.SPOT_CHECK_RATE = 0.0
    return settings.AUDIT_EXPORT_DIR


def audit_verify_output(*args: str) -> str:
    """What `manage.py audit_verify` prints when it finds the log intact."""
    out = StringIO()
    call_command("audit_verify", *args, stdout=out)
    return out.getvalue()


def audit_verify_broken(*args: str) -> str:
    """Why `manage.py audit_verify` finds the log broken (it must)."""
    with pytest.raises(CommandError) as error:
        audit_verify_output(*args)
    return str(error.value)


def run_case(client: Client, body: dict) -> Case:
    case, _ = case_submit(client=client, submission=Submission.model_validate(body))
    verify_case.apply(args=(case.pk,))
    case.refresh_from_db()
    return case


@dataclass
class History:
    client: Client
    other_client: Client
    released: Case
    approved: Case
    rejected: Case


def decide(case: Case, reviewer, *, approve: bool) -> None:
    now = timezone.now()
    escalation = services.escalation_claim_next(reviewer=reviewer, now=now)
    assert escalation is not None and escalation.case_id == case.pk
    current = case.candidates.order_by("-position").first()
    common = {"escalation_id": escalation.pk, "reviewer": reviewer, "candidate_id": current.candidate_id,
              "sha256": current.sha256, "now": now}
    if approve:
        decision_approve(**common)
    else:
        decision_reject(**common, reason_code="WRONG_FACTS", note="contradicts the policy")


@pytest.fixture
def history(db, reviewer) -> History:
    client, _ = client_create(name="support-bot")
    other, _ = client_create(name="sales-bot")
    released = run_case(client, SUPPORTED_CASE)
    approved = run_case(client, refund_case(external_id="refund-approved"))
    rejected = run_case(other, refund_case(external_id="refund-rejected"))
    assert released.status == "RELEASED", (released.status, released.reason)
    assert approved.status == rejected.status == "ESCALATED"
    decide(approved, reviewer, approve=True)
    decide(rejected, reviewer, approve=False)
    # What the periodic sealer does within seconds of these commits (nothing runs it inside a test).
    log_seal_pending()
    return History(client, other, released, approved, rejected)
