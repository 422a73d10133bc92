"""Running manage.py in a child process with exactly the environment a test gives it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Variables the test run itself sets; a child process must see only what the test chose.
_TEST_RUN_VARIABLES = {
    "DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE",
}


def run_manage(args: list[str], environment: dict[str, str], var_dir: Path) -> subprocess.CompletedProcess:
    clean = {key: value for key, value in os.environ.items() if key not in _TEST_RUN_VARIABLES}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**clean, "VAR_DIR": str(var_dir), **environment},
        capture_output=True,
        text=True,
        timeout=120,
    )
