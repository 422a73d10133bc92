"""Celery beat's periodic work for the embedded default, run by the web process itself.

Without a broker no beat process runs, yet a webhook retry waits in its row (next_attempt_at) for the
periodic dispatch to send it: without this loop a delivery whose first attempt failed stayed pending for
good. The web process (reviewconsole/wsgi.py, so `runserver` and gunicorn alike) runs the entries that a
console without a broker needs, each on the period the schedule gives it. The others need no loop here:
the audit sealer already runs after each commit (AUDIT_SEAL_ON_COMMIT), the outbox stays empty without a
broker, and the nightly canary is a deployment's.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.conf import settings
from django.db import connections

from reviewconsole.celery import app

logger = logging.getLogger(__name__)

ENTRIES = ("webhooks-dispatch-due", "sweep-claims", "audit-exports-expire", "mail-dispatch-due",
           "review-notify-overdue", "release-gate-auto-publish")
"""The names in CELERY_BEAT_SCHEDULE run here: due webhook deliveries, work a killed process left claimed,
export files past their retention, emails to retry, overdue cases to tell of, and thresholds that publish
themselves. (Their schedules are fixed periods; the daily digests need a beat process.)"""

_TICK_SECONDS = 1.0
_started: threading.Thread | None = None
_start_lock = threading.Lock()


def beat_round(*, last_runs: dict[str, float], now: float) -> list[str]:
    """Run each entry whose period has passed since it last ran (or that never ran); the names it ran.

    A failing entry is logged and tried again on its next period: one bad round must not stop the loop.
    """
    ran = []
    for name in ENTRIES:
        entry: dict[str, Any] = settings.CELERY_BEAT_SCHEDULE[name]
        if name in last_runs and now - last_runs[name] < float(entry["schedule"]):
            continue
        last_runs[name] = now
        try:
            app.tasks[entry["task"]].apply()
        except Exception:
            logger.exception("the embedded beat's %r failed; it runs again in %ss", name, entry["schedule"])
        ran.append(name)
    return ran


def embedded_beat_start() -> threading.Thread | None:
    """Start the loop in a daemon thread of this process, once; None where tasks go to a broker (its own
    celery beat runs the schedule there)."""
    global _started
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        return None
    with _start_lock:
        if _started is None:
            _started = threading.Thread(target=_loop, name="embedded-beat", daemon=True)
            _started.start()
    return _started


def _loop() -> None:
    app.loader.import_default_modules()  # the tasks the schedule names, registered by their modules
    last_runs: dict[str, float] = {}
    while True:
        try:
            beat_round(last_runs=last_runs, now=time.monotonic())
        finally:
            # A round's connections are this thread's own: closed between rounds, none sits idle holding a slot.
            connections.close_all()
        time.sleep(_TICK_SECONDS)
