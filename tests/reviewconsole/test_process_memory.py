"""A process loads what it uses: the scorer's model runtime only where cases are verified."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from celery import Celery
from kombu import Queue

from reviewconsole.policy import apps as policy_apps
from reviewconsole.queues import TaskQueue, WorkerPool, pool_queues
from tests.reviewconsole.subprocesses import _TEST_RUN_VARIABLES, REPO

WEB_PROCESS_MAX_RSS_MB = 130
HEAVY = ("onnxruntime", "tokenizers", "numpy")

# What gunicorn does before it serves: the settings, then django.setup() through the WSGI module.
_WEB_PROCESS = """
import json, sys
import reviewconsole.wsgi
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(json.dumps({"modules": [name for name in sys.argv[1:] if name in sys.modules],
                  "peak_rss_mb": int(status["VmHWM"].split()[0]) / 1024}))
"""


def _web_process(tmp_path, **environment: str) -> dict:
    clean = {key: value for key, value in os.environ.items() if key not in _TEST_RUN_VARIABLES}
    result = subprocess.run(
        [sys.executable, "-c", _WEB_PROCESS, *HEAVY], cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**clean, "DJANGO_SETTINGS_MODULE": "reviewconsole.settings", "VAR_DIR": str(tmp_path), **environment},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak RSS from /proc")
@pytest.mark.parametrize("scorer", ["learned", "rules"])
def test_a_web_process_starts_without_the_scorer_and_within_its_memory(tmp_path, scorer):
    # A deployment's settings (with a broker: no beat in this process); nothing is connected to at start-up.
    started = _web_process(tmp_path, SECRET_KEY="k" * 50, ALLOWED_HOSTS="localhost", VERIFICATION_SCORER=scorer,
                           DATABASE_URL="postgres://console@127.0.0.1:5432/console", REDIS_URL="redis://127.0.0.1:6379/0")

    assert started["modules"] == []
    assert started["peak_rss_mb"] <= WEB_PROCESS_MAX_RSS_MB


def _worker(pool: WorkerPool | None) -> SimpleNamespace:
    """A worker as Celery's worker_init signal sends it: its app consuming `pool`'s queues (None: every queue)."""
    app = Celery("memory-test", set_as_current=False)
    app.conf.task_queues = [Queue(queue.value) for queue in TaskQueue]
    if pool is not None:
        app.amqp.queues.select(pool_queues(pool).split(","))
    return SimpleNamespace(app=app)


@pytest.mark.parametrize(
    ("pool", "loads"),
    [(WorkerPool.VERIFY, True), (None, True), (WorkerPool.WEBHOOKS, False), (WorkerPool.MAINTENANCE, False),
     (WorkerPool.TRAIN, False)],
    ids=["verify", "every-queue", "webhooks", "maintenance", "train"],
)
def test_only_a_worker_of_the_verify_queue_loads_the_scorer_at_start(monkeypatch, pool, loads):
    loaded, settled = [], []
    monkeypatch.setattr("reviewconsole.policy.engine.load_scorer", lambda: loaded.append(True))
    monkeypatch.setattr("verification.settle_heap", lambda: settled.append(True))

    policy_apps._worker_started(sender=_worker(pool))

    assert loaded == ([True] if loads else [])
    assert settled == [True]  # every worker settles its heap on what it keeps
