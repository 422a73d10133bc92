#!/usr/bin/env python
"""Django's command-line utility for the review console."""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewconsole.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as error:
        # A bad environment variable is an operator's typo, not a crash: say which one, no traceback.
        sys.exit(f"configuration error: {error}")


if __name__ == "__main__":
    main()
