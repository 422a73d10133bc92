"""A body sent without Content-Length (Transfer-Encoding: chunked, as HTTP client libraries send a stream) is
read whole by the server the console runs under (gunicorn), and by the API as JSON like any other."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from reviewconsole.intake.models import Case
from tests.reviewconsole.api.conftest import case_body
from tests.reviewconsole.conftest import _test_database_url
from tests.reviewconsole.subprocesses import _TEST_RUN_VARIABLES, REPO

pytestmark = pytest.mark.django_db(transaction=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def gunicorn(tmp_path, settings) -> Iterator[int]:
    """gunicorn serving the console on the test database, as a deployment serves it; its port."""
    database_url = _test_database_url()
    if database_url is None:
        pytest.skip("the server must share the test's database (PostgreSQL)")
    settings.API_MAX_BODY_BYTES = 20_000
    port = _free_port()
    clean = {key: value for key, value in os.environ.items() if key not in _TEST_RUN_VARIABLES}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "reviewconsole.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        env={**clean, "DJANGO_SETTINGS_MODULE": "tests.settings", "DATABASE_URL": database_url,
             "PYTHONPATH": str(REPO), "VAR_DIR": str(tmp_path), "API_MAX_BODY_BYTES": "20000"},
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else "gunicorn exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start within 60 s"
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def _post_chunked(port: int, token: str, body: bytes) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        # An iterable body is sent chunked, without Content-Length, as requests and httpx send a generator.
        pieces = (body[start:start + 1000] for start in range(0, len(body), 1000))
        connection.request("POST", "/api/v1/cases", body=pieces, encode_chunked=True,
                           headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                                    "Transfer-Encoding": "chunked"})
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def test_a_chunked_case_is_read_as_json_and_stored(gunicorn, api_client):
    status, answer = _post_chunked(gunicorn, api_client.token, json.dumps(case_body(external_id="streamed")).encode())

    assert status == 202, answer
    assert Case.objects.get(pk=answer["id"]).external_id == "streamed"


def test_a_chunked_body_past_the_size_limit_is_refused_unread_past_it(gunicorn, api_client):
    large = case_body(external_id="large")
    large["sources"][0]["text"] += " Refunds are handled by the billing team." * 600

    status, answer = _post_chunked(gunicorn, api_client.token, json.dumps(large).encode())

    assert status == 413, answer
    assert answer["errors"] == [{"field": "body", "message": "the body must be at most 20000 bytes"}]
    assert not Case.objects.exists()
