from __future__ import annotations

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "reviewconsole.webhooks"
    label = "webhooks"
