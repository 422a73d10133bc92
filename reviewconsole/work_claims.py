"""A worker's claim on a row of work: taken by one conditional UPDATE, held until a deadline.

Not the claims of an answer (the engine's `Claim`): a work claim is a worker's hold on one piece of work, a case
run, a webhook delivery, an audit export, a calibration run, a retraining run or the re-verification of a
reviewer's edit. Each kind is a model that inherits `ClaimedWork`, and so keeps the same claim columns:
`claim_token` (which claim holds it), `run_deadline` (past it, the holder is known dead: no task outlives its
hard time limit) and `attempts` (claims so far), beside the `status` whose choices are its own. The model
declares its kind once, in its body (`work_kind = WorkKind(...)`: what its workers do, which status waits,
runs and failed), and what failing it sets off (`on_work_failed`); `kinds()` lists every kind installed.

- `claim` takes work that waits, or work whose holder is past its deadline; a deadline is mandatory.
- `settling` runs the claimed work: a transient failure with a retry to come hands the work back to the
  queue and propagates to the task preset's retry; any other failure fails the work with its reason.
- `finish`, `fail`, `release` and `lock` act only for the claim that holds the work (its token).
- `sweep` returns work lost by a dead worker or a lost message to the queue, or fails it past the cap.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar, Generic, TypeVar

from django.apps import apps
from django.conf import settings
from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone

from reviewconsole.celery import TRANSIENT_ERRORS, retry_coming
from verification import PermanentError

logger = logging.getLogger(__name__)

ERROR_CHARS = 5000
# One sweep returns at most this many of a kind; a larger backlog drains over the next sweeps.
SWEEP_BATCH = 500

Work = TypeVar("Work", bound=models.Model)


def task_attempts() -> int:
    """Claims of a piece of work before it is failed: the first run and the task preset's retries.

    A worker killed mid-run costs one, like a transient failure: work that kills its worker every time
    ends failed instead of being run for ever.
    """
    return settings.CELERY_TASK_MAX_RETRIES + 1


@dataclass(frozen=True)
class WorkKind(Generic[Work]):
    """One kind of claimed work: what its workers do, the statuses it moves through, and its attempt cap.

    Declared in the body of its model, a `ClaimedWork`, which it learns as Python builds the class.
    """

    doing: str
    """What a worker does with it, for messages: "verifying the edit"."""
    waiting: str
    """The status of work waiting for a worker."""
    running: str
    """The status while a worker holds it."""
    failed: str
    max_attempts: Callable[[], int] = task_attempts
    """Claims before the work is failed; read when needed, so a changed setting applies."""
    id_field: str = "pk"
    """The field tasks name the work by."""
    error_field: str = "error"
    started_field: str | None = "started_at"
    finished_field: str | None = "finished_at"
    due_field: str | None = None
    """When set, waiting work can be claimed only once this time has come (a webhook's next attempt)."""
    waiting_since: str | None = "created_at"
    """When the work was queued: waiting too long means its message was lost. None when another periodic
    task sends waiting work anyway."""
    model: type[Work] = field(init=False, repr=False, compare=False)
    """The table of the work: the model whose body declares the kind."""

    def __set_name__(self, owner: type[Work], name: str) -> None:
        # Called by Python as it builds the model's class (Django passes it on, as it does for any attribute
        # that is not a field): the kind is declared once, where its table is, and the table is not repeated.
        object.__setattr__(self, "model", owner)


class ClaimedWork(models.Model):
    """A table of work that workers claim: the claim's columns, one definition for every kind.

    A kind's model declares its `status` (its own choices: each kind moves through states of its own) and
    its `work_kind`; `on_work_failed` is what failing a piece of work sets off, if anything.
    """

    # Set by the claim that holds the work, and cleared when it lets go; only that claim may settle it.
    claim_token = models.UUIDField(null=True, blank=True, editable=False)
    # Past it, the worker is known dead and the sweeper queues the work again, until `attempts` (claims so
    # far) reaches the cap and it is failed instead.
    run_deadline = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)

    work_kind: ClassVar[WorkKind[Any]]

    class Meta:
        abstract = True

    @classmethod
    def on_work_failed(cls, work_id: Any, reason: str) -> None:
        """Called with the work's id and the reason, in the transaction that failed it (to audit it); a kind
        with nothing more to do when its work fails leaves it as it is."""


