"""Walk the whole audit chain and name the first event whose hash or link is wrong."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from reviewconsole.audit.chain import first_broken_link
from reviewconsole.audit.models import AuditEvent
from reviewconsole.audit.rows import event_rows


class Command(BaseCommand):
    help = "Verify the audit hash chain; exits non-zero and names the first broken link if it is broken."

    def handle(self, *args, **options) -> None:
        count, broken = first_broken_link(event_rows(AuditEvent.objects.order_by("seq")))
        if broken is not None:
            raise CommandError(
                f"audit chain broken at event id={broken.event_id} (seq {broken.seq}): {broken.problem} "
                f"expected {broken.expected}, stored {broken.stored}"
            )
        self.stdout.write(f"audit chain intact: {count} events")
