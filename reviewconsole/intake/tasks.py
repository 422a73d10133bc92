"""Tasks over case ids: run the engine on a case."""

from __future__ import annotations

import logging

from reviewconsole.celery import app
from reviewconsole.intake import services

logger = logging.getLogger(__name__)


@app.task(name="intake.verify_case")
def verify_case(case_id: int) -> None:
    """Run the engine on the case and store its chain; a no-op when the case is not ours to run."""
    if services.case_run(case_id=case_id) is None:
        logger.info("case %s is running elsewhere, finished or failed; nothing stored", case_id)