class ClaimedRun(ClaimedWork):
    """Claimed work that a worker runs to its end: when its run started and ended, and why it failed.

    (A webhook delivery is claimed attempt by attempt: it keeps the time and the reason of each attempt.)
    """

    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


def kinds() -> list[WorkKind[Any]]:
    """Every kind of claimed work: the one each installed model of claimed work declares."""
    return [model.work_kind for model in apps.get_models() if issubclass(model, ClaimedWork)]


@dataclass(frozen=True)
class Claim(Generic[Work]):
    """A worker's hold on one piece of work until `deadline`; only its `token` may settle the work."""

    kind: WorkKind[Work]
    work_id: Any
    token: uuid.UUID
    deadline: datetime
    attempt: int
    """Which claim of the work this is: 1 for the first run."""


def _work(kind: WorkKind[Work], work_id: Any) -> models.QuerySet[Work]:
    # The default manager, as Django's generic code uses: the kinds' models name theirs differently.
    return kind.model._default_manager.filter(**{kind.id_field: work_id})


def _held(claim: Claim[Work]) -> models.QuerySet[Work]:
    return _work(claim.kind, claim.work_id).filter(status=claim.kind.running, claim_token=claim.token)


def claim(
    kind: WorkKind[Work], *, work_id: Any, now: datetime, deadline: datetime, **fields: Any
) -> Claim[Work] | None:
    """Take `work_id` if it waits for a worker, or if its holder is past its deadline (so it died).

    One conditional UPDATE decides: of two workers holding the same message only one gets the row.
    `deadline` is when the claim lapses; it must lie past the task's hard time limit, or a slow but live
    run would be taken over. Work out of attempts is not taken (the sweep fails it). `fields` are set
    with the claim: progress a new run starts again from. None when the work is not ours to run.
    """
    if deadline <= now:
        raise ValueError(f"a claim's deadline must lie ahead: {deadline.isoformat()} is not after {now.isoformat()}")
    waiting = Q(status=kind.waiting)
    if kind.due_field:
        waiting &= Q(**{f"{kind.due_field}__lte": now})
    claimable = waiting | Q(status=kind.running, run_deadline__lt=now)
    token = uuid.uuid4()
    changes: dict[str, Any] = {
        "status": kind.running, "claim_token": token, "run_deadline": deadline, "attempts": F("attempts") + 1,
        **fields,
    }
    if kind.started_field:
        changes[kind.started_field] = now
    if not _work(kind, work_id).filter(claimable, attempts__lt=kind.max_attempts()).update(**changes):
        return None
    attempt = _work(kind, work_id).filter(claim_token=token).values_list("attempts", flat=True).first()
    return Claim(kind, work_id, token, deadline, attempt or 0)


def lock(claim: Claim[Work]) -> Work | None:
    """The claimed row, locked until the caller's transaction ends, if the claim still holds it."""
    return _held(claim).select_for_update().first()


def finish(claim: Claim[Any], *, status: str, now: datetime, **fields: Any) -> bool:
    """End the work in `status` with `fields`, if the claim still holds it; False when it lost the work."""
    changes: dict[str, Any] = {"status": status, "claim_token": None, "run_deadline": None, **fields}
    if claim.kind.finished_field:
        changes[claim.kind.finished_field] = now
    return bool(_held(claim).update(**changes))


def fail(claim: Claim[Any], *, error: str, now: datetime, **fields: Any) -> bool:
    """Fail the work with `error`, if the claim still holds it; False when it lost the work."""
    kind = claim.kind
    with transaction.atomic():
        failed = finish(claim, status=kind.failed, now=now, **{kind.error_field: error[:ERROR_CHARS], **fields})
        if failed:
            kind.model.on_work_failed(claim.work_id, error)
    return failed


