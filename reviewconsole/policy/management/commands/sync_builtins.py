"""`manage.py sync_builtins`: bring an upgraded release's built-in constitutions and rubric into the database."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils import timezone

from reviewconsole.policy.services import builtins_sync


class Command(BaseCommand):
    help = (
        "After an upgrade: publish a new built-in constitution or rubric as version 1, and save a changed one "
        "as a draft for a policy admin to publish. Safe to run again; every version written is audited."
    )

    def handle(self, *args: object, **options: object) -> None:
        for line in builtins_sync(now=timezone.now()):
            self.stdout.write(line)
