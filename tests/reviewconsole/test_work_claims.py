"""One claim helper for every kind of claimed work: a deadline, a token, a cap, and one sweeper for all.

Each test runs over every kind (case runs, edit verifications, webhook deliveries, audit exports,
calibration runs, retraining runs) with rows made as the console makes them, so a kind that stops using the
helper fails.
"""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.audit.models import AuditEvent, AuditExport, ChainCheck, ExportFormat, ExportStatus
from reviewconsole.celery import TRANSIENT_ERRORS, ReviewTask, app
from reviewconsole.intake.models import Candidate, Case, CaseStatus, Client
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.policy.models import CalibrationRun, NamedConstitution, Rubric, RubricVersion
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC
from reviewconsole.policy.versioning import canonical_content, content_sha256
from reviewconsole.review.models import EditVerification
from reviewconsole.sweeper import SWEEPS, sweep_claims
from reviewconsole.webhooks.models import EventType, WebhookDelivery
from reviewconsole.work_claims import ClaimedRun, ClaimedWork
from reviewconsole.workbench.models import RetrainingRun
from tests.reviewconsole.api.conftest import case_body
from verification import Case as Submission
from verification import Origin, TransientError
from verification.types import sha256_text

pytestmark = pytest.mark.django_db

ANSWER = "Refunds are possible within 30 days."


def _case() -> Case:
    """A case submitted as a client submits one (its message never sent: the test's transaction never commits)."""
    client, _ = client_create(name=f"bot-{uuid.uuid4().hex[:8]}")
    # A URL outside the checks made at save, as these events are recorded but never sent.
    Client.objects.filter(pk=client.pk).update(webhook_url="http://127.0.0.1:9/hooks")
    client.refresh_from_db()
    case, _ = case_submit(client=client, submission=Submission.model_validate(case_body()))
    return case


def _case_run(user) -> int:
    return _case().pk


def _edit_verification(user) -> int:
    case = _case()
    candidate = Candidate.objects.create(
        case=case, position=1, candidate_id="c1", origin=Origin.REVIEWER.value, operation="reviewer_edit",
        text=ANSWER, sha256=sha256_text(ANSWER),
    )
    EditVerification.objects.create(candidate=candidate, requested_by=user)
    return candidate.pk  # the verification is named by its candidate, as the task names it


def _delivery(user) -> int:
    case = _case()
    return WebhookDelivery.objects.create(
        client=case.client, case=case, event_type=EventType.CASE_ESCALATED, message_id=f"msg_{uuid.uuid4().hex}",
        payload={}, body="{}", next_attempt_at=timezone.now() - timedelta(days=1),
    ).pk


def _export(user) -> int:
    return AuditExport.objects.create(requested_by=user, format=ExportFormat.JSONL, status=ExportStatus.QUEUED).pk


def _chain_check(user) -> int:
    return ChainCheck.objects.create(requested_by=user).pk


def _calibration_run(user) -> int:
    rubric, _ = Rubric.objects.get_or_create(name="claims-test")
    content = canonical_content(BUILTIN_RUBRIC)
    version = RubricVersion.objects.create(
        document=rubric, number=rubric.versions.count() + 1, content=content, sha256=content_sha256(content),
        status="PUBLISHED",
    )
    return CalibrationRun.objects.create(rubric_version=version).pk


def _retraining_run(user) -> int:
    constitution, _ = NamedConstitution.objects.get_or_create(name="claims-test")
    return RetrainingRun.objects.create(constitution=constitution, requested_by=user).pk


KINDS = {
    "case run": (Case.work_kind, _case_run),
    "edit verification": (EditVerification.work_kind, _edit_verification),
    "webhook delivery": (WebhookDelivery.work_kind, _delivery),
    "audit export": (AuditExport.work_kind, _export),
    "audit chain check": (ChainCheck.work_kind, _chain_check),
    "calibration run": (CalibrationRun.work_kind, _calibration_run),
    "retraining run": (RetrainingRun.work_kind, _retraining_run),
}


@pytest.fixture(params=list(KINDS))
def work(request, reviewer) -> tuple[work_claims.WorkKind, int]:
    kind, make = KINDS[request.param]
    return kind, make(reviewer)


