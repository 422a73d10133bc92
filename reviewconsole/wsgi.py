"""WSGI entry point (gunicorn reviewconsole.wsgi; `runserver` serves it too)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewconsole.settings")

application = get_wsgi_application()

# Imported once Django is set up: it loads the Celery app and its tasks.
from reviewconsole.embedded_beat import embedded_beat_start  # noqa: E402

# Without a broker nothing else runs beat's schedule (webhook retries, sweeps): this process does.
embedded_beat_start()
