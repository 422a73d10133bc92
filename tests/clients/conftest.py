"""The Python client (clients/python) as the suite runs it: its source in this checkout, imported as an
installed client would import it (`make test` also installs it into the venv, editable)."""

from __future__ import annotations

import sys
from pathlib import Path

CLIENT_SOURCE = Path(__file__).resolve().parents[2] / "clients" / "python" / "src"
if str(CLIENT_SOURCE) not in sys.path:
    sys.path.insert(0, str(CLIENT_SOURCE))

# The suite's fixtures for a live console: a browser, real workers over Redis, a webhook receiver.
from tests.browser.conftest import as_person  # noqa: E402, F401
from tests.reviewconsole.conftest import live_broker, redis_url, start_worker  # noqa: E402, F401
from tests.reviewconsole.webhooks.conftest import receiver  # noqa: E402, F401