def release(claim: Claim[Any]) -> bool:
    """Hand the work back to the queue after a transient failure, for the task's retry to take."""
    return bool(_held(claim).update(status=claim.kind.waiting, claim_token=None, run_deadline=None))


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


@contextmanager
def settling(claim: Claim[Any]) -> Iterator[None]:
    """Run claimed work so that however it fails, the work is left in a known state.

    A transient failure (TRANSIENT_ERRORS) with a retry to come, and attempts left, hands the work back
    to the queue and propagates to the task preset, which retries it with backoff. Any other failure, or
    a transient one that is the work's last (in-process, retries or attempts spent), fails the work with
    its reason and ends here: the code after the `with` block runs.
    """
    try:
        yield
    except TRANSIENT_ERRORS as error:
        if retry_coming() and claim.attempt < claim.kind.max_attempts():
            release(claim)
            raise
        logger.warning("%s %s failed for the last time: %s", claim.kind.doing, claim.work_id, describe(error))
        fail(claim, error=f"gave up after {claim.attempt} attempt(s): {describe(error)}", now=timezone.now())
    except PermanentError as error:
        logger.warning("%s %s failed: %s", claim.kind.doing, claim.work_id, describe(error))
        fail(claim, error=describe(error), now=timezone.now())
    except Exception as error:
        # A defect: keep the work visible as failed rather than retrying it for ever.
        logger.exception("%s %s failed", claim.kind.doing, claim.work_id)
        fail(claim, error=f"internal error: {describe(error)}", now=timezone.now())


def sweep(kind: WorkKind[Any], *, now: datetime) -> list[Any]:
    """Work a worker lost: fail what is out of attempts, hand the rest back to the queue; their ids.

    Lost means held past its deadline (the worker died), or waiting longer than STUCK_CASE_SECONDS (its
    message was lost, or its retries ran out). Work handed back gets as long to be claimed before a later
    sweep sends it again, so a backlog is not sent twice a minute. The caller enqueues the ids.
    """
    lost_after = timedelta(seconds=settings.STUCK_CASE_SECONDS)
    lost = Q(status=kind.running, run_deadline__lt=now)
    if kind.waiting_since:
        before = now - lost_after
        queued_long_ago = Q(run_deadline__isnull=True, **{f"{kind.waiting_since}__lt": before})
        if kind.started_field:
            queued_long_ago &= Q(**{f"{kind.started_field}__isnull": True}) | Q(**{f"{kind.started_field}__lt": before})
        lost |= Q(queued_long_ago | Q(run_deadline__lt=now), status=kind.waiting)
    cap = kind.max_attempts()
    reason = f"gave up after {cap} attempt(s): no worker finished {kind.doing}"
    with transaction.atomic():
        rows = list(
            kind.model._default_manager.select_for_update(skip_locked=True)
            .filter(lost)
            .order_by("pk")
            .values_list(kind.id_field, "attempts")[:SWEEP_BATCH]
        )
        spent = [work_id for work_id, attempts in rows if attempts >= cap]
        again = [work_id for work_id, attempts in rows if attempts < cap]
        failed: dict[str, Any] = {
            "status": kind.failed, kind.error_field: reason, "claim_token": None, "run_deadline": None,
        }
        if kind.finished_field:
            failed[kind.finished_field] = now
        kind.model._default_manager.filter(**{f"{kind.id_field}__in": spent}).update(**failed)
        for work_id in spent:
            kind.model.on_work_failed(work_id, reason)
        kind.model._default_manager.filter(**{f"{kind.id_field}__in": again}).update(
            status=kind.waiting, claim_token=None, run_deadline=now + lost_after
        )
    if spent:
        logger.warning("failed %d %s after %d attempt(s): %s", len(spent), kind.doing, cap, spent)
    return again
