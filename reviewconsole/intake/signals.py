"""What intake tells the apps above it, so it never reaches into their tables.

`run_stored` is sent inside the transaction that stores a run's chain, after the case has its terminal
state and status: a receiver's writes (an escalation, a webhook delivery) commit with it or not at all.
Receivers: `review.services.routing.case_routed` (connected in `ReviewConfig.ready`).

`case_failed` is sent inside the transaction that marks a case FAILED (its run raised, or no worker
finished it within its attempts): the client is told, as for any other end. Receiver:
`review.services.routing.case_failure_notified`.
"""

from __future__ import annotations

from django.dispatch import Signal

run_stored = Signal()
"""Sent with `case` (saved, status set from its terminal) and `record` (the engine's RunRecord)."""

case_failed = Signal()
"""Sent with `case_id` and `error` (why it failed, as the API shows it)."""
