"""`manage.py rotate_token NAME`: replace a client's API token, audited like the Clients page; the old one stops
working at once."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from reviewconsole.audit.actions import COMMAND_LINE
from reviewconsole.intake.models import Client
from reviewconsole.team import services


class Command(BaseCommand):
    help = "Replace a client's API token and print the new one once (the change is audited)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("name", help="The client's name")

    def handle(self, *args: object, name: str, **options: object) -> None:
        client = Client.objects.filter(name=name).first()
        if client is None:
            raise CommandError(f"NAME: no client named {name!r}")
        token = services.client_token_rotate(actor=COMMAND_LINE, client=client)
        self.stdout.write(f"New API token for {client.name!r} (shown once): {token}")
