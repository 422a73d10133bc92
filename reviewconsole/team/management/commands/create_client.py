"""`manage.py create_client NAME [--webhook-url URL]`: a client application and its API token, audited like
the Clients page."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import URLValidator

from reviewconsole.audit.actions import COMMAND_LINE
from reviewconsole.intake.models import Client
from reviewconsole.team import services


def validated_webhook_url(value: str) -> str:
    try:
        URLValidator(schemes=["http", "https"])(value)
    except ValidationError:
        raise CommandError(f"--webhook-url: not an http(s) URL: {value!r}") from None
    return value


class Command(BaseCommand):
    help = "Create a client application; prints its API token once (only a hash is stored; the creation is audited)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("name", help="A unique name for the client, e.g. support-bot")
        parser.add_argument("--webhook-url", default="", help="Where decisions are POSTed (signed)")

    def handle(self, *args: object, name: str, webhook_url: str, **options: object) -> None:
        name = name.strip()
        if not name or len(name) > 100:
            raise CommandError("NAME: must be 1 to 100 characters")
        if Client.objects.filter(name__iexact=name).exists():
            raise CommandError(f"NAME: a client named {name!r} already exists (use rotate_token for a new token)")
        if webhook_url:
            validated_webhook_url(webhook_url)
        try:
            client, token = services.client_add(actor=COMMAND_LINE, name=name, webhook_url=webhook_url)
        except ValidationError as error:
            field = "NAME" if "name" in error.message_dict else "--webhook-url"
            raise CommandError(f"{field}: {' '.join(error.messages)}") from None
        self.stdout.write(f"Created client {client.name!r} (id {client.pk}).")
        self.stdout.write(f"API token (shown once, keep it secret): {token}")
        if client.webhook_url:
            self.stdout.write(f"Webhook signing secret: {client.webhook_secret}")