def _row(kind: work_claims.WorkKind, work_id: int):
    return kind.model.objects.get(**{kind.id_field: work_id})


def _hold(now):
    return now + timedelta(minutes=5)


def test_a_claim_holds_the_work_until_its_deadline_then_another_worker_takes_it_over(work):
    kind, work_id = work
    now = timezone.now()

    first = work_claims.claim(kind, work_id=work_id, now=now, deadline=_hold(now))
    assert first is not None and first.attempt == 1
    row = _row(kind, work_id)
    assert (row.status, row.claim_token, row.run_deadline, row.attempts) == (
        kind.running, first.token, first.deadline, 1
    )
    assert work_claims.claim(kind, work_id=work_id, now=now + timedelta(minutes=4), deadline=_hold(now)) is None

    later = first.deadline + timedelta(seconds=1)
    second = work_claims.claim(kind, work_id=work_id, now=later, deadline=_hold(later))
    assert second is not None and second.token != first.token and second.attempt == 2

    # The first worker's claim is stale: it can no longer finish, fail, hand back or lock the work.
    assert not work_claims.fail(first, error="late", now=later)
    assert not work_claims.release(first)
    assert work_claims.lock(first) is None
    assert not work_claims.finish(first, status=kind.failed, now=later)
    assert (_row(kind, work_id).status, _row(kind, work_id).claim_token) == (kind.running, second.token)

    assert work_claims.fail(second, error="PermanentError: no such rubric", now=later)
    row = _row(kind, work_id)
    assert (row.status, getattr(row, kind.error_field), row.claim_token, row.run_deadline) == (
        kind.failed, "PermanentError: no such rubric", None, None
    )
    assert work_claims.claim(kind, work_id=work_id, now=later, deadline=_hold(later)) is None


def test_a_claim_without_a_deadline_ahead_is_refused(work):
    kind, work_id = work
    now = timezone.now()

    with pytest.raises(TypeError):
        work_claims.claim(kind, work_id=work_id, now=now)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="a claim's deadline must lie ahead"):
        work_claims.claim(kind, work_id=work_id, now=now, deadline=now)
    assert _row(kind, work_id).status == kind.waiting and _row(kind, work_id).attempts == 0


def test_work_handed_back_after_a_transient_failure_is_taken_by_the_retry(work):
    kind, work_id = work
    now = timezone.now()
    claim = work_claims.claim(kind, work_id=work_id, now=now, deadline=_hold(now))

    assert work_claims.release(claim)

    row = _row(kind, work_id)
    assert (row.status, row.claim_token, row.run_deadline) == (kind.waiting, None, None)
    retry = work_claims.claim(kind, work_id=work_id, now=now, deadline=_hold(now))
    assert retry is not None and retry.attempt == 2


def test_the_sweeper_returns_expired_claims_of_every_kind_to_their_queue(reviewer, django_capture_on_commit_callbacks):
    long_ago = timezone.now() - timedelta(hours=1)
    claims = []
    for kind, make in KINDS.values():
        work_id = make(reviewer)
        claims.append(work_claims.claim(kind, work_id=work_id, now=long_ago, deadline=_hold(long_ago)))  # then died

    with django_capture_on_commit_callbacks() as enqueued:
        assert sweep_claims.apply().get() == len(KINDS)

    assert len(enqueued) == len(KINDS), "each kind's task is sent again"
    for claim in claims:
        row = _row(claim.kind, claim.work_id)
        assert (row.status, row.claim_token, row.attempts) == (claim.kind.waiting, None, 1), claim.kind.doing


def test_work_out_of_attempts_is_failed_by_the_sweeper_with_its_reason(work, settings):
    settings.CELERY_TASK_MAX_RETRIES = 1
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    kind, work_id = work
    now = timezone.now() - timedelta(hours=2)
    for _ in range(2):  # two workers took it, and each died
        assert work_claims.claim(kind, work_id=work_id, now=now, deadline=_hold(now)) is not None
        now = _hold(now) + timedelta(seconds=1)
    assert work_claims.claim(kind, work_id=work_id, now=now, deadline=_hold(now)) is None, "out of attempts"

    assert sweep_claims.apply().get() == 0  # nothing to send again: failed instead

    row = _row(kind, work_id)
    assert (row.status, row.attempts, row.claim_token) == (kind.failed, 2, None)
    assert getattr(row, kind.error_field) == f"gave up after 2 attempt(s): no worker finished {kind.doing}"


