"""The repair loop against the no-repair baseline, on the same labelled data.

`python -m verification eval --repair none|auto` runs the whole engine (claims, verification, rules,
repair, stop) over a dataset split with the offline verifier and counts, per mode: unsupported claims
before and after, supported claims removed, terminals, and the repair-induced regression rate (the
share of records where a repair removed or broke something that passed, whether or not the controller
then rejected that repair). Running it twice, once per mode, compares them on identical records.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.loop.repair import repair_plan
from verification.training.evaluation import load
from verification.types import Case, RunRecord, State, Terminal

_QUESTION = "What do the sources say?"


def run(
    dataset: str,
    split: str,
    *,
    repair: str,
    limit: int | None = None,
    output: str | None = None,
    progress: bool = True,
) -> dict:
    """Check every record of a split with repair mode `repair`, print a summary and return the figures."""
    repair_plan(repair)  # an unknown mode is refused before any record is read
    records = load(dataset, split, limit)
    verifier = OfflineVerifier()
    started = time.perf_counter()
    rows = []
    for record in tqdm(records, desc=f"{dataset}/{split} repair={repair}", file=sys.stderr, disable=not progress):
        case = Case(external_id=record.id, question=_QUESTION, answer=record.answer, sources=record.sources)
        rows.append(_row(record.id, record.supported, check_case(case, verifier=verifier, repair=repair)))
    report = _summarise(dataset, split, repair, rows, time.perf_counter() - started)
    print(format_summary(report))
    if output:
        Path(output).write_text(json.dumps({**report, "records": rows}, indent=2) + "\n", encoding="utf-8")
    return report


def _row(record_id: str, gold: bool, run_record: RunRecord) -> dict:
    metrics = run_record.metrics
    final = run_record.candidates[-1].claims if run_record.candidates else []
    unsafe_permit = run_record.terminal is Terminal.PERMIT and any(
        claim.state not in (State.SUPPORTED, State.NOT_VERIFIABLE) for claim in final
    )
    return {
        "id": record_id,
        "gold": gold,
        "terminal": run_record.terminal.value,
        "reason": run_record.reason.value,
        "claims": metrics.claims,
        "unsupported_before": metrics.unsupported_before,
        "unsupported_after": metrics.unsupported_after,
        "supported_removed": metrics.supported_removed,
        "repairs_attempted": metrics.repairs_attempted,
        "repairs_accepted": metrics.repairs_accepted,
        "regressions": metrics.regressions,
        "unsafe_permit": unsafe_permit,
    }


def _summarise(dataset: str, split: str, repair: str, rows: list[dict], elapsed: float) -> dict:
    """The figures of one mode over one split."""
    repaired = [row for row in rows if row["repairs_attempted"]]
    return {
        "dataset": dataset,
        "split": split,
        "repair": repair,
        "records": len(rows),
        "elapsed_s": round(elapsed, 2),
        "claims": sum(row["claims"] for row in rows),
        "unsupported_before": sum(row["unsupported_before"] for row in rows),
        "unsupported_after": sum(row["unsupported_after"] for row in rows),
        "supported_removed": sum(row["supported_removed"] for row in rows),
        "unsafe_permits": sum(row["unsafe_permit"] for row in rows),
        "repairs_attempted": sum(row["repairs_attempted"] for row in rows),
        "repairs_accepted": sum(row["repairs_accepted"] for row in rows),
        "records_repaired": len(repaired),
        "regression_rate": (
            round(sum(1 for row in repaired if row["regressions"]) / len(repaired), 4) if repaired else 0.0
        ),
        "terminals": dict(Counter(row["terminal"] for row in rows)),
        "permit_rate_gold_supported": _permit_rate(rows, gold=True),
        "permit_rate_gold_unsupported": _permit_rate(rows, gold=False),
    }


def _permit_rate(rows: list[dict], *, gold: bool) -> float | None:
    chosen = [row for row in rows if row["gold"] is gold]
    if not chosen:
        return None
    return round(sum(row["terminal"] == Terminal.PERMIT.value for row in chosen) / len(chosen), 4)


def format_summary(report: dict) -> str:
    """A few readable lines of the figures in `report`."""
    terminals = ", ".join(f"{name} {count}" for name, count in sorted(report["terminals"].items()))
    return "\n".join([
        f"{report['dataset']} / {report['split']} repair={report['repair']}: {report['records']} records, "
        f"{report['elapsed_s']:.1f} s",
        f"  unsupported claims      {report['unsupported_before']} -> {report['unsupported_after']} "
        f"(of {report['claims']})",
        f"  supported removed       {report['supported_removed']}",
        f"  PERMIT with a failure   {report['unsafe_permits']}",
        f"  repairs                 {report['repairs_accepted']} accepted of {report['repairs_attempted']} "
        f"on {report['records_repaired']} records",
        f"  regression rate         {report['regression_rate']:.4f}",
        f"  PERMIT rate             gold supported {report['permit_rate_gold_supported']}, "
        f"gold unsupported {report['permit_rate_gold_unsupported']}",
        f"  terminals               {terminals}",
    ])
