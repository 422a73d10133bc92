"""What review tells the apps above it, so it never reaches into their measurements.

`spot_check_labelled` is sent inside the transaction that stores (or takes back) a label of a claim of a
spot check: the released answers' unsafe share may have moved. Receiver: `support.breaker_watch`
(connected in `SupportConfig.ready`), which opens the constitution's release breaker when it must.
"""

from __future__ import annotations

from django.dispatch import Signal

spot_check_labelled = Signal()
"""Sent with `escalation` (the spot check whose claim was labelled) and `now`."""
