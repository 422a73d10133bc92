"""`manage.py demo`: demo accounts and demo cases for the local demo console (DEMO=1), in its own database."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string

from reviewconsole.team.demo import DemoAccount, DemoRefused, demo_install


class Command(BaseCommand):
    help = "Create the demo accounts (one per role) and load the demo cases. The local demo console only."

    def handle(self, *args: object, **options: object) -> None:
        if not settings.DEMO:
            raise CommandError("demo accounts have known passwords: run with DEMO=1 (the local demo console) only")
        credentials = settings.VAR_DIR / "demo-accounts.json"
        try:
            accounts = demo_install(credentials_path=credentials)
        except DemoRefused as refusal:
            raise CommandError(
                f"refused, nothing written: this database is not the demo's: {refusal}. The demo fills a database "
                "of its own: run it with a new VAR_DIR (or remove the demo's var/reviewconsole.sqlite3)"
            ) from None
        for dotted_path in settings.DEMO_CASE_LOADERS:
            loaded = import_string(dotted_path)()
            self.stdout.write(f"{dotted_path}: {loaded}")
        self.stdout.write("Demo accounts (username / password / role):")
        for account in accounts:
            self.stdout.write(f"  {account.username:<10} {account.password or '(unchanged)':<14} {account.roles_label}"
                              f"{_note(account, credentials.name)}")


def _note(account: DemoAccount, credentials: str) -> str:
    """Why an account is not as a first run makes it: the demo never resets a password or reactivates anyone."""
    notes = []
    if not account.active:
        notes.append("deactivated, and left so")
    if account.password is None:
        notes.append(f"its password is not the one in {credentials}, and is left as it is")
    return f" ({'; '.join(notes)})" if notes else ""
