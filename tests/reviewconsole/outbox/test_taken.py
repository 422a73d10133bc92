"""A worker clears a task's outbox message as it takes the task; a database out of reach then must not drop it."""

from __future__ import annotations

import socket

from tests.reviewconsole.subprocesses import run_manage

_TAKE = """
from reviewconsole.intake.tasks import verify_case
verify_case.before_start("task-1", (1,), {})
print("taken")
"""


def test_a_task_taken_while_the_database_is_out_of_reach_runs_on_to_its_retry(tmp_path):
    # A port nobody listens on: the database refuses at once, as a host cut off from it fails after its timeouts.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    environment = {"SECRET_KEY": "s" * 50, "ALLOWED_HOSTS": "console.example",
                   "DATABASE_URL": f"postgres://app:pw@127.0.0.1:{port}/reviewconsole",
                   "REDIS_URL": "redis://127.0.0.1:6379/0"}
    result = run_manage(["shell", "-c", _TAKE], environment, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "taken"
    assert "intake.verify_case[task-1]: its outbox message could not be cleared: connection failed" in result.stderr
