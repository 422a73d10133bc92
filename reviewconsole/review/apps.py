from __future__ import annotations

from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "reviewconsole.review"
    label = "review"

    def ready(self) -> None:
        from reviewconsole.intake.signals import case_failed, run_stored
        from reviewconsole.review.services.routing import case_failure_notified, case_routed

        # Intake stores a run and says so; what follows (the queue, the client's webhook) is review's.
        run_stored.connect(case_routed, dispatch_uid="review.case_routed")
        case_failed.connect(case_failure_notified, dispatch_uid="review.case_failure_notified")
