"""Tasks over ids for review: verify a reviewer's edit again with the engine."""

from __future__ import annotations

import logging

from django.utils import timezone

from reviewconsole.celery import app
from reviewconsole.intake.constitutions import case_constitution
from reviewconsole.intake.engine import run_engine
from reviewconsole.intake.models import Candidate
from reviewconsole.intake.services import case_contract
from reviewconsole.review import services
from verification import TransientError

logger = logging.getLogger(__name__)


@app.task(name="review.verify_edit", bind=True)
def verify_edit(self, candidate_pk: int) -> None:
    """Check the edited text against the case's own sources, as the engine checks a client's answer."""
    now = timezone.now()
    if not services.edit_verification_start(candidate_pk=candidate_pk, now=now):
        wait = services.edit_verification_wait(candidate_pk=candidate_pk, now=now)
        if wait is not None and not self.request.is_eager:
            # Another run holds it; if its worker died, the hold lapses at the deadline. Come back then.
            raise self.retry(countdown=wait, max_retries=None)
        logger.info("edit %s is verified or being verified elsewhere; nothing to do", candidate_pk)
        return
    candidate = Candidate.objects.select_related("case").get(pk=candidate_pk)
    submission = case_contract(candidate.case).model_copy(update={"answer": candidate.text})
    try:
        # Verified under the version the case pinned, as its first run was, not whatever is in force now.
        # A reviewer's text is checked as written: the engine does not repair a person's edit.
        record = run_engine(submission, constitution=case_constitution(candidate.case), repair="none")
        services.edit_verification_finish(candidate=candidate, record=record, now=timezone.now())
    except TransientError as error:
        if self.request.is_eager:
            services.edit_verification_fail(candidate_pk=candidate_pk, error=f"{error}", now=timezone.now())
            return
        services.edit_verification_release(candidate_pk=candidate_pk)
        raise  # retried with backoff by the task preset
    except Exception as error:
        # Not retried: the reviewer sees the failure and may still approve with a written override.
        logger.exception("verifying edit %s failed", candidate_pk)
        services.edit_verification_fail(
            candidate_pk=candidate_pk, error=f"{type(error).__name__}: {error}", now=timezone.now()
        )
