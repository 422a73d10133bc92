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
