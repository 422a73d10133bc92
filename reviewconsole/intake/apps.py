from __future__ import annotations

from django.apps import AppConfig


class IntakeConfig(AppConfig):
    name = "reviewconsole.intake"
    label = "intake"
