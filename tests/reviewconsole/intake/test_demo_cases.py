"""`manage.py demo` fills the queue with cases the engine really produced."""

from __future__ import annotations

import json

from django.core.management import call_command

from reviewconsole.intake.demo import DEMO_CASE_FILES, DEMO_CLIENT
from reviewconsole.intake.models import Case, CaseStatus, Client
from reviewconsole.intake.services import case_submit
from reviewconsole.policy.models import NamedConstitution
from reviewconsole.review.models import Escalation
from verification import Case as Submission


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


def test_demo_cases_pin_the_built_in_constitution_they_name(db, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.DEMO = True
    settings.VAR_DIR = tmp_path
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo")

    dosage = Case.objects.select_related("constitution_pin__document").get(external_id="demo-dosage")
    assert dosage.constitution_name == dosage.constitution_pin.document.name == "medical-information"
    assert dosage.run_record["constitution"].startswith("medical-information@")
    used = set(Case.objects.values_list("constitution_pin__document__name", flat=True))
    assert used == {"default", "customer-support", "medical-information"}
    # Every kind of doubt is still in the queue.
    reasons = set(Escalation.objects.filter(is_spot_check=False).values_list("reason", flat=True))
    assert {"CRITICAL_CLAIM", "CONFLICTING_EVIDENCE", "BELOW_RELEASE_THRESHOLD"} <= reasons


def test_the_demo_shows_guidelines_and_failed_repairs(db, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.DEMO = True
    settings.VAR_DIR = tmp_path
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo")

    used = set(Case.objects.values_list("constitution_pin__document__name", flat=True))
    documents = NamedConstitution.objects.filter(name__in=used)
    assert len(documents) == 3 and all(document.guidelines.strip() for document in documents)
    assert all(document.guidelines_updated_by.username == "policy" for document in documents)
    failed = Case.objects.filter(repairs__outcome="REJECTED").distinct()
    assert failed.count() >= 3, [case.external_id for case in failed]
    assert Escalation.objects.filter(case__in=failed).count() == failed.count()  # each one a reviewer sees

    # Guidelines a policy admin wrote are theirs: a second run keeps them.
    NamedConstitution.objects.filter(name="default").update(guidelines="Our own.")
    call_command("demo")
    assert NamedConstitution.objects.get(name="default").guidelines == "Our own."


def test_the_demo_runs_again_over_cases_an_earlier_demo_stored_differently(
    db, settings, tmp_path, django_capture_on_commit_callbacks
):
    # An older demo stored "demo-dosage" under the default constitution; running today's demo keeps it.
    settings.DEMO = True
    settings.VAR_DIR = tmp_path
    settings.DEMO_CASE_LOADERS = []
    call_command("demo")  # the older demo's accounts and client, without its cases
    client = Client.objects.get(name=DEMO_CLIENT)
    raw = next(raw for raw in json.loads(DEMO_CASE_FILES[0].read_text()) if raw["external_id"] == "demo-dosage")
    older, _ = case_submit(client=client, submission=Submission.model_validate({**raw, "constitution": None}))

    settings.DEMO_CASE_LOADERS = ["reviewconsole.intake.demo.load_demo_cases"]
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo")

    assert Case.objects.get(external_id="demo-dosage") == older
    assert Case.objects.get(pk=older.pk).constitution_name == ""
    demo_cases = sum(len(json.loads(path.read_text())) for path in DEMO_CASE_FILES)
    assert Case.objects.filter(client=client).count() == demo_cases
