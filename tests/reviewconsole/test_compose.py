"""docker-compose.yml and .env.example agree with what the settings actually read."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlparse

import psycopg
import pytest
import yaml

from reviewconsole.env import READ_VARIABLES
from reviewconsole.queues import WorkerPool, pool_queues
from tests.reviewconsole.subprocesses import run_manage

REPO = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "worker", "webhooks", "maintenance", "training", "beat", "relay")
# The service running each worker pool: `worker` verifies, so `docker compose up --scale worker=N` adds verification.
POOL_SERVICES = {WorkerPool.VERIFY: "worker", WorkerPool.WEBHOOKS: "webhooks", WorkerPool.MAINTENANCE: "maintenance",
                 WorkerPool.TRAIN: "training"}
# Read by the compose file itself (interpolation) or by the PostgreSQL image and its init script, never by
# the console.
COMPOSE_ONLY = {"POSTGRES_PASSWORD", "POSTGRES_DB", "POSTGRES_USER", "POSTGRES_OWNER_PASSWORD", "POSTGRES_APP_PASSWORD"}
INIT_SCRIPT = REPO / "deploy" / "postgres-init.sql"
OWNER, RUNTIME = "reviewconsole_owner", "reviewconsole_app"


def _compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_every_service_is_there_with_a_health_check():
    services = _compose()["services"]
    assert set(services) == {"db", "redis", *APP_SERVICES}
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"


def test_app_services_wait_for_healthy_database_and_broker_and_read_env_file():
    services = _compose()["services"]
    for name in APP_SERVICES:
        service = services[name]
        assert service["env_file"] == ".env", name
        needs = {"db": {"condition": "service_healthy"}, "redis": {"condition": "service_healthy"}}
        if name != "web":
            # Migrations (and the runtime role's grants) come from web's start: the others wait for it.
            needs["web"] = {"condition": "service_healthy"}
        assert service["depends_on"] == needs, name


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


def test_each_worker_pool_runs_in_a_service_of_its_own_on_its_own_queues():
    services = _compose()["services"]
    for pool, name in POOL_SERVICES.items():
        command = services[name]["command"]
        assert command[:3] == ["celery", "-A", "reviewconsole"] and command[3] == "worker", name
        assert command[command.index("--queues") + 1] == pool_queues(pool), name


def _url(value: str):
    """A URL of the compose file as docker compose passes it on: each ${VARIABLE:?...} replaced by a value."""
    return urlparse(re.sub(r"\$\{[A-Z_][A-Z0-9_]*[^}]*\}", "secret", value))


def test_the_console_runs_as_the_runtime_role_and_only_web_migrates_as_the_owner():
    services = _compose()["services"]
    for name in APP_SERVICES:
        assert _url(services[name]["environment"]["DATABASE_URL"]).username == RUNTIME, name
    assert [name for name in APP_SERVICES if "MIGRATION_DATABASE_URL" in services[name]["environment"]] == ["web"]
    web = services["web"]["environment"]
    owner, runtime = _url(web["MIGRATION_DATABASE_URL"]), _url(web["DATABASE_URL"])
    assert owner.username == OWNER
    assert (owner.hostname, owner.port, owner.path) == (runtime.hostname, runtime.port, runtime.path)
    script = services["web"]["command"][-1]
    migrate = script.index("DATABASE_ROLE=owner python manage.py migrate")
    assert migrate < script.index("unset MIGRATION_DATABASE_URL") < script.index("exec gunicorn")


def test_the_database_container_makes_both_roles_with_the_passwords_from_env():
    db = _compose()["services"]["db"]
    assert f"./{INIT_SCRIPT.relative_to(REPO)}:/docker-entrypoint-initdb.d/10-roles.sql:ro" in db["volumes"]
    script = INIT_SCRIPT.read_text()
    for role, password in ((OWNER, "POSTGRES_OWNER_PASSWORD"), (RUNTIME, "POSTGRES_APP_PASSWORD")):
        assert password in db["environment"] and f"${{{password}:?" in db["environment"][password]
        assert f"\\getenv {password.lower().removeprefix('postgres_')} {password}" in script
        assert f"SELECT 'CREATE ROLE {role}'" in script


def test_the_heads_file_is_on_a_named_volume_that_every_sealer_shares():
    compose = _compose()
    mounted = set()
    for name in ("web", "maintenance"):  # both seal: the periodic task in a worker, exports in web
        service = compose["services"][name]
        heads = service["environment"]["AUDIT_HEADS_FILE"]
        volume, folder = next(
            mount.split(":")[:2] for mount in service["volumes"] if heads.startswith(mount.split(":")[1] + "/")
        )
        assert volume in compose["volumes"], f"{name} keeps {heads} in the container, lost when it is recreated"
        mounted.add((volume, folder, heads))
    assert len(mounted) == 1


def _psql_15() -> str:
    psql = shutil.which("psql")
    if psql is None:
        pytest.skip("psql is not installed")
    version = subprocess.run([psql, "--version"], capture_output=True, text=True, check=True).stdout
    if int(re.search(r"(\d+)(\.\d+)*", version).group(1)) < 15:
        pytest.skip(f"the init script needs psql 15 or later (\\getenv), found {version.strip()}")
    return psql


def test_the_init_script_and_two_urls_give_a_console_that_cannot_rewrite_its_log(tmp_path):
    """What `docker compose up` does on a new volume, on the test run's PostgreSQL: the init script in a new
    database (roles renamed, since roles belong to the whole server), then migrate and run as the two roles."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip("needs PostgreSQL: set DATABASE_URL to a PostgreSQL database")
    psql = _psql_15()
    server = urlparse(url)
    suffix = secrets.token_hex(4)
    owner, runtime, database = f"rc_owner_{suffix}", f"rc_app_{suffix}", f"rc_roles_{suffix}"
    passwords = {name: secrets.token_urlsafe(16) for name in ("POSTGRES_OWNER_PASSWORD", "POSTGRES_APP_PASSWORD")}
    host, port = server.hostname, str(server.port or 5432)
    runtime_url = f"postgres://{runtime}:{passwords['POSTGRES_APP_PASSWORD']}@{host}:{port}/{database}"
    owner_url = f"postgres://{owner}:{passwords['POSTGRES_OWNER_PASSWORD']}@{host}:{port}/{database}"
    admin = psycopg.connect(host=host, port=port, user=server.username, password=server.password or "",
                            dbname=server.path.lstrip("/") or "postgres", autocommit=True)
    admin.execute(f"CREATE DATABASE {database}")
    try:
        script = tmp_path / "roles.sql"
        script.write_text(INIT_SCRIPT.read_text().replace(OWNER, owner).replace(RUNTIME, runtime))
        init = subprocess.run(
            [psql, "-v", "ON_ERROR_STOP=1", "--no-psqlrc", "--no-password", "-h", host, "-p", port,
             "-U", server.username or "postgres", "-d", database, "-f", str(script)],
            env={**os.environ, **passwords, "PGPASSWORD": server.password or ""}, capture_output=True, text=True,
        )
        assert init.returncode == 0, init.stderr
        environment = {"SECRET_KEY": "x" * 50, "ALLOWED_HOSTS": "localhost", "DATABASE_URL": runtime_url,
                       "MIGRATION_DATABASE_URL": owner_url}

        as_runtime = run_manage(["migrate", "--no-input"], environment, tmp_path)
        as_owner = run_manage(["migrate", "--no-input"], {**environment, "DATABASE_ROLE": "owner"}, tmp_path)
        sealed = run_manage(["audit_seal"], environment, tmp_path)
        verified = run_manage(["audit_verify"], environment, tmp_path)

        assert as_runtime.returncode != 0 and "Run `DATABASE_ROLE=owner manage.py migrate`" in as_runtime.stderr
        assert as_owner.returncode == 0, as_owner.stderr
        assert f"Granted {runtime} (DATABASE_URL) the rows it needs" in as_owner.stdout
        assert sealed.returncode == 0 and verified.returncode == 0, sealed.stderr + verified.stderr
        assert "audit log intact" in verified.stdout
        with psycopg.connect(runtime_url, autocommit=True) as console:
            owners = console.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'").fetchall()
            refusals = []
            for statement in ("ALTER TABLE audit_auditevent DISABLE TRIGGER USER", "TRUNCATE audit_auditevent",
                              "DROP TABLE audit_audittreehead", "CREATE TABLE elsewhere (id int)"):
                try:
                    console.execute(statement)
                except psycopg.errors.InsufficientPrivilege as error:
                    refusals.append(str(error).splitlines()[0])
        assert owners == [(owner,)]
        assert refusals == [
            "must be owner of table audit_auditevent", "permission denied for table audit_auditevent",
            "must be owner of table audit_audittreehead", "permission denied for schema public",
        ]
    finally:
        admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        admin.execute(f"DROP ROLE IF EXISTS {owner}")
        admin.execute(f"DROP ROLE IF EXISTS {runtime}")
        admin.close()


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        ({"DATABASE_ROLE": "owner"}, "DATABASE_ROLE=owner needs MIGRATION_DATABASE_URL, the role that owns the tables"),
        ({"MIGRATION_DATABASE_URL": "postgres://owner@db.internal:5432/elsewhere"},
         "MIGRATION_DATABASE_URL must name the database DATABASE_URL names (host, port and name)"),
        ({"MIGRATION_DATABASE_URL": "postgres://console@db.internal/reviewconsole"},
         "MIGRATION_DATABASE_URL must name another role than DATABASE_URL: the tables' owner"),
        ({"DATABASE_URL": "sqlite:////tmp/console.sqlite3", "MIGRATION_DATABASE_URL": "postgres://owner@db.internal/x"},
         "MIGRATION_DATABASE_URL is set: DATABASE_URL must name the PostgreSQL role the console runs as"),
    ],
)
def test_two_urls_that_are_not_two_roles_of_one_database_stop_the_start(tmp_path, environment, message):
    production = {"SECRET_KEY": "x" * 50, "ALLOWED_HOSTS": "localhost",
                  "DATABASE_URL": "postgres://console@db.internal:5432/reviewconsole"}
    result = run_manage(["check"], {**production, **environment}, tmp_path)
    assert result.returncode != 0
    assert f"configuration error: {message}" in result.stderr
