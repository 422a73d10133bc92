"""The relay without its process: Celery beat runs it on a worker, beside `outbox_relay` or in its place."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection

from reviewconsole.celery import app
from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.outbox import broker
from reviewconsole.outbox.models import Message
from reviewconsole.outbox.services import message_send, relay_once
from reviewconsole.outbox.tasks import relay
from reviewconsole.queues import TaskQueue
from reviewconsole.webhooks.tasks import deliver_webhook
from tests.reviewconsole.api.conftest import case_body, post_case
from tests.reviewconsole.conftest import REPO, _test_database_url
from tests.reviewconsole.outbox.test_outbox import DOWN, _queued, broker_at  # noqa: F401 (a fixture)


def test_beat_runs_the_relay_every_few_seconds_on_a_queue_every_worker_takes():
    entry = settings.CELERY_BEAT_SCHEDULE["outbox-relay"]
    assert entry["task"] == relay.name == "outbox.relay"
    assert entry["task"] in app.tasks
    assert entry["schedule"] == settings.OUTBOX_RELAY_SECONDS == 5.0
    assert entry["options"]["queue"] == TaskQueue.DEFAULT.value
    # A tick that waited past the next one is dropped, not run late beside it.
    assert entry["options"]["expires"] <= entry["schedule"]


@pytest.mark.django_db(transaction=True)
def test_relays_running_at_once_hand_each_message_over_once(broker_at, redis_url):  # noqa: F811
    broker_at(redis_url)
    Message.objects.bulk_create(Message(task="webhooks.deliver_webhook", args=[number]) for number in range(300))
    start = threading.Barrier(4)
    handed: list[int] = []

    def one_relay(run) -> None:
        try:
            start.wait()
            handed.append(run())
        finally:
            connection.close()

    # Two beat rounds on workers and two `outbox_relay` processes, all at the same moment.
    threads = [threading.Thread(target=one_relay, args=(run,)) for run in (relay, relay, lambda: relay_once(app),
                                                                           lambda: relay_once(app))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    sent = Counter(message["headers"]["argsrepr"] for message in _queued(redis_url, "webhooks"))
    assert sum(handed) == 300
    assert len(sent) == 300 and set(sent.values()) == {1}
    assert set(Message.objects.values_list("broker", flat=True)) == {broker.broker_instance(app)}


@pytest.mark.django_db(transaction=True)
def test_a_message_tagged_while_the_broker_was_down_waits_for_the_relay_not_the_caller(
    broker_at, redis_url  # noqa: F811
):
    # A send to a broker that does not answer takes seconds to fail: the caller must not wait for it.
    broker_at(redis_url)
    message = Message.objects.create(task=deliver_webhook.name, args=[7], broker="")  # tagged while Redis was down

    assert message_send(message, deliver_webhook) is False
    assert _queued(redis_url, "webhooks") == []

    assert relay_once(app) == 1
    assert [queued["headers"]["argsrepr"] for queued in _queued(redis_url, "webhooks")] == ["[7]"]
    message.refresh_from_db()
    assert message.broker == broker.broker_instance(app)


def _start_beat(redis_url: str, tmp_path, **extra_env: str) -> subprocess.Popen:
    """A real `celery beat` (its own process group) over the test run's Redis and test database."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "REDIS_URL": redis_url,
           "PYTHONPATH": str(REPO), **extra_env}
    database_url = _test_database_url()
    if database_url:
        env["DATABASE_URL"] = database_url
    log = (tmp_path / "beat.log").open("w")
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "reviewconsole", "beat", "--loglevel", "INFO",
         "--schedule", str(tmp_path / "celerybeat-schedule")],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_case_the_broker_did_not_take_runs_once_it_is_back_with_no_relay_process(
    client, api_client, broker_at, redis_url, start_worker, tmp_path  # noqa: F811
):
    if connection.vendor != "postgresql":
        pytest.skip("a worker process can only share the test database on PostgreSQL")
    broker_at(DOWN)
    case_id = post_case(client, api_client, case_body()).json()["id"]
    assert Message.objects.get().broker == ""  # the broker did not take it; nothing runs `outbox_relay`

    # Redis answers again: the deployment runs only a worker and beat, as an older README had it.
    worker = start_worker(OUTBOX_RELAY_SECONDS="1")
    beat = _start_beat(redis_url, tmp_path, OUTBOX_RELAY_SECONDS="1")
    try:
        deadline = time.monotonic() + 60
        waiting = (CaseStatus.QUEUED, CaseStatus.RUNNING)
        while time.monotonic() < deadline and Case.objects.get(pk=case_id).status in waiting:
            time.sleep(0.2)
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=20)

    case = Case.objects.get(pk=case_id)
    assert case.status == CaseStatus.ESCALATED, (tmp_path / "beat.log").read_text()[-2000:] + worker.log()[-3000:]
    assert case.candidates.exists()
    assert not Message.objects.exists()  # the worker that took the task cleared it
    assert re.search(r"Task outbox\.relay\[[^\]]+\] succeeded", worker.log())  # handed over by the periodic relay
    assert len(re.findall(r"Task intake\.verify_case\[[^\]]+\] received", worker.log())) == 1  # and once
