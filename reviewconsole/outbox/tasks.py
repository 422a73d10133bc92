"""The relay as a periodic task: what the broker has not got is handed over even where no relay process runs.

`manage.py outbox_relay` hands messages over within a second of the broker's return; a deployment of only
web, worker and beat (an older README, a platform with no room for a fourth process) has no such process,
and its messages would wait for the sweeper's deadline (`STUCK_CASE_SECONDS`). Celery beat runs this task
every `OUTBOX_RELAY_SECONDS` on a worker instead. Both may run at once: `relay_once` locks the rows it
sends (`SKIP LOCKED`), so two relays never hand over the same message.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError

from reviewconsole.celery import app
from reviewconsole.outbox.services import BROKER_ERRORS, relay_once

logger = logging.getLogger(__name__)
# The database or the broker went away mid-round: the next round tries again.
_PASSING: tuple[type[Exception], ...] = (DatabaseError, *BROKER_ERRORS)


# The failures a retry would wait out are caught below instead: the next beat tick is the retry, and a relay
# that waited would only run beside it. A round is one batch of RELAY_BATCH sends: seconds at most, so a short
# limit frees a worker stuck on a dead broker.
@app.task(name="outbox.relay", soft_time_limit=30, time_limit=60)
def relay() -> int:
    """Hand the broker every committed message it has not got; the number handed over."""
    try:
        return relay_once(app)
    except _PASSING as error:
        logger.warning("outbox relay: %s: %s", type(error).__name__, error)
        return 0
