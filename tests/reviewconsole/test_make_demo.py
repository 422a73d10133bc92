"""`make demo PORT=8123`: the demo console served on another port, and the links its commands print name it.

Runs make in a child process over its own VAR_DIR (the demo's SQLite database and accounts), without the
test run's variables; `-o .venv/.installed` keeps make from reinstalling the venv the suite runs in.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request

from tests.reviewconsole.subprocesses import _TEST_RUN_VARIABLES, REPO


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _make(*args: str, var_dir, **popen) -> subprocess.Popen:
    clean = {key: value for key, value in os.environ.items() if key not in _TEST_RUN_VARIABLES | {"CONSOLE_BASE_URL"}}
    return subprocess.Popen(["make", "--no-print-directory", "-o", ".venv/.installed", *args], cwd=REPO,
                            env={**clean, "VAR_DIR": str(var_dir)}, text=True, **popen)


def test_every_demo_command_names_the_port_it_serves_on():
    planned = _make("-n", "demo", "PORT=8123", var_dir="var", stdout=subprocess.PIPE)
    commands = [line for line in planned.communicate(timeout=30)[0].splitlines() if "manage.py" in line]

    assert [line.split("manage.py ")[1] for line in commands] == [
        "migrate --no-input", "demo", "runserver 127.0.0.1:8123"
    ]
    assert all("CONSOLE_BASE_URL=http://127.0.0.1:8123 " in line for line in commands)


def test_make_demo_serves_the_console_on_the_port_given(tmp_path):
    port = _free_port()
    demo = _make("demo", f"PORT={port}", var_dir=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                 start_new_session=True)
    try:
        deadline, answer = time.monotonic() + 240, None
        while answer is None and time.monotonic() < deadline and demo.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                    answer = response.status
            except OSError:
                time.sleep(0.5)
        assert answer == 200, "the demo console never answered on the port it was given"
    finally:
        os.killpg(demo.pid, signal.SIGTERM)
        try:
            output = demo.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            # A loaded machine can leave the demo mid-migration when the deadline passes; what it printed
            # still says what it reached.
            os.killpg(demo.pid, signal.SIGKILL)
            output = demo.communicate()[0]
    assert f"Serving the console on http://127.0.0.1:{port} (Ctrl-C stops it)" in output
