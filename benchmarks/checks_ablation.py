"""What each check of the offline verifier is worth beside the learned scorer: each switched off in turn.

    .venv/bin/python benchmarks/checks_ablation.py [--scorer learned] [--budget 0.05] [--limit N]

On the hold split of the tune data (WiCE claim_dev, the held halves of SummEdits `evaluation` and
HaluEval: nothing the scorer trained on), the verifier runs once with every check and once with each
check of `offline.SWITCHABLE` left out. For each configuration: how many claim verdicts (states) differ
from the full verifier's, and, with the threshold calibrated afresh on that configuration's own scores
for the 5% budget (pooled over the three groups, as the built-in calibration is, and each group's own),
the unsafe release rate and the automation per data set; and the CPU time of the pass. The cross-encoder's readings are
computed in a first, untimed pass, so each timed pass costs the checks and the rules alone, and the
difference to the full pass is what the check costs. Prints a Markdown table for docs/verifier.md
(a measurement with no target of its own: it always exits 0 once it has printed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.claims.extraction import extract_claims  # noqa: E402
from verification.decision.calibration import calibrate, group_scores  # noqa: E402
from verification.decision.offline import SWITCHABLE, OfflineVerifier  # noqa: E402
from verification.decision.strata import answer_score  # noqa: E402
from verification.retrieval.index import SourceIndex  # noqa: E402
from verification.scorers import make_scorer  # noqa: E402
from verification.training.evaluation import DATASETS, Record, load  # noqa: E402


def run(verifier: OfflineVerifier, records: dict[str, list[Record]]) -> tuple[dict, float]:
    """Per data set: each record's (gold, answer score, claim states); and the pass's CPU seconds."""
    out: dict[str, list[tuple[bool, float, tuple[str, ...]]]] = {}
    started = time.process_time()
    for dataset, rows in records.items():
        out[dataset] = []
        for record in rows:
            claims = [claim for claim in extract_claims(record.answer, record.question) if claim.checkable]
            verdicts = verifier.verify_claims(claims, SourceIndex(record.sources)) if claims else []
            out[dataset].append((record.supported, answer_score(verdicts), tuple(str(v.state) for v in verdicts)))
    return out, time.process_time() - started


def figures(result: dict, budget: float) -> dict[str, str]:
    """Per data set, unsafe release rate / automation at the pooled threshold for a 5% budget, and at the
    data set's own threshold (where it is lower)."""
    groups = group_scores((dataset, gold, score) for dataset, rows in result.items() for gold, score, _ in rows)
    calibration = calibrate(groups, verifier="ablation", max_unsafe_release_rate=budget)
    cells = {}
    for bound in calibration.groups:
        own = calibration.group_bound(bound.name) or bound
        cells[bound.name] = (f"{bound.unsafe_release_rate:.1%} / {bound.automation:.1%}; own "
                             f"{own.unsafe_release_rate:.1%} / {own.automation:.1%}")
    return cells


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scorer", choices=("learned", "rules"), default="learned")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--budget", type=float, default=0.05, help="the risk budget (default 0.05)")
    args = parser.parse_args()
    scorer = make_scorer(args.scorer)
    records = {dataset: load(dataset, "hold", args.limit) for dataset in DATASETS}
    run(OfflineVerifier(scorer), records)  # the scorer's readings, cached for every pass below
    full, full_cpu = run(OfflineVerifier(scorer), records)
    full_figures = figures(full, args.budget)
    header = " | ".join(f"{d} unsafe / automation: pooled; own" for d in DATASETS)
    print(f"| check left out | verdicts changed | {header} | CPU s (full {full_cpu:.1f}) |")
    print("| --- | --- | " + " | ".join("---" for _ in DATASETS) + " | --- |")
    cells = " | ".join(full_figures[d] for d in DATASETS)
    print(f"| (none: the full verifier) | 0 | {cells} | {full_cpu:.1f} |")
    for check in SWITCHABLE:
        result, cpu = run(OfflineVerifier(scorer, off=frozenset({check})), records)
        changed = sum(
            sum(a != b for a, b in zip(x[2], y[2], strict=True))
            for dataset in DATASETS for x, y in zip(full[dataset], result[dataset], strict=True)
        )
        shown = figures(result, args.budget)
        cells = " | ".join(shown[d] for d in DATASETS)
        print(f"| {check} | {changed} | {cells} | {cpu:.1f} ({cpu - full_cpu:+.1f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
