"""`manage.py rotate_token NAME`: replace a client's API token; the old one stops working at once."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from reviewconsole.intake.models import Client
from reviewconsole.intake.services import client_token_rotate


class Command(BaseCommand):
    help = "Replace a client's API token and print the new one once."

    def add_arguments(self, parser) -> None:
        parser.add_argument("name", help="The client's name")

    def handle(self, *args: object, name: str, **options: object) -> None:
        client = Client.objects.filter(name=name).first()
        if client is None:
            raise CommandError(f"NAME: no client named {name!r}")
        token = client_token_rotate(client=client)
        self.stdout.write(f"New API token for {client.name!r} (shown once): {token}")
