"""`manage.py demo` fills the queue with cases the engine really produced."""

from __future__ import annotations

from django.core.management import call_command

from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.review.models import Escalation


def test_demo_cases_go_through_the_engine_and_fill_the_queue(
    db, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.DEMO = True
    settings.VAR_DIR = tmp_path
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo")  # twice is safe: the same cases, not new ones

    cases = Case.objects.all()
    assert cases.count() >= 8
    assert len({case.external_id for case in cases}) == cases.count()
    assert not cases.filter(status__in=[CaseStatus.QUEUED, CaseStatus.RUNNING, CaseStatus.FAILED]).exists()
    assert Escalation.objects.filter(is_spot_check=False).count() >= 4
    assert all(case.candidates.exists() for case in cases)
