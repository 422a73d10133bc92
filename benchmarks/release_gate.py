"""How often the whole engine releases an inconsistent answer as written, and how much it automates.

    .venv/bin/python benchmarks/release_gate.py [--split hold] [--per-group] [--dataset wice ...]
    .venv/bin/python benchmarks/release_gate.py --cross-fit [CUTS]

Each labelled record becomes a case and runs through `python -m verification check --jsonl`, the
public CLI a client would use, with the default constitution and repair on. An answer is released as
written when the run ends in PERMIT and its final answer is the submitted one. For each data set it
prints the share of answers labelled inconsistent released as written (unsafe releases) and of
consistent ones (automation), with the exact 95% upper bound of the unsafe rate, and exits non-zero
when an unsafe release rate is above the default budget (5%). With --per-group, each data set's cases
are judged as answers of that data set's group of the calibration (`check --calibration-group`): its
own threshold instead of the pooled one. Measure on the hold split; run the report split once, when the
work is done.

The built-in calibration is computed from the hold split's answers, so on that split the figures above
are in-sample. With --cross-fit they are measured out of sample as well: the hold answers of the three
data sets are cut in two halves (by a hash of each answer's id), each half is gated at the thresholds a
calibration of the other half sets (`decision.calibration.calibrate`, by stratum, as `calibrate --tune`
computes it), the two halves' releases are added up, and the figures are the mean over several cuts
(--cross-fit CUTS, 5 when not given), each by another hash. An answer the run held back for its score alone
(`BELOW_RELEASE_THRESHOLD`) or released as written is one the gate decides by its score; every other
answer ends as it did in the run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.decision.calibration import (  # noqa: E402
    DEFAULT_MAX_UNSAFE_RELEASE_RATE,
    LabelledScores,
    ReleaseCalibration,
    calibrate,
    upper_bound,
)
from verification.decision.strata import answer_score, answer_stratum  # noqa: E402
from verification.training.evaluation import load  # noqa: E402
from verification.types import Claim, RunRecord  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What do the sources say?"


def measure(dataset: str, split: str, limit: int | None, per_group: bool = False,
            answers: list[dict] | None = None) -> dict:
    """Run the CLI over one split and count releases as written by label. `answers`, where given, gets one
    entry per answer for `cross_fit`: its label, whether it was released, and its first candidate's claims."""
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
        released, verifier = [], ""
        for record, line in zip(records, runs.read_text(encoding="utf-8").splitlines(), strict=True):
            run = json.loads(line)
            verifier = f"{run['verifier']} {run['verifier_fingerprint']}"
            released.append(run["terminal"] == "PERMIT" and run["final_answer"] == record.answer)
            if answers is not None:
                record_run = RunRecord.model_validate(run)
                answers.append({"dataset": dataset, "id": record.id, "consistent": record.supported,
                                "released": released[-1], "by_score": released[-1] or run["reason"] == _BY_SCORE,
                                "claims": record_run.candidates[0].claims if record_run.candidates else ()})
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
        "verifier": verifier,
        "cpu_s_parent": time.process_time() - cpu,
    }


_BY_SCORE = "BELOW_RELEASE_THRESHOLD"
"""The reason of an answer the gate held back for its score alone."""


def cross_fit(answers: list[dict], verifier: str, cuts: int = 1) -> dict[str, dict]:
    """Per data set, the releases of each half of the answers gated at a calibration of the other half,
    averaged over `cuts` different cuts in halves.

    Raises RuntimeError when gating every answer at a calibration of them all does not give back the
    run's own releases: then what is counted here is not what the engine does."""
    whole = calibrate(_labelled(answers), verifier=verifier)
    wrong = [answer["id"] for answer in answers if _released(answer, whole) != answer["released"]]
    if wrong:
        raise RuntimeError(f"cross-fit: the run's own calibration does not give back its releases for {wrong[:5]}")
    out: dict[str, dict] = {}
    for cut in range(cuts):
        halves = [[answer for answer in answers if _half(answer["id"], cut) == half] for half in (0, 1)]
        for half, other in ((halves[0], halves[1]), (halves[1], halves[0])):
            calibration = calibrate(_labelled(other), verifier=verifier)
            for answer in half:
                figures = out.setdefault(answer["dataset"], {"consistent": 0, "automated": 0, "inconsistent": 0,
                                                            "unsafe": 0})
                figures["consistent" if answer["consistent"] else "inconsistent"] += 1
                figures["automated" if answer["consistent"] else "unsafe"] += _released(answer, calibration)
    return {dataset: {key: count / cuts for key, count in figures.items()} for dataset, figures in out.items()}


