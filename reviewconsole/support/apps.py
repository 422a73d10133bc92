from __future__ import annotations

from django.apps import AppConfig


class SupportConfig(AppConfig):
    """The support lead's pages over the audit trail: search, a case read end to end, exports, metrics.

    Above every app whose rows it reads; the log itself (`reviewconsole.audit`) sits at the bottom, so
    every app can append to it (docs/architecture.md).
    """

    name = "reviewconsole.support"
    label = "support"
    verbose_name = "Audit search, exports and metrics"

    def ready(self) -> None:
        from reviewconsole.review.signals import spot_check_labelled
        from reviewconsole.support.breaker_watch import spot_check_labelled_watch

        # Each label of a spot check may move the unsafe share of released answers past the budget.
        spot_check_labelled.connect(spot_check_labelled_watch, dispatch_uid="support.breaker_watch")
