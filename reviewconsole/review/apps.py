from __future__ import annotations

from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "reviewconsole.review"
    label = "review"
