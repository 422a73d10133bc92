"""How often the whole engine releases an inconsistent answer as written, and how much it automates.

    .venv/bin/python benchmarks/release_gate.py [--split hold] [--per-group] [--dataset wice ...]

Each labelled record becomes a case and runs through `python -m verification check --jsonl`, the
public CLI a client would use, with the default constitution and repair on. An answer is released as
written when the run ends in PERMIT and its final answer is the submitted one. For each data set it
prints the share of answers labelled inconsistent released as written (unsafe releases) and of
consistent ones (automation), with the exact 95% upper bound of the unsafe rate, and exits non-zero
when an unsafe release rate is above the default budget (5%). With --per-group, each data set's cases
are judged as answers of that data set's group of the calibration (`check --calibration-group`): its
own threshold instead of the pooled one. Measure on the hold split; run the report split once, when the
work is done.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.decision.calibration import DEFAULT_MAX_UNSAFE_RELEASE_RATE, upper_bound  # noqa: E402
from verification.training.evaluation import load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What do the sources say?"


def measure(dataset: str, split: str, limit: int | None, per_group: bool = False) -> dict:
    """Run the CLI over one split and count releases as written by label."""
    records = load(dataset, split, limit)
    with tempfile.TemporaryDirectory() as folder:
        cases, runs = Path(folder) / "cases.jsonl", Path(folder) / "runs.jsonl"
        with cases.open("w", encoding="utf-8") as out:
            for record in records:
                case = {"external_id": record.id, "question": record.question or QUESTION, "answer": record.answer,
                        "sources": [source.model_dump(exclude_none=True) for source in record.sources]}
                out.write(json.dumps(case) + "\n")
        started, cpu = time.perf_counter(), time.process_time()
        group = ["--calibration-group", f"{dataset}/hold"] if per_group else []
        subprocess.run([sys.executable, "-m", "verification", "check", "--offline", "--no-progress", "--jsonl",
                        str(cases), "--output", str(runs), *group], cwd=ROOT, check=True)
        elapsed = time.perf_counter() - started
        released = []
        for record, line in zip(records, runs.read_text(encoding="utf-8").splitlines(), strict=True):
            run = json.loads(line)
            released.append(run["terminal"] == "PERMIT" and run["final_answer"] == record.answer)
    inconsistent = [r for record, r in zip(records, released, strict=True) if not record.supported]
    consistent = [r for record, r in zip(records, released, strict=True) if record.supported]
    unsafe = sum(inconsistent)
    return {
        "dataset": f"{dataset}/{split}",
        "inconsistent": len(inconsistent),
        "unsafe_released": unsafe,
        "unsafe_release_rate": unsafe / len(inconsistent) if inconsistent else 0.0,
        "unsafe_upper_bound": upper_bound(unsafe, len(inconsistent), 0.95),
        "consistent": len(consistent),
        "automation": sum(consistent) / len(consistent) if consistent else 0.0,
        "wall_s": elapsed,
        "cpu_s_parent": time.process_time() - cpu,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "hold", "report"), default="hold",
                        help="hold (the default): the part of the tune splits the shipped scorer never trained on")
    parser.add_argument("--per-group", action="store_true",
                        help="judge each data set's answers as its own group of the release calibration")
    parser.add_argument("--dataset", action="append", choices=("wice", "summedits", "halueval"))
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    datasets = args.dataset or (["summedits"] if args.split == "report" else ["wice", "summedits", "halueval"])
    passed = True
    for dataset in datasets:
        figures = measure(dataset, args.split, args.limit, args.per_group)
        ok = figures["unsafe_release_rate"] <= DEFAULT_MAX_UNSAFE_RELEASE_RATE
        passed &= ok
        print(f"{figures['dataset']:<18} unsafe released as written {figures['unsafe_released']:>4}/"
              f"{figures['inconsistent']:<4} = {figures['unsafe_release_rate']:6.1%} (95% bound "
              f"{figures['unsafe_upper_bound']:.1%})   automation {figures['automation']:6.1%} of "
              f"{figures['consistent']}   {figures['wall_s']:.1f} s   {'ok' if ok else 'OVER BUDGET'}")
    print("PASS" if passed else f"FAIL: an unsafe release rate is above {DEFAULT_MAX_UNSAFE_RELEASE_RATE:.0%}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
