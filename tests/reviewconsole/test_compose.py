"""docker-compose.yml and .env.example agree with what the settings actually read."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from reviewconsole.env import READ_VARIABLES
from reviewconsole.queues import TaskQueue

REPO = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "worker", "beat", "relay")
# Read by the compose file itself (interpolation) or by the PostgreSQL image, never by the console.
COMPOSE_ONLY = {"POSTGRES_PASSWORD", "POSTGRES_DB", "POSTGRES_USER"}


def _compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_every_service_is_there_with_a_health_check():
    services = _compose()["services"]
    assert set(services) == {"db", "redis", "web", "worker", "beat", "relay"}
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"


def test_app_services_wait_for_healthy_database_and_broker_and_read_env_file():
    services = _compose()["services"]
    for name in APP_SERVICES:
        service = services[name]
        assert service["env_file"] == ".env", name
        assert service["depends_on"] == {
            "db": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }, name


def test_redis_persists_queued_work():
    redis = _compose()["services"]["redis"]
    assert "--appendonly" in redis["command"] and redis["command"][redis["command"].index("--appendonly") + 1] == "yes"
    assert any(volume.endswith(":/data") for volume in redis["volumes"])


def test_app_service_variables_are_all_read_by_the_settings():
    services = _compose()["services"]
    for name in APP_SERVICES:
        unknown = set(services[name]["environment"]) - READ_VARIABLES
        assert not unknown, f"{name} sets variables the settings never read: {sorted(unknown)}"
    # The settings must actually switch to the stack the compose file describes.
    assert {"DATABASE_URL", "REDIS_URL"} <= set(services["web"]["environment"])


def test_interpolated_variables_are_known():
    text = (REPO / "docker-compose.yml").read_text()
    names = set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", text))
    assert names <= READ_VARIABLES | COMPOSE_ONLY, sorted(names - READ_VARIABLES - COMPOSE_ONLY)


def test_env_example_names_only_variables_that_are_read():
    names = {
        line.split("=", 1)[0].strip()
        for line in (REPO / ".env.example").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    }
    unknown = names - READ_VARIABLES - COMPOSE_ONLY
    assert not unknown, f".env.example names variables nothing reads: {sorted(unknown)}"
    assert {"SECRET_KEY", "ALLOWED_HOSTS", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL"} <= names


def test_worker_consumes_every_queue():
    command = _compose()["services"]["worker"]["command"]
    queues = command[command.index("--queues") + 1].split(",")
    assert sorted(queues) == sorted(queue.value for queue in TaskQueue)
