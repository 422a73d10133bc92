"""Celery's settings, the task queues and the periodic schedule: part of the settings module, kept apart
because every process type reads them (see docs/configuration.md)."""

from __future__ import annotations

from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

from reviewconsole.env import env_bool, env_float, env_int, env_url
from reviewconsole.outbox.transport import broker_transport
from reviewconsole.queues import TaskQueue

REDIS_URL = env_url("REDIS_URL", schemes=("redis", "rediss"))
CELERY_BROKER_URL = REDIS_URL or "memory://"
# Kombu's Redis transport with one client per channel (reviewconsole/outbox/transport.py says why).
CELERY_BROKER_TRANSPORT = broker_transport(CELERY_BROKER_URL)
# Without a broker, tasks run in the web process, after the transaction that enqueued them commits.
CELERY_TASK_ALWAYS_EAGER = REDIS_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = TaskQueue.DEFAULT.value
CELERY_TASK_CREATE_MISSING_QUEUES = False
# A task is acknowledged only after it finished, and requeued if its worker dies mid-run.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 240, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300, minimum=2)
CELERY_TASK_MAX_RETRIES = env_int("CELERY_TASK_MAX_RETRIES", 5, minimum=0, maximum=50)
CELERY_TASK_RETRY_BACKOFF_MAX = env_int("CELERY_TASK_RETRY_BACKOFF_MAX", 600, minimum=1)
if CELERY_TASK_SOFT_TIME_LIMIT >= CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured("CELERY_TASK_SOFT_TIME_LIMIT must be below CELERY_TASK_TIME_LIMIT")
# A file export of a whole audit trail writes about 150,000 rows a second: the default limits would
# stop one at about 35 million rows, so exports have limits of their own (soft a minute earlier).
AUDIT_EXPORT_TIME_LIMIT = env_int("AUDIT_EXPORT_TIME_LIMIT", 3600, minimum=CELERY_TASK_TIME_LIMIT)
# A retraining run fine-tunes the scorer for minutes (about 1,000 labelled claims in ten on two cores): its
# deadline is its own too (soft a minute earlier), past which the run is failed, not left holding its worker.
RETRAINING_TIME_LIMIT = env_int("RETRAINING_TIME_LIMIT", 3600, minimum=CELERY_TASK_TIME_LIMIT)
_LONGEST_TASK = max(AUDIT_EXPORT_TIME_LIMIT, RETRAINING_TIME_LIMIT)
# Redis redelivers an unacknowledged task after the visibility timeout; it must exceed the longest
# task and the longest retry countdown, or a slow task would run twice.
CELERY_BROKER_VISIBILITY_TIMEOUT = env_int(
    "CELERY_BROKER_VISIBILITY_TIMEOUT",
    max(3600, _LONGEST_TASK + CELERY_TASK_RETRY_BACKOFF_MAX + 1),
    minimum=max(CELERY_TASK_TIME_LIMIT, _LONGEST_TASK) + CELERY_TASK_RETRY_BACKOFF_MAX + 1,
)
# Every Redis client (the broker's, reviewconsole/redis_clients.py's) gives up on a connect, and on a command's
# answer, after these many seconds: a Redis host cut off by a partition is an error, not a hang.
REDIS_CONNECT_TIMEOUT_SECONDS = env_float("REDIS_CONNECT_TIMEOUT_SECONDS", 2.0, minimum=0.1, maximum=60.0)
# At least 2 s: a worker's BRPOP asks Redis to answer within 1 s.
REDIS_SOCKET_TIMEOUT_SECONDS = env_float("REDIS_SOCKET_TIMEOUT_SECONDS", 5.0, minimum=2.0, maximum=300.0)
# Ten priority lists per queue (kombu's Redis transport keeps four unless told): a case's priority falls one
# step each time its client's backlog doubles (reviewconsole/intake/fair_share.py), 0 first, FIFO within one.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_BROKER_VISIBILITY_TIMEOUT,
    "priority_steps": list(range(10)),
    "socket_connect_timeout": REDIS_CONNECT_TIMEOUT_SECONDS,
    "socket_timeout": REDIS_SOCKET_TIMEOUT_SECONDS,
    "socket_keepalive": True,
    # A worker's BRPOP connection that stays silent this long past its timeout is dropped and made again.
    "health_check_interval": env_int("REDIS_HEALTH_CHECK_SECONDS", 10, minimum=1, maximum=300),
}
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_CONNECT_TIMEOUT_SECONDS
# A worker that lost Redis reconnects (2 s apart, growing to 30 s) this many times, then exits for its supervisor.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = env_int("CELERY_BROKER_CONNECTION_MAX_RETRIES", 100, minimum=1)
# Results are not kept (CELERY_TASK_IGNORE_RESULT); were a Redis result backend configured, these bound it too.
CELERY_RESULT_BACKEND = None
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = REDIS_CONNECT_TIMEOUT_SECONDS
CELERY_REDIS_SOCKET_TIMEOUT = REDIS_SOCKET_TIMEOUT_SECONDS
# Off: every case at the top priority, in the order submitted, whatever its client's backlog (as before
# fair scheduling; benchmarks/fairness.py measures against it).
FAIR_SCHEDULING = env_bool("FAIR_SCHEDULING", True)
CELERY_TASK_ROUTES = {
    "intake.*": {"queue": TaskQueue.VERIFY.value},
    # First match wins: notices are housekeeping, not the engine's work.
    "review.notify_overdue": {"queue": TaskQueue.MAINTENANCE.value},
    "review.send_digests": {"queue": TaskQueue.MAINTENANCE.value},
    "review.*": {"queue": TaskQueue.VERIFY.value},
    "webhooks.*": {"queue": TaskQueue.WEBHOOKS.value},
    # Email is outbound traffic too: a slow mail server holds webhook workers, never cases.
    "mail.*": {"queue": TaskQueue.WEBHOOKS.value},
    "maintenance.*": {"queue": TaskQueue.MAINTENANCE.value},
    "policy.*": {"queue": TaskQueue.MAINTENANCE.value},
    "workbench.retrain": {"queue": TaskQueue.TRAIN.value},
    # First match wins: the sealer runs every few seconds and must not wait behind an hour-long export.
    "audit.seal": {"queue": TaskQueue.SEAL.value},
    "audit.*": {"queue": TaskQueue.MAINTENANCE.value},
}
# The audit sealer runs this often (seconds): every event is sealed into a signed tree head within about
# this long of its commit, and an export covers everything committed before it was asked.
AUDIT_SEAL_SECONDS = env_float("AUDIT_SEAL_SECONDS", 2.0, minimum=0.2, maximum=60.0)
# The sweeper runs this often (seconds): stranded work is back in its queue within STUCK_CASE_SECONDS plus this.
SWEEP_SECONDS = env_float("SWEEP_SECONDS", 60.0, minimum=5.0, maximum=3600.0)
# Celery beat runs the outbox relay this often (seconds): a message the broker did not take at the commit
# is handed over within about this long of the broker's return even where no `outbox_relay` process runs.
OUTBOX_RELAY_SECONDS = env_float("OUTBOX_RELAY_SECONDS", 5.0, minimum=0.5, maximum=60.0)
CELERY_BEAT_SCHEDULE = {
    "policy-nightly-canary": {
        "task": "policy.canary",
        # Nightly, at a quiet hour (in TIME_ZONE): calibrate every published critic rubric.
        "schedule": crontab(hour=env_int("POLICY_CANARY_HOUR", 3, minimum=0, maximum=23), minute=0),
        "options": {"queue": TaskQueue.MAINTENANCE.value, "expires": 3600},
    },
    "sweep-claims": {
        # Work of every kind whose worker died or whose message was lost goes back to its queue.
        "task": "maintenance.sweep_claims",
        "schedule": SWEEP_SECONDS,
        # A sweep that waited longer than its period is superseded by the next one.
        "options": {"queue": TaskQueue.MAINTENANCE.value, "expires": SWEEP_SECONDS * 0.9},
    },
    "audit-seal": {
        # Appends take no lock; the sealer links what was committed since its last run into the Merkle tree.
        "task": "audit.seal",
        "schedule": AUDIT_SEAL_SECONDS,
        # A run that waited longer than its period is superseded by the next one, which seals the same events.
        "options": {"queue": TaskQueue.SEAL.value, "expires": AUDIT_SEAL_SECONDS},
    },
    "outbox-relay": {
        # Hands the broker what it did not take, where no `manage.py outbox_relay` process runs (and beside one).
        "task": "outbox.relay",
        "schedule": OUTBOX_RELAY_SECONDS,
        # A round that waited longer than its period is superseded by the next one, which sends the same.
        "options": {"queue": TaskQueue.DEFAULT.value, "expires": OUTBOX_RELAY_SECONDS},
    },
    "webhooks-dispatch-due": {
        "task": "webhooks.dispatch_due_webhooks",
        "schedule": env_float("WEBHOOK_DISPATCH_SECONDS", 30.0, minimum=1.0, maximum=3600.0),
        "options": {"queue": TaskQueue.WEBHOOKS.value, "expires": 25},
    },
    "mail-dispatch-due": {
        # Emails whose send failed are tried again once their backoff is over; lost first sends too.
        "task": "mail.dispatch_due_emails",
        "schedule": 60.0,
        "options": {"queue": TaskQueue.WEBHOOKS.value, "expires": 55},
    },
    "review-notify-overdue": {
        # Cases past their time to decision: a case.overdue webhook, and the review leads told.
        "task": "review.notify_overdue",
        "schedule": 300.0,
        "options": {"queue": TaskQueue.MAINTENANCE.value, "expires": 290},
    },
    "review-digests": {
        # Each reviewer's daily digest of the cases assigned to them, at a morning hour (in TIME_ZONE).
        "task": "review.send_digests",
        "schedule": crontab(hour=env_int("REVIEW_DIGEST_HOUR", 7, minimum=0, maximum=23), minute=0),
        "options": {"queue": TaskQueue.MAINTENANCE.value, "expires": 3600},
    },
    "release-gate-auto-publish": {
        # Constitutions in shadow mode that publish their own calibration once their labels allow one.
        "task": "workbench.auto_publish_calibrations",
        "schedule": 300.0,
        "options": {"queue": TaskQueue.MAINTENANCE.value, "expires": 290},
    },
    "audit-exports-expire": {
        # Export files past AUDIT_EXPORT_RETENTION_HOURS are removed within ten minutes of it.
        "task": "audit.expire_exports",
        "schedule": 600.0,
        "options": {"queue": TaskQueue.MAINTENANCE.value, "expires": 540},
    },
}
