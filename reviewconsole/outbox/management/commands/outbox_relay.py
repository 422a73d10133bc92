"""`manage.py outbox_relay`: hand the broker every committed task it has not got, every second.

Runs as its own process (the `relay` service of docker-compose.yml), beside the workers: it must not
depend on the broker to be told to run.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError, close_old_connections

from reviewconsole.celery import app
from reviewconsole.outbox.services import BROKER_ERRORS, relay_once

# The database or the broker went away mid-round: the next round tries again.
_PASSING: tuple[type[Exception], ...] = (DatabaseError, *BROKER_ERRORS)


class Command(BaseCommand):
    help = "Hand the broker every committed task it has not got (a broker that was down or restarted)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="relay once and exit")
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between rounds (0.1 to 60)")
        parser.add_argument("--heartbeat", type=Path, help="a file touched after every round (for a health check)")

    def handle(self, *args: Any, **options: Any) -> None:
        interval = options["interval"]
        if not 0.1 <= interval <= 60:
            self.stderr.write("--interval: give a number of seconds from 0.1 to 60")
            raise SystemExit(2)
        if app.conf.task_always_eager:
            self.stdout.write("No broker is configured (REDIS_URL is unset): tasks run in-process, nothing to relay.")
            return
        if options["once"]:
            self.stdout.write(f"handed over {relay_once(app)} message(s)")
            return
        stopping = False

        def stop(signum: int, frame: object) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        while not stopping:
            try:
                relay_once(app)
            except _PASSING as error:
                self.stderr.write(f"outbox relay: {type(error).__name__}: {error}")
                close_old_connections()
            if options["heartbeat"] is not None:
                options["heartbeat"].touch()
            time.sleep(interval)
