from __future__ import annotations

from django.apps import AppConfig


class OutboxConfig(AppConfig):
    name = "reviewconsole.outbox"
    label = "outbox"
