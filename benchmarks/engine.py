"""Times the offline verification path on one CPU core.

    .venv/bin/python benchmarks/engine.py [--rounds 200]

Each case runs the whole offline path a worker runs: extract_claims, one SourceIndex per case and
OfflineVerifier over every claim. Cases: a synthetic support handbook of 50 sentences checked against
a 10-claim answer (varied per round so no cache helps), and the demo cases in
verification/demo_cases.json. Exits non-zero unless the engine checks at least 300 claims per second
and a 10-claim case takes under 50 ms at the 95th percentile.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.claims import extract_claims  # noqa: E402
from verification.offline import OfflineVerifier  # noqa: E402
from verification.types import Case, Source  # noqa: E402

MIN_CLAIMS_PER_SECOND = 300
MAX_P95_MS = 50.0

_PRODUCTS = ["Starter", "Team", "Business", "Enterprise", "Education"]
_FEATURES = ["single sign-on", "audit logs", "priority support", "custom domains", "API access",
             "data export", "two-factor enforcement", "usage analytics", "offline mode", "webhooks"]


def synthetic_case(rng: random.Random) -> tuple[list[Source], str]:
    """A 50-sentence handbook in two sources and a 10-claim answer about it."""
    facts: list[str] = []
    prices = {plan: rng.choice([9, 12, 15, 20, 25, 30, 45, 60]) for plan in _PRODUCTS}
    seats = {plan: rng.choice([3, 5, 10, 25, 50, 100]) for plan in _PRODUCTS}
    for plan in _PRODUCTS:
        facts.append(f"The {plan} plan costs ${prices[plan]} per user per month when billed monthly.")
        facts.append(f"The {plan} plan includes up to {seats[plan]} seats.")
        facts.append(f"Customers on the {plan} plan can request a refund within {rng.choice([14, 30, 60])} days.")
    for feature in _FEATURES:
        plan = rng.choice(_PRODUCTS)
        facts.append(f"{feature.capitalize()} is available on the {plan} plan and above.")
        facts.append(f"Support for {feature} was added in version {rng.randint(2, 6)}.{rng.randint(0, 9)}.")
    while len(facts) < 50:
        facts.append(f"Invoices are issued on day {rng.randint(1, 28)} of each month and can be paid by card or "
                     f"bank transfer within {rng.choice([15, 30, 45])} days.")
    rng.shuffle(facts)
    sources = [Source(id="handbook", text=" ".join(facts[:30])), Source(id="faq", text="\n".join(facts[30:]))]
    claims = [
        f"The Team plan costs ${prices['Team']} per user per month.",
        f"The Business plan includes up to {seats['Business'] + 5} seats.",
        f"{_FEATURES[0].capitalize()} is available on the {rng.choice(_PRODUCTS)} plan and above.",
        "Refunds are paid in cash at any of our offices.",
        f"Support for {_FEATURES[3]} was added in version 3.1.",
        "Invoices can be paid by card or bank transfer.",
        f"The Enterprise plan costs ${prices['Enterprise'] * 2} per user per month.",
        "Usage analytics are not available on any plan.",
        "The Starter plan includes phone support around the clock.",
        f"Customers on the Education plan can request a refund within {rng.choice([14, 30, 60])} days.",
    ]
    return sources, " ".join(claims)


def _time_case(verifier: OfflineVerifier, sources: list[Source], answer: str) -> tuple[float, int]:
    started = time.perf_counter()
    claims = extract_claims(answer)
    verifier.verify(claims, sources)
    return (time.perf_counter() - started) * 1000, len(claims)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    verifier = OfflineVerifier()
    rng = random.Random(7)
    demo_path = Path(__file__).resolve().parents[1] / "verification" / "demo_cases.json"
    demos = [Case.model_validate(raw) for raw in json.loads(demo_path.read_text(encoding="utf-8"))]

    _time_case(verifier, *synthetic_case(random.Random(0)))  # warm caches and imports once
    synthetic_ms, claims_done = [], 0
    for _ in range(args.rounds):
        elapsed, count = _time_case(verifier, *synthetic_case(rng))
        synthetic_ms.append(elapsed)
        claims_done += count
    demo_ms = [_time_case(verifier, list(case.sources), case.answer or "")[0] for case in demos * 20]

    claims_per_second = claims_done / (sum(synthetic_ms) / 1000)
    p95 = statistics.quantiles(synthetic_ms, n=20)[-1]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"cores pinned:                  {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'}")
    print(f"synthetic cases:               {args.rounds} x {claims_done // args.rounds} claims over 50 sentences")
    print(f"claims per second (one core):  {claims_per_second:.0f}")
    print(f"synthetic ms per case:         median {statistics.median(synthetic_ms):.2f}  p95 {p95:.2f}")
    print(f"demo ms per case:              median {statistics.median(demo_ms):.2f}  "
          f"p95 {statistics.quantiles(demo_ms, n=20)[-1]:.2f}  ({len(demos)} cases)")
    print(f"peak memory (max RSS):         {peak_mb:.1f} MB")
    passed = claims_per_second >= MIN_CLAIMS_PER_SECOND and p95 < MAX_P95_MS
    print("PASS" if passed else f"FAIL: need >= {MIN_CLAIMS_PER_SECOND} claims/s and p95 < {MAX_P95_MS} ms")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
