"""Seal now what the periodic sealer would seal within seconds: every committed event not sealed yet."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from reviewconsole.audit.sealer import SealerError, log_seal_pending
from reviewconsole.audit.selectors import latest_tree_head


class Command(BaseCommand):
    help = "Seal every committed, unsealed audit event into signed tree heads (waits for a running sealer)."

    def handle(self, *args, **options) -> None:
        try:
            batches = log_seal_pending(wait=True, budget_seconds=float("inf"))
        except SealerError as error:
            raise CommandError(str(error)) from None
        head = latest_tree_head()
        if not batches:
            size = head.tree_size if head else 0
            self.stdout.write(f"nothing to seal: tree head {size} covers every committed event")
            return
        sealed = sum(batch.events for batch in batches)
        last = batches[-1].head
        events = f"{sealed} event{'s' if sealed != 1 else ''}"
        heads = f"{len(batches)} batch{'es' if len(batches) != 1 else ''}"
        self.stdout.write(f"sealed {events} in {heads}: tree head {last.tree_size}, root {last.root_hash}")
