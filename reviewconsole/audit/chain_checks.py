"""Checking the audit chain from the console: a support lead asks, a worker runs the check (claimed work,
so a lost worker's check is run again), and the result is kept and audited. The check itself is
`integrity.log_check`, the one `manage.py audit_verify` runs."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.audit.actions import AuditAction
from reviewconsole.audit.heads import SignedTreeHead
from reviewconsole.audit.heads_file import HeadsFileError, heads_file_read
from reviewconsole.audit.integrity import log_check
from reviewconsole.audit.models import ChainCheck, ChainCheckStatus
from reviewconsole.audit.services import audit_record
from reviewconsole.queues import enqueue_on_commit, task_hold


def saved_heads(path: Path | None = None) -> tuple[list[SignedTreeHead], str]:
    """The tree heads saved outside the database (`path`, else AUDIT_HEADS_FILE), and a note when the
    configured file does not exist yet (nothing sealed since it was configured). HeadsFileError when
    the file cannot be read."""
    if path is not None:
        return heads_file_read(path), ""
    configured = settings.AUDIT_HEADS_FILE
    if configured is None:
        return [], ""
    if not configured.exists():
        return [], f"AUDIT_HEADS_FILE {configured} does not exist yet"
    return heads_file_read(configured), ""


def chain_check_request(*, requested_by: User) -> ChainCheck:
    """Queue a check of the whole chain for a worker, with its `chain_check.requested` event."""
    from reviewconsole.audit.tasks import check_chain

    with transaction.atomic():
        check = ChainCheck.objects.create(requested_by=requested_by)
        audit_record(actor=requested_by, action=AuditAction.CHAIN_CHECK_REQUESTED, object_type="chain_check",
                     object_id=check.pk, payload={})
        enqueue_on_commit(check_chain, check.pk)
    return check


def chain_check_run(*, check_id: int) -> ChainCheck | None:
    """Claim a queued check, run it and keep what it found, audited; None when it is not ours to run."""
    now = timezone.now()
    deadline = now + task_hold(settings.AUDIT_EXPORT_TIME_LIMIT)
    claim = work_claims.claim(ChainCheck.work_kind, work_id=check_id, now=now, deadline=deadline)
    if claim is None:
        return None
    with work_claims.settling(claim):
        unreadable = []
        try:
            heads, _note = saved_heads()
        except HeadsFileError as error:
            # The copy kept outside the database is part of the evidence: unreadable is a finding, not a crash.
            heads = []
            unreadable.append({"kind": "saved head", "message": f"AUDIT_HEADS_FILE: {error}", "event_id": None,
                               "seq": None})
        report = log_check(now=timezone.now(), saved_heads=heads,
                           max_unsealed_age=timedelta(seconds=settings.AUDIT_MAX_UNSEALED_SECONDS))
        problems = [{"kind": problem.kind, "message": problem.message, "event_id": problem.event_id,
                     "seq": problem.seq} for problem in report.problems] + unreadable
        found = {"intact": not problems, "events": report.events, "heads": report.heads,
                 "saved_heads": report.saved_heads, "tree_size": report.tree_size, "root_hash": report.root_hash,
                 "unsealed": report.unsealed}
        with transaction.atomic():
            if not work_claims.finish(claim, status=ChainCheckStatus.DONE, now=timezone.now(), problems=problems,
                                      **found):
                return None
            check = ChainCheck.objects.select_related("requested_by").get(pk=check_id)
            audit_record(actor=check.requested_by, action=AuditAction.CHAIN_CHECKED, object_type="chain_check",
                         object_id=check_id, payload={**found, "first_break": problems[0] if problems else None,
                                                      "problems": len(problems)})
        return check
    return None


def chain_checks_sweep(*, now: datetime) -> list[int]:
    """Checks a worker lost, sent to a worker again (those out of attempts are failed)."""
    from reviewconsole.audit.tasks import check_chain

    lost = work_claims.sweep(ChainCheck.work_kind, now=now)
    for check_id in lost:
        enqueue_on_commit(check_chain, check_id)
    return lost
