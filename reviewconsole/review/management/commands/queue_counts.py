"""Compare the queue's kept counts with a count of the queue, and recount them (--rebuild) if they differ."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewconsole.review.queue_counts import queue_counts_drift
from reviewconsole.review.services.queue_counts import queue_counts_rebuild


class Command(BaseCommand):
    help = (
        "Check the review queue's counts per reason, kept as escalations open and close, against a count of "
        "the open queue; exits non-zero and lists what differs. --rebuild recounts them: after escalations "
        "were written other than through the review services, e.g. by a deploy's old code still running."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rebuild", action="store_true", help="recount the open queue into the kept counts")

    def handle(self, *args, rebuild: bool, **options) -> None:
        if rebuild:
            drift = queue_counts_drift()
            open_cases = queue_counts_rebuild()
            self.stdout.write(f"queue counts rebuilt: {open_cases} open cases; {len(drift)} counts were off")
            return
        drift = queue_counts_drift()
        if drift:
            lines = [
                f"{reason} / {severity}{' / spot check' if spot_check else ''}: kept {kept}, counted {counted}"
                for (reason, severity, spot_check), (kept, counted) in drift.items()
            ]
            raise CommandError("queue counts differ from the queue (fix: --rebuild):\n" + "\n".join(lines))
        self.stdout.write("queue counts exact")
