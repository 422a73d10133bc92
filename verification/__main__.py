"""`python -m verification ...`: see verification/cli.py."""

from __future__ import annotations

import sys

from verification.cli import main

sys.exit(main())
