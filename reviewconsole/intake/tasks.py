"""Tasks over case ids: run the engine on a case, and re-enqueue work that got stuck."""

from __future__ import annotations

import logging

from django.utils import timezone

from reviewconsole.celery import app
from reviewconsole.intake import services
from reviewconsole.intake.constitutions import case_constitution
from reviewconsole.intake.engine import run_engine
from reviewconsole.intake.models import Case
from reviewconsole.review.services import edit_verifications_sweep
from reviewconsole.review.tasks import verify_edit
from verification import PermanentError, TransientError

logger = logging.getLogger(__name__)


@app.task(name="intake.verify_case", bind=True)
def verify_case(self, case_id: int) -> None:
    """Claim the case, run the engine, store the chain and route it. A no-op if it is not ours to run."""
    now = timezone.now()
    claim = services.case_run_claim(case_id=case_id, now=now)
    if claim is None:
        wait = services.case_run_wait(case_id=case_id, now=now)
        if wait is not None and not self.request.is_eager:
            # Another run holds the case; if its worker died, the hold lapses at the deadline. Come back then.
            raise self.retry(countdown=wait, max_retries=None)
        logger.info("case %s is running elsewhere or finished; nothing to do", case_id)
        return
    case = Case.objects.select_related("constitution_pin").prefetch_related("sources").get(pk=case_id)
    try:
        record = run_engine(services.case_contract(case), constitution=case_constitution(case))
    except TransientError as error:
        if self.request.is_eager:
            # In-process there is no one to retry later: say so on the case instead of failing the request.
            _fail(claim, error)
            return
        services.case_run_release(claim=claim)
        raise  # retried with backoff by the task preset
    except PermanentError as error:
        _fail(claim, error)
        return
    except Exception as error:
        # A defect in the engine: keep the case visible as failed rather than retrying it forever.
        logger.exception("engine failed on case %s", case_id)
        _fail(claim, error, prefix="internal error: ")
        return
    services.case_run_finish(claim=claim, record=record, now=timezone.now())


def _fail(claim: services.RunClaim, error: Exception, prefix: str = "") -> None:
    services.case_run_fail(claim=claim, error=f"{prefix}{type(error).__name__}: {error}", now=timezone.now())


@app.task(name="intake.requeue_stuck_cases")
def requeue_stuck_cases() -> int:
    """Periodic: a lost message or a killed worker must not strand a case, nor a reviewer's edit."""
    now = timezone.now()
    stuck = services.cases_requeue_stuck(now=now)
    for case_id in stuck:
        verify_case.delay(case_id)
    if stuck:
        logger.warning("re-enqueued %d stuck case(s): %s", len(stuck), stuck)
    # An edit's verification that was lost runs again; one out of attempts is failed by the sweep.
    edits = edit_verifications_sweep(now=now)
    for candidate_pk in edits:
        verify_edit.delay(candidate_pk)
    if edits:
        logger.warning("re-enqueued %d stuck edit verification(s): %s", len(edits), edits)
    return len(stuck) + len(edits)
