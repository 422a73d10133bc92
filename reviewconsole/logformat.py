"""How the console's log lines are printed."""

from __future__ import annotations

import logging


class ConsoleFormatter(logging.Formatter):
    """Prints a refused request (a 4xx: "Forbidden (Permission denied): /audit/") on one line.

    Django logs those with the exception that made them, and so with a full traceback, though the
    refusal is the answer the console meant to give. Server errors (5xx) and all other records keep
    their traceback.
    """

    def format(self, record: logging.LogRecord) -> str:
        status = getattr(record, "status_code", None)
        if record.exc_info and isinstance(status, int) and 400 <= status < 500:
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None})
        return super().format(record)
