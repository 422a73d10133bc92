"""/healthz tells a load balancer whether the database and the broker answer, and anyone no more than that."""

from __future__ import annotations

import pytest
import redis
from django.db import OperationalError, connection

from reviewconsole.accounts.roles import Role
from tests.personas import _user_with

# All anyone is told: up or down, and nothing of what runs behind.
UP, DOWN = {"status": "ok"}, {"status": "down"}


def _tells_nothing_of_the_stack(response) -> bool:
    body = response.content.decode().lower()
    return not any(word in body for word in ("postgres", "sqlite", "redis", "in-process", "vendor", "broker"))


def test_up_with_the_embedded_broker(client, db):
    response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, UP)
    assert _tells_nothing_of_the_stack(response)


def test_up_with_the_real_redis_broker_and_the_same_for_a_team_admin(client, db, settings, redis_url):
    settings.REDIS_URL = redis_url
    response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, UP)
    assert _tells_nothing_of_the_stack(response)
    client.force_login(_user_with("tina", Role.TEAM_ADMIN))
    assert client.get("/healthz").json() == UP


def test_probes_reuse_one_redis_connection_and_survive_its_loss(client, db, settings, redis_url):
    # A load balancer probes every few seconds: each probe must not cost Redis a new connection.
    settings.REDIS_URL = redis_url
    watcher = redis.Redis.from_url(redis_url)
    before = watcher.info("stats")["total_connections_received"]
    assert all(client.get("/healthz").status_code == 200 for _ in range(20))
    # Other tests' processes may connect meanwhile; 20 probes opening their own would add 20.
    assert watcher.info("stats")["total_connections_received"] - before <= 3
    # Redis dropping the connection (a restart, an idle timeout) is not an outage.
    probe_connections = [c for c in watcher.client_list() if c["cmd"] == "ping"]
    for probe in probe_connections:
        watcher.client_kill_filter(_id=probe["id"])
    assert client.get("/healthz").status_code == 200
    watcher.close()


def test_503_when_redis_does_not_answer_with_the_part_and_reason_in_the_log_only(client, db, settings, caplog):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    assert (response.status_code, response.json()) == (503, DOWN)
    # The address and the error are for the operator's log, not for whoever asks.
    assert "127.0.0.1" not in response.content.decode() and _tells_nothing_of_the_stack(response)
    assert "ConnectionError" in caplog.text and "healthz: the broker does not answer" in caplog.text


def test_503_when_the_database_does_not_answer_with_the_reason_in_the_log_only(client, db, monkeypatch, caplog):
    def refuse(*args, **kwargs):
        raise OperationalError('connection to server at "10.0.0.5", port 5432 failed: refused')

    with monkeypatch.context() as patch:
        patch.setattr(connection, "cursor", refuse)
        response = client.get("/healthz")
    assert (response.status_code, response.json()) == (503, DOWN)
    assert "10.0.0.5" not in response.content.decode() and _tells_nothing_of_the_stack(response)
    assert "10.0.0.5" in caplog.text and "healthz: the database does not answer" in caplog.text


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_only_get_is_allowed(client, db, method):
    assert getattr(client, method)("/healthz").status_code == 405


def test_plain_http_probe_is_not_redirected_to_https(client, db, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/login/").status_code == 301
