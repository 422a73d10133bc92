"""A newcomer's first run: the README's commands (and docs/engine.md's) work as written after `make demo`, whose
output is clean.

Each test runs manage.py (or the engine's CLI) in a child process over a demo-like checkout: its own
VAR_DIR with a SQLite database migrated as `make demo` migrates it (DEMO=1), and none of the test
run's own variables (SECRET_KEY, DATABASE_URL, ...).
"""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reviewconsole.subprocesses import REPO, run_manage

README = (REPO / "README.md").read_text(encoding="utf-8")
ENGINE_DOC = (REPO / "docs" / "engine.md").read_text(encoding="utf-8")  # the engine's command line and data sets


def _readme_command(fragment: str, text: str = README) -> tuple[dict[str, str], list[str]]:
    """The README's (or a docs page's `text`) shell command containing `fragment`: its VAR=value prefixes, and
    the command."""
    shell_blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    lines = [
        line for block in shell_blocks for line in block.splitlines()
        if fragment in line and not line.lstrip().startswith("#")
    ]
    assert lines, f"no shell block shows a command with {fragment!r}"
    words = shlex.split(lines[0], comments=True)
    environment = {}
    while "=" in words[0] and not words[0].startswith(("-", ".", "/")):
        name, _, value = words.pop(0).partition("=")
        environment[name] = value
    assert words[0] == ".venv/bin/python", words
    return environment, words[1:]


@pytest.fixture(scope="module")
def demo_checkout(tmp_path_factory) -> Path:
    """A VAR_DIR migrated as `make demo` does: `DEMO=1 manage.py migrate --no-input`."""
    var_dir = tmp_path_factory.mktemp("demo-var")
    result = run_manage(["migrate", "--no-input", "-v0"], {"DEMO": "1"}, var_dir)
    assert result.returncode == 0, result.stderr
    return var_dir


def _run_readme_manage(fragment: str, var_dir: Path) -> subprocess.CompletedProcess:
    environment, command = _readme_command(fragment)
    assert command[0] == "manage.py", command
    return run_manage(command[1:], environment, var_dir)


def test_the_readmes_create_client_and_rotate_token_work_as_written_after_make_demo(demo_checkout):
    created = _run_readme_manage("manage.py create_client", demo_checkout)

    assert created.returncode == 0, created.stderr
    assert "Created client 'support-bot'" in created.stdout
    token = re.search(r"API token \(shown once, keep it secret\): (rc_\S+)", created.stdout).group(1)
    assert "Webhook signing secret: whsec_" in created.stdout
    with sqlite3.connect(demo_checkout / "reviewconsole.sqlite3") as database:
        rows = database.execute("SELECT name, webhook_url, token_prefix FROM intake_client").fetchall()
    assert rows == [("support-bot", "https://bot.example.com/hooks/review", token[:12])]

    rotated = _run_readme_manage("manage.py rotate_token", demo_checkout)

    assert rotated.returncode == 0, rotated.stderr
    assert "New API token for 'support-bot' (shown once): rc_" in rotated.stdout


def test_without_demo_the_secret_key_refusal_says_how_to_reach_the_demo(demo_checkout):
    result = run_manage(["create_client", "other-bot"], {}, demo_checkout)

    assert result.returncode == 1
    assert result.stderr.strip() == (
        "configuration error: SECRET_KEY must be set (or DEMO=1 on the local demo console)"
    )


def test_the_demo_console_logs_a_refused_request_on_one_line_and_warns_of_nothing(demo_checkout):
    # A signed-in user without the support-lead role opens the audit pages: 403, as in the demo.
    script = (
        "from django.contrib.auth.models import User; from django.test import Client; "
        "user = User.objects.create_user('someone', password='a-long-password-1'); "
        "browser = Client(SERVER_NAME='127.0.0.1'); "
        "browser.force_login(user, backend='django.contrib.auth.backends.ModelBackend'); "
        "print(browser.get('/audit/').status_code, browser.get('/static/css/console.css').status_code)"
    )
    result = run_manage(["shell", "-v0", "-c", script], {"DEMO": "1"}, demo_checkout)

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["403", "200"]
    assert "Forbidden (Permission denied): /audit/" in result.stderr.splitlines()
    assert "Traceback" not in result.stderr and "PermissionDenied" not in result.stderr
    assert "UserWarning" not in result.stderr  # WhiteNoise's "No directory at: .../staticfiles/" was one


def test_the_engine_docs_eval_command_reads_the_data_folder_it_documents(tmp_path):
    # docs/engine.md names the folder's variable and each data file; the command finds them there.
    assert "VERIFICATION_DATA_DIR" in ENGINE_DOC
    layout = ENGINE_DOC[ENGINE_DOC.index("wice/claim_dev.jsonl"):].split("```")[0]
    documented = [line.split()[0] for line in layout.splitlines() if line.strip() and "/" in line.split()[0]]
    assert {"wice/claim_dev.jsonl", "summedits/summedits_<domain>.json", "halueval/qa_one-turn_data.json"} <= set(
        documented
    )
    claims = [
        {"label": "supported", "claim": "Acme was founded in 1987 in Boston.", "supporting_sentences": [[1]],
         "evidence": ["About Acme", "Acme was founded in 1987 in Boston."], "meta": {"id": "w1"}},
        {"label": "not_supported", "claim": "Acme was founded in 1992 in Boston.", "supporting_sentences": [],
         "evidence": ["About Acme", "Acme was founded in 1987 in Boston."], "meta": {"id": "w2"}},
    ]
    (tmp_path / "wice").mkdir()
    (tmp_path / "wice" / "claim_dev.jsonl").write_text("\n".join(json.dumps(claim) for claim in claims) + "\n")
    environment, command = _readme_command("-m verification eval", ENGINE_DOC)

    result = subprocess.run(
        [sys.executable, *command], cwd=REPO, env={"VERIFICATION_DATA_DIR": str(tmp_path), **environment},
        capture_output=True, text=True, timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("wice / tune: 2 records, 0 crashes")
