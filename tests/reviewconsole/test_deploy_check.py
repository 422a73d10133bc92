"""`manage.py check --deploy` with a production-like environment.

The one warning left (W004, HSTS) is the operator's call and is justified in docs/deployment.md.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.reviewconsole.subprocesses import run_manage

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "SECRET_KEY": "q8V3lZk1s0Jm9yFh2Xc7Nw4Rb6Tg5Ua1Pe8Do3Li7Ks2Jf9Hd4Ga6Sz1Xc5Vb8Nm0",
    "ALLOWED_HOSTS": "review.example.com",
    "DATABASE_URL": "postgres://console@db.internal:5432/reviewconsole",
    "REDIS_URL": "redis://redis.internal:6379/0",
}


def _check_deploy(extra: dict[str, str], tmp_path) -> subprocess.CompletedProcess:
    return run_manage(["check", "--deploy", "--fail-level", "WARNING"], {**PRODUCTION, **extra}, tmp_path)


def test_production_defaults_leave_only_the_hsts_decision_to_the_operator(tmp_path):
    result = _check_deploy({}, tmp_path)
    assert "security.W004" in result.stderr
    assert result.stderr.count("(security.") == 1, result.stderr


def test_with_hsts_configured_there_is_nothing_to_warn_about(tmp_path):
    result = _check_deploy(
        {"SECURE_HSTS_SECONDS": "31536000", "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1", "SECURE_HSTS_PRELOAD": "1"},
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_the_env_example_is_secure_as_copied(tmp_path):
    """`cp .env.example .env` (the README's first step for docker compose) gives an HTTPS-only console."""
    example = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    values = dict(line.split("=", 1) for line in example if line and not line.startswith("#"))
    prefixes = ("SECURE_", "SESSION_", "CSRF_COOKIE")
    security = {name: value for name, value in values.items() if name.startswith(prefixes)}
    assert security["SECURE_SSL_REDIRECT"] == security["SESSION_COOKIE_SECURE"] == security["CSRF_COOKIE_SECURE"] == "1"
    result = _check_deploy(security, tmp_path)
    assert "security.W004" in result.stderr
    assert result.stderr.count("(security.") == 1, result.stderr
