"""Demo cases for a local console, submitted through the same path as a client's (`manage.py demo`)."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings

from reviewconsole.intake.models import Client
from reviewconsole.intake.services import ExternalIdTaken, case_submit
from verification import Case

DEMO_CLIENT = "demo-assistant"
DEMO_CASE_FILES = (
    Path(settings.BASE_DIR) / "verification" / "demo_cases.json",
    Path(__file__).resolve().parent / "fixtures" / "demo_cases.json",
    Path(__file__).resolve().parent / "fixtures" / "demo_cases_languages.json",
)


def load_demo_cases() -> str:
    """Submit every demo case once, as the demo client `manage.py demo` made; the engine runs each (in-process
    without a broker)."""
    client = Client.objects.get(name=DEMO_CLIENT)
    submitted = 0
    for path in DEMO_CASE_FILES:
        for raw in json.loads(path.read_text()):
            try:
                _, created = case_submit(client=client, submission=Case.model_validate(raw))
            except ExternalIdTaken:
                continue  # a demo case as an earlier version of the demo wrote it: the stored one stays
            submitted += created
    total = client.cases.count()
    return f"{submitted} demo case(s) submitted, {total} in all"
