"""Calibration runs on the real stack: a worker killed mid-run, and a critic whose model times out once."""

from __future__ import annotations

import time

import pytest
import redis
from django.utils import timezone

from reviewconsole.policy.calibration import calibration_request
from reviewconsole.policy.models import CalibrationRun, CalibrationStatus, Rubric, RubricVersion
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC
from reviewconsole.policy.versioning import canonical_content, content_sha256
from reviewconsole.sweeper import sweep_claims
from tests.reviewconsole import worker_tasks

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# Short limits, so the dead run's deadline (the hard limit and a little slack) passes within the test.
LIMITS = {"CELERY_TASK_SOFT_TIME_LIMIT": "8", "CELERY_TASK_TIME_LIMIT": "10", "AUDIT_EXPORT_TIME_LIMIT": "10"}


@pytest.fixture(autouse=True)
def _needs_postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")


@pytest.fixture
def rubric_version(db) -> RubricVersion:
    rubric = Rubric.objects.create(name="worker-critic")
    content = canonical_content(BUILTIN_RUBRIC)
    return RubricVersion.objects.create(
        document=rubric, number=1, content=content, sha256=content_sha256(content), status="PUBLISHED"
    )


def _wait_for_run(run: CalibrationRun, statuses: set[str], timeout: float, worker) -> CalibrationRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in statuses:
            return run
        time.sleep(0.2)
    raise AssertionError(f"calibration run {run.pk} still {run.status} after {timeout} s:\n{worker.log()[-3000:]}")


def test_a_run_whose_worker_was_killed_is_returned_by_the_sweeper_and_finished_by_another(
    live_broker, start_worker, redis_url, rubric_version
):
    client = redis.Redis.from_url(redis_url)
    first = start_worker(POLICY_CALIBRATION_CRITIC="tests.reviewconsole.worker_tasks.hanging_critic", **LIMITS)
    run = calibration_request(rubric_version=rubric_version)
    deadline = time.monotonic() + 30
    while client.get(worker_tasks.HANGING_CRITIC_STARTED) is None:
        assert time.monotonic() < deadline, first.log()[-3000:]
        time.sleep(0.1)
    first.kill()  # mid-run: nothing acknowledges the message or settles the run

    run.refresh_from_db()
    assert (run.status, run.attempts) == (CalibrationStatus.RUNNING, 1)
    assert sweep_claims.apply().get() == 0, "its worker may still be running it"
    time.sleep(max(0.0, (run.run_deadline - timezone.now()).total_seconds() + 1))
    second = start_worker(**LIMITS)  # the console's own critic
    assert sweep_claims.apply().get() == 1

    run = _wait_for_run(run, {CalibrationStatus.DONE, CalibrationStatus.FAILED}, 60, second)
    assert (run.status, run.attempts, run.critic) == (CalibrationStatus.DONE, 2, "offline"), run.error
    assert run.fixtures_done == run.fixtures_total == len(BUILTIN_RUBRIC.fixtures)
    assert (run.catch_rate, run.false_alarm_rate) == (1.0, 0.0)
    assert (run.claim_token, run.run_deadline) == (None, None)


def test_a_transient_failure_hands_the_run_back_and_the_retry_policy_runs_it_again(
    live_broker, start_worker, redis_url, rubric_version
):
    worker = start_worker(POLICY_CALIBRATION_CRITIC="tests.reviewconsole.worker_tasks.flaky_critic")

    run = calibration_request(rubric_version=rubric_version)

    run = _wait_for_run(run, {CalibrationStatus.DONE, CalibrationStatus.FAILED}, 60, worker)
    assert (run.status, run.attempts, run.critic) == (CalibrationStatus.DONE, 2, "flaky"), run.error
    assert run.fixtures_done == len(BUILTIN_RUBRIC.fixtures)
    assert int(redis.Redis.from_url(redis_url).get(worker_tasks.FLAKY_CRITIC_CALLS)) == len(BUILTIN_RUBRIC.fixtures) + 1
    assert "Retry in" in worker.log()
