"""Exports: CSV and JSONL of a range equal the stored events row for row, at any size."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from reviewconsole.audit.leaves import canonical_time, leaf_hash
from reviewconsole.audit.merkle import root_of
from reviewconsole.audit.models import AuditEvent, AuditExport, AuditTreeHead, ExportStatus
from reviewconsole.audit.services import audit_record
from reviewconsole.queues import task_hold
from reviewconsole.support.exports import CSV_COLUMNS
from tests.reviewconsole.audit.test_pages import signed_in
from verification import Case as Submission


def _export(http, **data) -> tuple[object, str]:
    response = http.post(reverse("audit:export_create"), data)
    assert response.status_code == 200, response.content
    return response, b"".join(response.streaming_content).decode()


def _expected(events) -> list[dict]:
    return [
        {
            "id": e.pk, "seq": e.seq, "created_at": canonical_time(e.created_at), "actor": e.actor,
            "action": e.action, "object_type": e.object_type, "object_id": e.object_id, "case_id": e.case_id,
            "payload": e.payload, "leaf_hash": e.leaf_hash,
        }
        for e in events
    ]


def _from_csv(row: dict[str, str]) -> dict:
    """A CSV row typed back: numbers as numbers, the payload parsed, an empty case id as None."""
    numbers = {key: int(row[key]) if row[key] else None for key in ("id", "seq", "case_id")}
    return {**row, **numbers, "payload": json.loads(row["payload"])}


@pytest.mark.django_db
def test_jsonl_and_csv_of_a_time_range_match_the_database_row_for_row(client, support_lead, history):
    signed_in(client, support_lead)
    events = list(AuditEvent.objects.order_by("seq"))
    since, until = events[5].created_at, events[-3].created_at
    in_range = [e for e in events if since <= e.created_at < until]
    assert 10 < len(in_range) < len(events)
    window = {"since": since.isoformat(), "until": until.isoformat()}

    response, jsonl = _export(client, format="jsonl", **window)
    assert response["Content-Type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in jsonl.splitlines()]
    assert lines == _expected(in_range)
    # Each exported row carries what is needed to recompute its leaf hash without the database.
    for line in lines:
        assert leaf_hash(**{k: v for k, v in line.items() if k not in ("id", "seq", "leaf_hash")}) == line["leaf_hash"]

    response, text = _export(client, format="csv", **window)
    assert response["Content-Type"].startswith("text/csv")
    rows = [_from_csv(row) for row in csv.DictReader(io.StringIO(text))]
    assert rows == _expected(in_range)
    assert list(rows[0]) == list(CSV_COLUMNS)


@pytest.mark.django_db
def test_an_export_records_its_filter_and_its_signed_tree_head_and_is_itself_audited(client, support_lead, history):
    signed_in(client, support_lead)
    response, text = _export(client, format="jsonl", client="sales-bot")
    export = AuditExport.objects.get()
    head = AuditTreeHead.objects.get(tree_size=export.tree_size)
    assert head.tree_size == AuditEvent.objects.filter(seq__isnull=False).count() and export.root_hash == head.root_hash
    assert export.filters == {"client": "sales-bot"} and export.status == ExportStatus.STREAMED
    assert response["X-Audit-Tree-Head"] == f"{head.tree_size}:{head.root_hash}"
    lines = [json.loads(line) for line in text.splitlines()]
    assert {line["case_id"] for line in lines} == {history.rejected.pk}
    assert len(lines) == export.rows_total == AuditEvent.objects.filter(case_id=history.rejected.pk).count()

    event = AuditEvent.objects.order_by("-id").first()
    assert (event.action, event.actor, event.seq) == ("export.created", f"user:{support_lead.username}", None)
    assert event.payload["root_hash"] == head.root_hash and event.payload["filters"] == {"client": "sales-bot"}
    assert event.payload["tree_size"] == head.tree_size


@pytest.mark.django_db
def test_an_export_seals_first_so_it_covers_every_event_committed_before_it(client, support_lead, history):
    audit_record(actor="engine", action="case.received", object_type="case", object_id=1, payload={"late": True})
    signed_in(client, support_lead)

    _, text = _export(client, format="jsonl")

    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[-1]["payload"] == {"late": True} and [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    # Given every row of a whole-log export, anyone recomputes the signed head's root from the file alone.
    export = AuditExport.objects.get()
    assert root_of(bytes.fromhex(line["leaf_hash"]) for line in lines).hex() == export.root_hash
    assert export.tree_size == len(lines)


@pytest.mark.django_db
def test_a_bad_export_request_says_which_field(client, support_lead):
    signed_in(client, support_lead)
    assert b"format" in client.post(reverse("audit:export_create"), {"format": "xml"}).content
    response = client.post(reverse("audit:export_create"), {"format": "csv", "case": "abc"})
    assert response.status_code == 400 and b"case" in response.content


@pytest.mark.django_db
def test_a_large_export_runs_as_a_task_with_progress_and_a_download(
    client, support_lead, history, settings, django_capture_on_commit_callbacks
):
    settings.AUDIT_EXPORT_STREAM_MAX_ROWS = 1000
    signed_in(client, support_lead)
    _, streamed = _export(client, format="csv", client="support-bot")  # the reference, streamed

    settings.AUDIT_EXPORT_STREAM_MAX_ROWS = 0
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(reverse("audit:export_create"), {"format": "csv", "client": "support-bot"})
    export = AuditExport.objects.latest("pk")
    assert response.status_code == 302 and response["Location"] == reverse("audit:export", args=[export.pk])
    page = client.get(response["Location"])
    assert export.status == ExportStatus.QUEUED and b'hx-trigger="every 1s"' in page.content
    assert client.get(reverse("audit:export_download", args=[export.pk])).status_code == 404

    for callback in queued:  # the worker's turn (tasks run in-process without a broker)
        callback()
    export.refresh_from_db()
    assert export.status == ExportStatus.DONE and export.rows_done == export.rows_total > 0
    fragment = client.get(reverse("audit:export", args=[export.pk]), HTTP_HX_REQUEST="true")
    assert b"<html" not in fragment.content and b"every 1s" not in fragment.content
    assert b"Download" in fragment.content
    download = client.get(reverse("audit:export_download", args=[export.pk]))
    body = b"".join(download.streaming_content).decode()
    # Same head, same rows: only the export.created event of the first export lies between them.
    assert body.splitlines()[: len(streamed.splitlines())] == streamed.splitlines()


@pytest.mark.django_db
def test_decisions_export_as_regression_fixtures_in_the_case_contract(client, support_lead, history):
    signed_in(client, support_lead)
    _, text = _export(client, format="fixtures")
    fixtures = {json.loads(line)["provenance"]["case_id"]: json.loads(line) for line in text.splitlines()}
    assert set(fixtures) == {history.approved.pk, history.rejected.pk}

    approved = fixtures[history.approved.pk]
    case = Submission.model_validate(approved["case"])
    assert case.external_id == "refund-approved" and case.sources[0].id == "refund-policy"
    final = history.approved.candidates.order_by("-position").first()
    assert approved["expected"]["terminal"] == "PERMIT" and approved["expected"]["answer"] == final.text
    assert approved["expected"]["claims"] == [
        {"id": c.claim_id, "text": c.text, "start": c.start, "end": c.end, "state": c.state, "label": None,
         "labels": [], "error_tags": []}
        for c in final.claims.all()
    ]
    assert approved["expected"]["error_tags"] == []  # the answer's own: nobody tagged it
    rejected = fixtures[history.rejected.pk]
    Submission.model_validate(rejected["case"])
    rejected_answer = history.rejected.candidates.order_by("-position").first()
    # Nothing released; the rejected answer and its claims are there, so the rejection can become a test.
    assert {key: rejected["expected"][key] for key in ("terminal", "answer", "corrected", "rejected_answer")} == {
        "terminal": "REJECT", "answer": None, "corrected": False, "rejected_answer": rejected_answer.text
    }
    assert [claim["id"] for claim in rejected["expected"]["claims"]] == [
        c.claim_id for c in rejected_answer.claims.all()
    ]
    assert rejected["provenance"]["reason_code"] == "WRONG_FACTS"


@pytest.mark.django_db
def test_an_export_whose_worker_died_is_taken_again_but_a_live_one_is_not(support_lead, settings):
    from datetime import timedelta

    from django.utils import timezone

    from reviewconsole.audit.services import export_claim

    now = timezone.now()
    export = AuditExport.objects.create(requested_by=support_lead, format="csv", status=ExportStatus.QUEUED)
    assert export_claim(export_id=export.pk, now=now)
    assert not export_claim(export_id=export.pk, now=now + timedelta(seconds=10))
    # An export runs under its own, longer limit: past the default one it may still be writing.
    settings.AUDIT_EXPORT_TIME_LIMIT = 3600
    assert not export_claim(export_id=export.pk, now=now + task_hold() + timedelta(seconds=1))
    assert export_claim(export_id=export.pk, now=now + task_hold(3600) + timedelta(seconds=1))


def test_the_export_task_has_its_own_time_limits():
    from django.conf import settings as configured

    from reviewconsole.support.tasks import run_export

    assert run_export.time_limit == configured.AUDIT_EXPORT_TIME_LIMIT > configured.CELERY_TASK_TIME_LIMIT
    assert run_export.soft_time_limit == configured.AUDIT_EXPORT_TIME_LIMIT - 60
    # Redis must not hand a running export to a second worker.
    assert configured.CELERY_BROKER_VISIBILITY_TIMEOUT > configured.AUDIT_EXPORT_TIME_LIMIT


@pytest.mark.django_db
def test_an_approved_reviewer_edit_exports_as_a_corrected_fixture(client, support_lead, reviewer):
    from django.utils import timezone

    from reviewconsole.intake.services import client_create
    from reviewconsole.review import services
    from reviewconsole.review.services import candidate_edit, decision_approve
    from reviewconsole.review.tasks import verify_edit
    from tests.reviewconsole.audit.conftest import run_case
    from tests.reviewconsole.review.conftest import refund_case
    from tests.reviewconsole.review.test_decisions import FIXED_ANSWER

    case = run_case(client_create(name="support-bot")[0], refund_case(external_id="refund-edited"))
    escalation = services.escalation_claim_next(reviewer=reviewer, now=timezone.now())
    current = case.candidates.order_by("-position").first()
    edit = candidate_edit(escalation_id=escalation.pk, reviewer=reviewer, candidate_id=current.candidate_id,
                          sha256=current.sha256, text=FIXED_ANSWER, now=timezone.now())
    verify_edit.apply(args=(edit.pk,))
    decision_approve(escalation_id=escalation.pk, reviewer=reviewer, candidate_id=edit.candidate_id,
                     sha256=edit.sha256, now=timezone.now())

    _, text = _export(signed_in(client, support_lead), format="fixtures")

    (fixture,) = [json.loads(line) for line in text.splitlines()]
    assert edit.origin == "REVIEWER"
    assert fixture["expected"]["corrected"] is True and fixture["expected"]["answer"] == FIXED_ANSWER
