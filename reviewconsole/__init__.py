"""The review console: Django project, Celery app and one package per concern."""

from __future__ import annotations

from reviewconsole.celery import app as celery_app

__all__ = ["celery_app"]
