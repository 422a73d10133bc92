"""A console page asked while the database does not answer gets a 503 to retry, not the 500 page."""

from __future__ import annotations

import pytest
from django.db import OperationalError, connection


def _refuse(*args, **kwargs):
    raise OperationalError('connection to server at "10.0.0.5", port 5432 failed: Connection refused')


@pytest.fixture
def signed_in(client, reviewer):
    client.force_login(reviewer)
    client.raise_request_exception = False
    return client


def test_a_console_page_is_a_503_with_retry_after_while_the_database_is_down(signed_in, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(connection, "cursor", _refuse)
        response = signed_in.get("/review/")

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    html = response.content.decode()
    assert "database is not answering" in html and "10.0.0.5" not in html


def test_a_decision_posted_while_the_database_is_down_says_to_check_before_deciding_again(signed_in, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(connection, "cursor", _refuse)
        response = signed_in.post("/review/cases/1/approve", {"candidate_id": "c0", "sha256": "0" * 64})

    assert response.status_code == 503
    assert "see whether your decision was recorded" in response.content.decode()


def test_any_other_failure_is_still_the_500_page(signed_in, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    with monkeypatch.context() as patch:
        patch.setattr(connection, "cursor", broken)
        response = signed_in.get("/review/")

    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()
    assert "Retry-After" not in response
