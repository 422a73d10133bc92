"""Tasks over ids for review: verify a reviewer's edit again with the engine."""

from __future__ import annotations

import logging

from reviewconsole.celery import app
from reviewconsole.review import services

logger = logging.getLogger(__name__)


@app.task(name="review.verify_edit")
def verify_edit(candidate_pk: int) -> None:
    """Check the edited text against the case's own sources; a no-op when the edit is not ours to verify."""
    if services.edit_verification_run(candidate_pk=candidate_pk) is None:
        logger.info("edit %s is being verified elsewhere, verified or failed; nothing stored", candidate_pk)
