"""Real workers over Redis, one process for each pool as a deployment runs them: one client's backlog does not
hold another client's case, and a webhook delivery never runs where verification does."""

from __future__ import annotations

import re
import time

import pytest

from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.intake.services import client_create
from reviewconsole.queues import WorkerPool
from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery
from tests.reviewconsole.api.conftest import ApiClient, case_body, post_case
from tests.reviewconsole.conftest import Workers
from tests.reviewconsole.webhooks.conftest import receiver  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

FLOOD = 12
UNFINISHED = (CaseStatus.QUEUED, CaseStatus.RUNNING)
# The receiver of these tests listens on 127.0.0.1: a deployment checking webhook destinations must allow it.
LOCAL_RECEIVERS = {"WEBHOOK_ALLOWED_NETWORKS": "127.0.0.1/32"}


@pytest.fixture(autouse=True)
def _needs_postgresql():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")


def _api_client(name: str, webhook_url: str = "") -> ApiClient:
    client, token = client_create(name=name, webhook_url=webhook_url)
    return ApiClient(client, token)


def _submit(http, api: ApiClient, external_id: str) -> int:
    response = post_case(http, api, case_body(external_id=external_id))
    assert response.status_code == 202, response.content
    return response.json()["id"]


def _wait_finished(case_ids: list[int], workers: Workers, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while Case.objects.filter(pk__in=case_ids, status__in=UNFINISHED).exists():
        assert time.monotonic() < deadline, workers.log()[-4000:]
        time.sleep(0.2)


def _tasks_received(workers: Workers, pool: WorkerPool) -> set[str]:
    return set(re.findall(r"Task (\S+)\[[^\]]+\] received", workers[pool].log()))


@pytest.mark.parametrize("fair", [True, False], ids=["fair-scheduling", "in-submission-order"])
def test_a_second_clients_case_finishes_while_the_first_clients_backlog_is_still_queued(
    client, settings, live_broker, start_worker, fair
):
    settings.FAIR_SCHEDULING = fair
    flooder, other = _api_client("flood-bot"), _api_client("other-bot")
    flood = [_submit(client, flooder, f"flood-{number}") for number in range(FLOOD)]
    single = _submit(client, other, "single")

    # Started after every submission: all thirteen wait in Redis, and the one verify process takes them one
    # at a time in the order their priorities give.
    workers = start_worker()
    _wait_finished([*flood, single], workers)

    finished_at = dict(Case.objects.filter(pk__in=[*flood, single]).values_list("pk", "finished_at"))
    ahead = sorted(case_id for case_id in flood if finished_at[case_id] < finished_at[single])
    if fair:
        # Only the flood's first case, queued at the top priority before the other client's, went first: the
        # other eleven were still queued behind the other client's case.
        assert ahead == flood[:1]
    else:
        assert ahead == flood
    final = {CaseStatus.ESCALATED, CaseStatus.RELEASED, CaseStatus.REJECTED}
    assert set(Case.objects.filter(pk__in=[*flood, single]).values_list("status", flat=True)) <= final


def test_a_receiver_that_hangs_holds_only_the_webhook_pool_never_verification(
    client, live_broker, start_worker, receiver  # noqa: F811
):
    slow = _api_client("slow-hooks", webhook_url=receiver.url)
    other = _api_client("other-bot")
    receiver.hold()
    workers = start_worker(**LOCAL_RECEIVERS)

    first = _submit(client, slow, "slow-1")
    # The webhook pool's only process is now inside the delivery of the first case's outcome, and stays there.
    assert receiver.holding.wait(timeout=90), workers.log()[-4000:]
    second = _submit(client, other, "other-1")
    _wait_finished([second], workers)

    assert WebhookDelivery.objects.get(case_id=first).status == DeliveryStatus.SENDING  # still held meanwhile
    receiver.let_go()
    assert Case.objects.get(pk=second).status not in UNFINISHED
    assert _tasks_received(workers, WorkerPool.VERIFY) == {"intake.verify_case"}
    assert _tasks_received(workers, WorkerPool.WEBHOOKS) == {"webhooks.deliver_webhook"}


def test_a_retraining_run_holds_only_the_train_pool_never_verification(client, live_broker, start_worker,
                                                                         policy_admin):
    from django.utils import timezone

    from reviewconsole.policy.services import constitution_draft_save, version_publish
    from reviewconsole.workbench.models import RetrainingRun, RetrainingStatus
    from reviewconsole.workbench.retraining import retraining_request, training_extra_missing
    from tests.reviewconsole.workbench.labelled_claims import laptop_cases
    from verification import Constitution

    if training_extra_missing():
        pytest.skip("needs the training extra")
    draft = constitution_draft_save(constitution=Constitution(name="shop"), author=policy_admin)
    version_publish(version=draft, actor=policy_admin, now=timezone.now())
    laptop_cases(client_create(name="labelled-bot")[0], policy_admin, constitution="shop", count=30)
    workers = start_worker()
    run = retraining_request(constitution="shop", requested_by=policy_admin, epochs=1.0)

    deadline = time.monotonic() + 120
    while not RetrainingRun.objects.filter(pk=run.pk, stage="training").exists():
        assert time.monotonic() < deadline, workers.log()[-4000:]
        time.sleep(0.2)
    case = _submit(client, _api_client("other-bot"), "during-training")
    _wait_finished([case], workers)
    # The case was verified while the run still held the train pool's one process.
    assert RetrainingRun.objects.get(pk=run.pk).status == RetrainingStatus.RUNNING

    deadline = time.monotonic() + 300
    while not RetrainingRun.objects.get(pk=run.pk).is_finished:
        assert time.monotonic() < deadline, workers.log()[-4000:]
        time.sleep(0.5)
    finished = RetrainingRun.objects.get(pk=run.pk)
    assert finished.status == RetrainingStatus.DONE, finished.error
    assert finished.model is not None and finished.steps_done == finished.steps_total > 0
    assert _tasks_received(workers, WorkerPool.TRAIN) == {"workbench.retrain"}
    assert "workbench.retrain" not in _tasks_received(workers, WorkerPool.VERIFY)
