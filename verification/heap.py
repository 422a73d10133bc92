"""How a long-running engine process sets Python's cyclic garbage collector.

Checking a claim makes thousands of small objects (tokens, mentions, hits, verdicts) that die young, and
a process keeps what it loaded at start-up (modules, word lists, the model) for as long as it runs.
With the collector's defaults, a collection of the young objects runs every 700 allocations and every
tenth of them walks the older ones too. In a process the size of a worker (Django, Celery and the model
loaded: about 110,000 tracked objects) the rules path spent 3.2-3.9 times `benchmarks/engine.py`'s
reference workload settled against 3.7-4.1 times with the defaults, about 8% less; in a bare process the
two are within noise. Reference counting frees garbage without a cycle at once either way; only garbage
in cycles waits longer, which is bounded by the threshold.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 50_000
"""Allocations between collections of the young generation (Python's default is 700)."""


def settle() -> None:
    """Keep what the process holds now out of every collection, and collect young objects less often.

    Called once, when a worker or a batch command has loaded what it keeps: objects frozen here are
    never collected, so it runs after a full collection and before any work."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)
