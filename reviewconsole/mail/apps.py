from __future__ import annotations

from django.apps import AppConfig


class MailConfig(AppConfig):
    name = "reviewconsole.mail"
    label = "mail"
