"""A fair share of the verify workers: a case waits at a priority that falls as its client's backlog grows.

Cases wait in one queue, `verify`, which kombu's Redis transport keeps as ten lists, priority 0 to 9: a
worker takes from the first list that holds anything, oldest first within a list. A case goes to the list
`priority_for_backlog(backlog)`, where `backlog` is how many of its client's cases were unfinished (queued
or running) when it was submitted: 0 for none, one list lower each time the backlog doubles (1-2: 1, 3-6:
2, ..., 511 and more: 9). A client with nothing waiting therefore goes ahead of another client's flood.

The bound. A case is given priority p only while its client has fewer than 2^(p+1) - 1 unfinished cases,
so at any moment a client has at most 2^(p+1) - 1 unfinished cases at priorities 0 to p. A case of a client
with backlog b (priority p) waits for the cases running when it arrives, the re-verifications of
reviewers' edits (priority 0: a person is waiting), and, from every other client, at most 2^(p+1) - 1
cases, however many that client has queued. A client with nothing unfinished (p = 0) waits for at most one
case of each other client; docs/team.md ("Running it for a team") and docs/scheduling.md turn that into
seconds. Within one client, a case submitted once its backlog has shrunk may overtake that client's older
ones; a flood gets whatever the other clients leave of the workers.

The backlog is counted in Redis, so a submission costs no query and, where the client limits' counters are
in the same Redis, no round trip of its own: a submission adds its case to its client's count (with its
quota charge, quotas.case_charge), and a worker that finished or failed one of the client's cases sets the
count to the client's unfinished cases in the database. A count that drifted (a submission that counted and
then rolled back, a Redis restarted empty, a worker killed before it recounted) is right again when the
client's next case finishes. Without a broker (the embedded default, tasks run in-process), with
FAIR_SCHEDULING off, or while Redis does not answer, every case goes at priority 0, in submission order.
"""

from __future__ import annotations

import logging

import redis
from django.conf import settings
from django.db import transaction

from reviewconsole.celery import app
from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.outbox.broker import broker_instance_at
from reviewconsole.redis_clients import shared_client

logger = logging.getLogger(__name__)

LOWEST_PRIORITY = 9
"""The last of the ten lists (CELERY_BROKER_TRANSPORT_OPTIONS' priority_steps)."""
# A recount stops here: every backlog of 511 or more is the lowest priority anyway.
_COUNT_CAP = 2**LOWEST_PRIORITY
_UNFINISHED = (CaseStatus.QUEUED, CaseStatus.RUNNING)


def priority_for_backlog(backlog: int) -> int:
    """The queue priority of a case whose client has `backlog` unfinished cases besides it: 0 for none, one
    lower each time the backlog doubles, LOWEST_PRIORITY from 511 on."""
    return min(LOWEST_PRIORITY, (backlog + 1).bit_length() - 1)


def case_priority(*, client_id: int, counted: bool = False) -> int | None:
    """The queue priority of a case of the client, counting the case into its backlog unless it is `counted`
    already (a case sent again by the sweeper); None (priority 0) when nothing counts backlogs."""
    connection = _counter()
    if connection is None:
        return None
    key = _key(client_id)
    try:
        counted_now = int(connection.get(key) or 1) if counted else int(connection.incr(key))
    except redis.RedisError as error:
        logger.warning("case of client %s queued at priority 0: its backlog could not be counted: %s", client_id, error)
        return None
    return backlog_priority(counted_now)


def backlog_key_in(redis_url: str | None, *, client_id: int) -> str | None:
    """The key of the client's backlog count when backlogs are counted in the Redis at `redis_url`, so that the
    case's charge there counts it in the same round trip (`backlog_priority` then gives its priority); None
    when they are counted elsewhere or not at all."""
    if redis_url is None or _counted_at() != redis_url:
        return None
    return _key(client_id)


def backlog_priority(counted: int) -> int:
    """The queue priority of a case counted into its client's backlog, `counted` with it."""
    return priority_for_backlog(max(counted - 1, 0))


def backlog_recount_on_commit(*, client_id: int) -> None:
    """Once the current transaction commits (a case of the client finished or failed in it), set the
    client's count to its unfinished cases in the database."""
    transaction.on_commit(lambda: backlog_recount(client_id=client_id), robust=True)


def backlog_recount(*, client_id: int) -> int | None:
    """Set the client's count to its unfinished cases in the database (up to 512); the count, or None when
    nothing counts backlogs."""
    connection = _counter()
    if connection is None:
        return None
    unfinished = Case.objects.filter(client_id=client_id, status__in=_UNFINISHED)[:_COUNT_CAP].count()
    try:
        connection.set(_key(client_id), unfinished)
    except redis.RedisError as error:
        logger.warning("the backlog of client %s was not recounted (its next finished case will): %s", client_id, error)
        return None
    return unfinished


def _key(client_id: int) -> str:
    return f"reviewconsole:backlog:{client_id}"


def _counter() -> redis.Redis | None:
    """The broker's Redis, where backlogs are counted; None without one, or with fair scheduling off."""
    url = _counted_at()
    return None if url is None else shared_client(url, timeout=0.5)


def _counted_at() -> str | None:
    """The URL of the broker's Redis when backlogs are counted there now (`_counter`)."""
    if not settings.FAIR_SCHEDULING or app.conf.task_always_eager:
        return None
    # Read once: every read of Celery's settings costs about 10 us of a submission's CPU.
    url = str(app.conf.broker_url)
    # The broker did not answer its probe a moment ago (the outbox's, cached for seconds): asking it again
    # would keep a submission waiting for the connection to fail.
    return url if broker_instance_at(url) else None