def test_a_case_that_fails_transiently_in_process_is_failed_with_its_reason(monkeypatch):
    case = _case()

    def unreachable(case, **options):
        raise TransientError("model endpoint timed out")

    monkeypatch.setattr("reviewconsole.intake.services.run_engine", unreachable)
    verify_case.apply(args=(case.pk,))  # in-process nobody waits out a backoff: the request must not fail

    case.refresh_from_db()
    assert case.status == CaseStatus.FAILED
    assert case.error == "gave up after 1 attempt(s): TransientError: model endpoint timed out"
    assert (case.claim_token, case.run_deadline) == (None, None)


def test_every_task_retries_by_the_one_policy():
    app.loader.import_default_modules()
    ours = {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}

    assert {
        "intake.verify_case", "review.verify_edit", "webhooks.deliver_webhook", "audit.export", "policy.calibrate",
        "maintenance.sweep_claims",
    } <= set(ours)
    for name, task in ours.items():
        assert isinstance(task, ReviewTask) and task.autoretry_for == TRANSIENT_ERRORS, name


def test_a_case_out_of_attempts_tells_its_client_by_webhook(settings):
    settings.CELERY_TASK_MAX_RETRIES = 0  # one attempt
    case = _case()
    now = timezone.now() - timedelta(hours=2)
    # Its worker died.
    assert work_claims.claim(Case.work_kind, work_id=case.pk, now=now, deadline=_hold(now)) is not None

    assert sweep_claims.apply().get() == 0

    case.refresh_from_db()
    assert case.status == CaseStatus.FAILED
    delivery = WebhookDelivery.objects.get(case=case, event_type="case.failed")
    data = json.loads(delivery.body)["data"]
    assert (data["status"], data["answer"], data["error"]) == (
        "FAILED", None, "gave up after 1 attempt(s): no worker finished running the case"
    )
    assert AuditEvent.objects.filter(action="case.failed", case_id=case.pk).exists()


def test_each_kind_of_claimed_work_is_declared_once_by_its_model_and_swept():
    kinds = work_claims.kinds()
    models = [kind.model for kind in kinds]

    assert set(models) == {kind.model for kind, _ in KINDS.values()}, "every kind is among those tested here"
    assert len(set(models)) == len(kinds) == 7
    for kind in kinds:
        assert kind.model.work_kind is kind
        statuses = {value for value, _ in kind.model._meta.get_field("status").choices}
        assert {kind.waiting, kind.running, kind.failed} <= statuses, kind.doing
    assert set(SWEEPS) == set(models), "the sweeper has a sweep for every kind, and for nothing else"


def test_every_kind_keeps_the_claim_columns_as_the_base_defines_them():
    def shape(field):
        _, path, args, kwargs = field.deconstruct()
        return field.column, path, args, kwargs

    for kind in work_claims.kinds():
        # A delivery is claimed attempt by attempt: its reason and times are each attempt's (last_reason...).
        base = ClaimedWork if kind.model is WebhookDelivery else ClaimedRun
        assert issubclass(kind.model, base), kind.model
        for field in base._meta.get_fields():
            assert shape(kind.model._meta.get_field(field.name)) == shape(field), (kind.model, field.name)
        assert kind.model._meta.get_field(kind.error_field).get_internal_type() == "TextField"


def test_giving_the_claim_columns_one_base_changed_no_table():
    # The only migration it made: a case's claim token is not editable in forms, as no other kind's is.
    executor = MigrationExecutor(connection)
    migration = executor.loader.graph.nodes[("intake", "0011_case_claim_token_not_editable")]

    statements = executor.loader.collect_sql([(migration, False)])

    assert [statement for statement in statements if not statement.startswith("--")] == []
