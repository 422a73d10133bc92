"""The same external id submitted by several clients at the same instant yields one case."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection
from django.test import Client as HttpClient

from reviewconsole.intake.models import Case, Source
from tests.reviewconsole.api.conftest import case_body

pytestmark = pytest.mark.django_db(transaction=True)


def test_concurrent_submissions_of_one_external_id_make_one_case(api_client):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers; the race needs a database with concurrent transactions")
    threads_count = 6
    barrier = threading.Barrier(threads_count)
    results: list[tuple[int, int]] = []
    lock = threading.Lock()
    body = json.dumps(case_body(external_id="ticket-race"))

    def submit() -> None:
        http = HttpClient()
        try:
            barrier.wait(timeout=10)
            response = http.post("/api/v1/cases", data=body, content_type="application/json", **api_client.auth)
            with lock:
                results.append((response.status_code, response.json()["id"]))
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    statuses = sorted(status for status, _ in results)
    assert statuses == [200] * (threads_count - 1) + [202]
    assert len({case_id for _, case_id in results}) == 1
    assert Case.objects.filter(external_id="ticket-race").count() == 1
    assert Source.objects.filter(case__external_id="ticket-race").count() == 1
