"""`manage.py demo`: demo accounts and demo cases for a local console."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string

from reviewconsole.accounts.services import demo_accounts_ensure


class Command(BaseCommand):
    help = "Create the demo accounts (one per role) and load the demo cases. Local consoles only."

    def handle(self, *args: object, **options: object) -> None:
        if not (settings.DEMO or settings.DEBUG):
            raise CommandError("demo accounts have known passwords: run with DEMO=1 (or DEBUG=1) only")
        accounts = demo_accounts_ensure(credentials_path=settings.VAR_DIR / "demo-accounts.json")
        for dotted_path in settings.DEMO_CASE_LOADERS:
            loaded = import_string(dotted_path)()
            self.stdout.write(f"{dotted_path}: {loaded}")
        self.stdout.write("Demo accounts (username / password / role):")
        for account in accounts:
            self.stdout.write(f"  {account.username:<10} {account.password:<14} {account.roles_label}")
