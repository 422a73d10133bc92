"""The embedded default (no broker, so no celery beat) retries a webhook by itself.

Runs the console as `make demo` serves it: `manage.py runserver` in a child process over its own SQLite
VAR_DIR, without any of the test run's variables. A client's endpoint refuses the first attempt; the
retry must reach it once its backoff is over, with nobody pressing anything.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewconsole.embedded_beat import ENTRIES, beat_round
from reviewconsole.webhooks.models import DeliveryStatus
from tests.reviewconsole.subprocesses import REPO, run_manage
from tests.reviewconsole.webhooks.conftest import Receiver, make_due

# Fast for a test: the first retry is due a second after the refusal, and the dispatch looks every second.
_QUICK = {"DEMO": "1", "VERIFICATION_SCORER": "rules", "WEBHOOK_BACKOFF_SECONDS": "1", "WEBHOOK_DISPATCH_SECONDS": "1"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def webhook_receiver() -> Iterator[Receiver]:
    receiver = Receiver(secret="")  # the secret is the one create_client prints, set below
    receiver.start()
    yield receiver
    receiver.stop()


def _serve(var_dir: Path, port: int, extra: dict[str, str]) -> subprocess.Popen:
    clean = {key: value for key, value in os.environ.items() if key not in {
        "DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "SECRET_KEY", "ALLOWED_HOSTS"}}
    return subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=REPO, env={**clean, "VAR_DIR": str(var_dir), **_QUICK, **extra},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )


def _wait_until(predicate, *, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    pytest.fail(f"waited {seconds:.0f} s for {what}")


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def test_a_refused_webhook_is_retried_by_the_console_without_a_broker(tmp_path, webhook_receiver):
    migrated = run_manage(["migrate", "--no-input", "-v0"], {"DEMO": "1"}, tmp_path)
    assert migrated.returncode == 0, migrated.stderr
    # The receiver is on loopback: the console may reach its one address, as an internal receiver is allowed.
    allowed = {"WEBHOOK_ALLOWED_NETWORKS": str(webhook_receiver.network)}
    created = run_manage(["create_client", "hooked", "--webhook-url", webhook_receiver.url], {"DEMO": "1", **allowed},
                         tmp_path)
    assert created.returncode == 0, created.stderr
    token = re.search(r"API token \(shown once, keep it secret\): (\S+)", created.stdout).group(1)
    webhook_receiver.secret = re.search(r"Webhook signing secret: (\S+)", created.stdout).group(1)
    webhook_receiver.respond(503)

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = _serve(tmp_path, port, allowed)
    try:
        _wait_until(lambda: _healthy(base) or server.poll() is not None, seconds=60, what="the console to serve")
        assert server.poll() is None, server.stderr.read()
        body = {"external_id": "ticket-7", "question": "How long do refunds take?",
                "answer": "Refunds take 14 days.", "sources": [{"id": "faq", "text": "Refunds take 14 days."}]}
        submit = urllib.request.Request(
            f"{base}/api/v1/cases", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(submit, timeout=60) as response:
            assert response.status == 202

        _wait_until(lambda: len(webhook_receiver.requests) >= 2, seconds=30, what="the retry of the refused webhook")
    finally:
        server.terminate()
        server.wait(timeout=10)

    first, retry = webhook_receiver.requests[:2]
    assert retry.headers["webhook-id"] == first.headers["webhook-id"], "the retry is the same message"
    assert retry.verify_error == "" and retry.verified["data"]["external_id"] == "ticket-7"


def test_a_round_sends_the_due_retries_once_the_dispatch_period_is_over(case, receiver, record_sent, settings):
    receiver.respond(503)
    delivery = record_sent(case)
    make_due(delivery)
    period = settings.CELERY_BEAT_SCHEDULE["webhooks-dispatch-due"]["schedule"]
    last_runs = dict.fromkeys(ENTRIES, 1000.0)

    assert beat_round(last_runs=last_runs, now=1000.0 + period / 2) == []
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and len(receiver.requests) == 1

    assert beat_round(last_runs=last_runs, now=1000.0 + period) == ["webhooks-dispatch-due"]
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED and len(receiver.requests) == 2
