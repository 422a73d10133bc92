from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "reviewconsole.api"
    label = "api"