def _released(answer: dict, calibration: ReleaseCalibration) -> bool:
    """Whether the answer is released as written at this calibration (where its score decides it)."""
    claims: tuple[Claim, ...] = tuple(answer["claims"])
    gate = calibration.for_answer(claims)
    return bool(answer["by_score"] and gate.met and answer_score(claims) >= gate.threshold)


def _half(record_id: str, cut: int = 0) -> int:
    """Which half of cut number `cut` an answer is in: a hash of its id, so every run cuts alike."""
    return hashlib.sha256(f"{cut}:{record_id}".encode()).digest()[0] % 2


def _labelled(answers: list[dict]) -> list[LabelledScores]:
    """The answers' release scores by data set and stratum, as `calibrate --tune` gathers them."""
    groups: dict[tuple[str, str | None], tuple[list[float], list[float]]] = {}
    for answer in answers:
        claims = answer["claims"]
        consistent, inconsistent = groups.setdefault((answer["dataset"], answer_stratum(claims)), ([], []))
        (consistent if answer["consistent"] else inconsistent).append(answer_score(claims))
    return [LabelledScores(name=f"{dataset}/hold", consistent=consistent, inconsistent=inconsistent, stratum=stratum)
            for (dataset, stratum), (consistent, inconsistent) in groups.items()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "hold", "report"), default="hold",
                        help="hold (the default): the part of the tune splits the shipped scorer never trained on")
    parser.add_argument("--per-group", action="store_true",
                        help="judge each data set's answers as its own group of the release calibration")
    parser.add_argument("--dataset", action="append", choices=("wice", "summedits", "halueval"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--cross-fit", type=int, nargs="?", const=5, default=0, metavar="CUTS",
                        help="also measure each half of the hold split at a calibration of the other half, "
                        "averaged over CUTS cuts in halves (5 when not given)")
    args = parser.parse_args()
    if args.cross_fit < 0:
        parser.error("--cross-fit: CUTS must be a positive number")
    if args.cross_fit and (args.split != "hold" or args.per_group or args.dataset or args.limit):
        parser.error("--cross-fit: the whole hold split of every data set, no group")
    datasets = args.dataset or (["summedits"] if args.split == "report" else ["wice", "summedits", "halueval"])
    passed = True
    answers: list[dict] = []
    verifier = ""
    for dataset in datasets:
        figures = measure(dataset, args.split, args.limit, args.per_group, answers if args.cross_fit else None)
        ok = figures["unsafe_release_rate"] <= DEFAULT_MAX_UNSAFE_RELEASE_RATE
        passed &= ok
        print(f"{figures['dataset']:<18} unsafe released as written {figures['unsafe_released']:>4}/"
              f"{figures['inconsistent']:<4} = {figures['unsafe_release_rate']:6.1%} (95% bound "
              f"{figures['unsafe_upper_bound']:.1%})   automation {figures['automation']:6.1%} of "
              f"{figures['consistent']}   {figures['wall_s']:.1f} s   {'ok' if ok else 'OVER BUDGET'}")
        verifier = figures["verifier"]
    if args.cross_fit:
        print(f"cross-fitted: each half of the hold answers gated at a calibration of the other half, "
              f"mean of {args.cross_fit} cuts")
        for dataset, figures in cross_fit(answers, verifier, args.cross_fit).items():
            rate = figures["unsafe"] / figures["inconsistent"]
            ok = rate <= DEFAULT_MAX_UNSAFE_RELEASE_RATE
            passed &= ok
            print(f"{dataset + '/hold':<18} unsafe released as written {figures['unsafe']:>6.1f}/"
                  f"{figures['inconsistent']:<4.0f} = {rate:6.1%}   automation "
                  f"{figures['automated'] / figures['consistent']:6.1%} of {figures['consistent']:.0f}   "
                  f"{'ok' if ok else 'OVER BUDGET'}")
    print("PASS" if passed else f"FAIL: an unsafe release rate is above {DEFAULT_MAX_UNSAFE_RELEASE_RATE:.0%}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
