"""`python -m verification ...`: see verification/cli/."""

from __future__ import annotations

import sys

from verification import heap
from verification.cli import main

# A process of its own (a batch run can read thousands of answers), unlike main() called in a test.
heap.settle()
sys.exit(main())
