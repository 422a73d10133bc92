"""Settings from the environment: bad values are refused with a message naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from reviewconsole import env
from tests.reviewconsole.subprocesses import _TEST_RUN_VARIABLES, REPO, run_manage


@pytest.mark.parametrize(
    ("reader", "value", "message"),
    [
        (lambda: env.env_bool("X_FLAG"), "maybe", "X_FLAG must be a boolean"),
        (lambda: env.env_int("X_COUNT", 1), "ten", "X_COUNT must be a whole number"),
        (lambda: env.env_int("X_COUNT", 1, minimum=2), "1", "X_COUNT must be at least 2"),
        (lambda: env.env_float("X_RATE", 1.0, maximum=2.0), "3.5", "X_RATE must be at most 2.0"),
        (lambda: env.env_url("X_URL", schemes=("redis",)), "http://h/0", "X_URL must be a URL starting with redis"),
        (lambda: env.env_choice("X_LEVEL", "INFO", choices=("INFO",)), "loud", "X_LEVEL must be one of"),
        (lambda: env.env_str("X_NAME", required=True), "", "X_NAME must be set"),
        (lambda: env.env_networks("X_NETS"), "10.0.0.0/8,10.0.0.1/8", "X_NETS must be comma-separated networks"),
        (lambda: env.env_networks("X_NETS"), "intranet", "X_NETS must be comma-separated networks"),
    ],
)
def test_bad_values_are_refused_naming_the_variable(monkeypatch, reader, value, message):
    monkeypatch.setenv(_name_in(message), value)
    with pytest.raises(ImproperlyConfigured, match=message):
        reader()


def _name_in(message: str) -> str:
    return message.split()[0]


def test_good_values_are_parsed(monkeypatch):
    monkeypatch.setenv("X_FLAG", "Yes")
    monkeypatch.setenv("X_COUNT", " 12 ")
    monkeypatch.setenv("X_HOSTS", "a.example, b.example,,")
    monkeypatch.setenv("X_LEVEL", "debug")
    assert env.env_bool("X_FLAG") is True
    assert env.env_int("X_COUNT", 1, minimum=1) == 12
    assert env.env_list("X_HOSTS", []) == ["a.example", "b.example"]
    assert env.env_choice("X_LEVEL", "INFO", choices=("INFO", "DEBUG")) == "DEBUG"
    assert env.env_bool("X_UNSET_FLAG", True) is True
    monkeypatch.setenv("X_NETS", "10.0.0.0/8, 127.0.0.1,fd00::/8")
    assert [str(network) for network in env.env_networks("X_NETS")] == ["10.0.0.0/8", "127.0.0.1/32", "fd00::/8"]
    assert env.env_networks("X_UNSET_NETS") == []
    assert "X_FLAG" in env.READ_VARIABLES


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        ({}, "configuration error: SECRET_KEY must be set"),
        ({"SECRET_KEY": "k" * 50}, "configuration error: ALLOWED_HOSTS must be set"),
        ({"DEMO": "1", "DATABASE_URL": "mysql://db/x"}, "DATABASE_URL must be a URL starting with postgres://"),
        ({"DEMO": "1", "REDIS_URL": "redis://"}, "REDIS_URL must name a host"),
        ({"DEMO": "1", "LLM_BASE_URL": "http://127.0.0.1:9/v1"}, "LLM_MODEL must be set"),
        ({"DEMO": "1", "DEBUG": "sometimes"}, "DEBUG must be a boolean"),
        (
            {"DEMO": "1", "CELERY_TASK_SOFT_TIME_LIMIT": "400", "CELERY_TASK_TIME_LIMIT": "300"},
            "CELERY_TASK_SOFT_TIME_LIMIT must be below CELERY_TASK_TIME_LIMIT",
        ),
        ({"DEMO": "1", "AUDIT_EXPORT_TIME_LIMIT": "60"}, "AUDIT_EXPORT_TIME_LIMIT must be at least 300"),
        ({"DEMO": "1", "VERIFICATION_SCORER": "fast"}, "VERIFICATION_SCORER must be one of learned, rules"),
        ({"DEMO": "1", "AUDIT_EXPORT_RETENTION_HOURS": "0"}, "AUDIT_EXPORT_RETENTION_HOURS must be at least 1"),
        ({"DEMO": "1", "WEBHOOK_ALLOWED_NETWORKS": "10.0.0.0/33"},
         "WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR form, like 10.0.0.0/8, got '10.0.0.0/33'"),
        (
            {"DEMO": "1", "AUDIT_EXPORT_TIME_LIMIT": "7200", "CELERY_BROKER_VISIBILITY_TIMEOUT": "3600"},
            "CELERY_BROKER_VISIBILITY_TIMEOUT must be at least 7801",
        ),
    ],
)
def test_manage_py_refuses_a_bad_environment_without_a_traceback(environment, message, tmp_path):
    result = run_manage(["check"], environment, tmp_path)
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_email_is_configured_from_the_environment_and_the_demo_writes_it_to_the_console(tmp_path):
    show = ("from django.conf import settings as s; print(s.EMAIL_BACKEND.rsplit('.', 2)[-2], s.EMAIL_HOST, "
            "s.EMAIL_PORT, s.EMAIL_HOST_USER or '-', s.EMAIL_USE_TLS, s.EMAIL_USE_SSL, s.DEFAULT_FROM_EMAIL)")
    demo = run_manage(["shell", "-c", show], {"DEMO": "1"}, tmp_path)
    assert demo.stdout.strip().splitlines()[-1].split()[0] == "console", demo.stderr
    smtp = run_manage(["shell", "-c", show], {"DEMO": "1", "EMAIL_HOST": "smtp.example.com", "EMAIL_PORT": "465",
                                              "EMAIL_HOST_USER": "console", "EMAIL_USE_SSL": "1",
                                              "EMAIL_FROM": "review@example.com"}, tmp_path)
    assert smtp.stdout.strip().splitlines()[-1] == "smtp smtp.example.com 465 console False True review@example.com"
    both = run_manage(["check"], {"DEMO": "1", "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"}, tmp_path)
    assert both.returncode == 1 and "EMAIL_USE_TLS and EMAIL_USE_SSL: set one of them, not both" in both.stderr


def test_demo_mode_needs_no_configuration_and_debug_stays_off(tmp_path):
    show = "from django.conf import settings; print(settings.DEBUG, settings.DEMO)"
    result = run_manage(["shell", "-c", show], {"DEMO": "1"}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False True"
    assert (tmp_path / "secret_key").exists()


DEPLOYMENT = {"DATABASE_URL": "postgres://app:secret@db.internal:5432/reviewconsole",
              "ALLOWED_HOSTS": "review.example.com,localhost", "REDIS_URL": "redis://redis.internal:6379/0"}


@pytest.mark.parametrize(
    ("environment", "named"),
    [
        ({"DATABASE_URL": DEPLOYMENT["DATABASE_URL"]}, "DATABASE_URL (PostgreSQL)"),
        ({"ALLOWED_HOSTS": DEPLOYMENT["ALLOWED_HOSTS"]}, "ALLOWED_HOSTS (review.example.com)"),
        ({"REDIS_URL": DEPLOYMENT["REDIS_URL"]}, "REDIS_URL"),
        (DEPLOYMENT, "DATABASE_URL (PostgreSQL); ALLOWED_HOSTS (review.example.com); REDIS_URL"),
    ],
)
def test_demo_mode_refuses_to_start_with_a_deployments_settings(environment, named, tmp_path):
    # Nothing is connected to: the settings themselves are refused, before any database or broker is asked.
    result = run_manage(["check"], {"DEMO": "1", **environment}, tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"configuration error: DEMO=1 is for the local demo console, and these are a deployment's settings: "
        f"{named}. Unset DEMO to run with them"
    ]
    # The same settings without DEMO=1 are a deployment's, and start (given its secret key).
    deployment = run_manage(["check"], {**environment, "SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "localhost"}, tmp_path)
    assert "DEMO=1" not in deployment.stderr


def test_the_web_process_refuses_demo_mode_with_a_postgresql_database(tmp_path):
    # What gunicorn imports: a web process with DEMO=1 (insecure cookies, no secret) never serves a deployment.
    script = "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'reviewconsole.settings'; import reviewconsole.wsgi"
    clean = {key: value for key, value in os.environ.items() if key not in _TEST_RUN_VARIABLES}
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                            env={**clean, "VAR_DIR": str(tmp_path), "DEMO": "1",
                                 "DATABASE_URL": DEPLOYMENT["DATABASE_URL"]})
    assert result.returncode != 0
    assert "ImproperlyConfigured: DEMO=1 is for the local demo console" in result.stderr
    assert "DATABASE_URL (PostgreSQL)" in result.stderr


def test_a_missing_scorer_model_stops_start_up_with_one_line_naming_the_file(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    result = run_manage(["check"], {"DEMO": "1", "VERIFICATION_MODEL_DIR": str(models)}, tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"error: scorer model file missing: {models / 'model.int8.onnx'} (set VERIFICATION_SCORER=rules to run "
        "without it)"
    ]
    # Rules-only needs no model file at all.
    rules = run_manage(["check"], {"DEMO": "1", "VERIFICATION_MODEL_DIR": str(models),
                                   "VERIFICATION_SCORER": "rules"}, tmp_path)
    assert rules.returncode == 0, rules.stderr
