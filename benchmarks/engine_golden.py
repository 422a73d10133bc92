"""Records the offline engine's outputs on every labelled tune case and demo case, and checks them later.

    .venv/bin/python benchmarks/engine_golden.py --record golden.jsonl
    .venv/bin/python benchmarks/engine_golden.py --check golden.jsonl [--every 10]

A speed-up of the engine must not change one verdict. `--record` runs the whole offline path
(`check_case`: claims, verification, rules, bounded repair, the stop) on every case of the tune splits
(WiCE, SummEdits, HaluEval, as `evaluation.load` reads them), of verification/demo_cases.json and 100
of the speed benchmark's synthetic cases (`engine.synthetic_case`, fixed seed: they reach the
source-conflict and typed-mismatch paths the labelled data seldom does). It writes one JSON line per
case: the terminal decision, its reason and the final answer; per claim of every candidate its text,
state, release score, method, confidence, rationale and cited spans (source, offsets, what each
covers); and the offline verifier's own verdicts on the answer's claims with the features and
probability the logistic model read. Floats are written as their repr, so equal lines mean equal
outputs to the last bit. `--check` recomputes the lines and counts two kinds of difference apart: in
what the engine decides (terminals, reasons, final answers; each claim's and verdict's state, method,
rationale, cited spans, and its scores to the fourth decimal), and in diagnostics only (a verdict's
`extra`, or a score beyond the fourth decimal). It exits non-zero on a decision difference, printing the
first ones; with `--exact`, on any difference. `--every N` takes every Nth case only: a fixed subset that
is quick to run between changes (the full set is for the end).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.engine import synthetic_case  # noqa: E402
from verification.claims.extraction import extract_claims  # noqa: E402
from verification.decision.offline import OfflineVerifier  # noqa: E402
from verification.decision.verifier import Verdict  # noqa: E402
from verification.engine import check_case  # noqa: E402
from verification.training import evaluation  # noqa: E402
from verification.types import Case, Claim, EvidenceSpan, RunRecord  # noqa: E402

_DEMO_PATH = Path(__file__).resolve().parents[1] / "verification" / "demo_cases.json"
_SHOWN_DIFFERENCES = 10
_SYNTHETIC_CASES = 100
_SYNTHETIC_SEED = 12


def cases() -> Iterator[tuple[str, Case]]:
    """(name, case) for every labelled tune record, every demo case and the synthetic ones, in a fixed order."""
    for dataset in evaluation.DATASETS:
        for record in evaluation.load(dataset, "tune"):
            name = f"{dataset}/{record.id}"
            yield name, Case(external_id=name, question=record.question or f"Labelled record {name}",
                             answer=record.answer, sources=record.sources)
    for number, raw in enumerate(json.loads(_DEMO_PATH.read_text(encoding="utf-8"))):
        case = Case.model_validate(raw)
        yield f"demo/{case.external_id or number}", case
    rng = random.Random(_SYNTHETIC_SEED)
    for number in range(_SYNTHETIC_CASES):
        sources, answer = synthetic_case(rng)
        name = f"synthetic/{number}"
        yield name, Case(external_id=name, question="Which plan fits us?", answer=answer, sources=sources)


def outputs(name: str, case: Case, verifier: OfflineVerifier) -> dict:
    """Everything the engine decides about one case, in a form that compares exactly."""
    record: RunRecord = check_case(case, verifier=verifier)
    claims = extract_claims(case.answer or "", case.question)
    verdicts = verifier.verify(claims, case.sources)
    return {
        "case": name,
        "terminal": str(record.terminal),
        "reason": str(record.reason),
        "final_answer": record.final_answer,
        "candidates": [
            {"id": candidate.id, "origin": str(candidate.origin), "text": candidate.text,
             "claims": [_claim(claim) for claim in candidate.claims]}
            for candidate in record.candidates
        ],
        "verdicts": [_verdict(claim.text, verdict) for claim, verdict in zip(claims, verdicts, strict=True)],
    }


def _claim(claim: Claim) -> dict:
    return {
        "id": claim.id, "text": claim.text, "state": str(claim.state), "release_score": _exact(claim.release_score),
        "method": claim.method, "confidence": _exact(claim.confidence), "rationale": claim.rationale,
        "evidence": [_span(span) for span in claim.evidence],
    }


def _verdict(text: str, verdict: Verdict) -> dict:
    return {
        "text": text, "state": str(verdict.state), "release_score": _exact(verdict.release_score),
        "method": verdict.method, "confidence": _exact(verdict.confidence), "rationale": verdict.rationale,
        "evidence": [_span(span) for span in verdict.evidence],
        "extra": json.loads(json.dumps(verdict.extra, default=repr, sort_keys=True)),
    }


def _span(span: EvidenceSpan) -> list:
    return [span.source_id, span.start, span.end, list(span.covers)]


def _exact(value: float | None) -> str | None:
    """The float's repr: two floats that print alike here are the same float."""
    return None if value is None else repr(value)


def _lines(every: int) -> Iterator[tuple[str, str]]:
    verifier = OfflineVerifier()
    for number, (name, case) in enumerate(cases()):
        if number % every == 0:
            yield name, json.dumps(outputs(name, case, verifier), sort_keys=True, ensure_ascii=False)


def record(path: Path, every: int) -> int:
    started, count = time.perf_counter(), 0
    with path.open("w", encoding="utf-8") as out:
        for _, line in _lines(every):
            out.write(line + "\n")
            count += 1
    print(f"recorded {count} cases in {time.perf_counter() - started:.1f} s to {path}")
    return 0


def check(path: Path, every: int, exact: bool = False) -> int:
    """0 when every case decides as recorded (and, with `exact`, recomputes to its recorded line); 1, with the
    first differences shown, otherwise."""
    golden = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        golden[json.loads(line)["case"]] = line
    started, compared, differences, diagnostic, missing = time.perf_counter(), 0, [], 0, []
    for name, line in _lines(every):
        if name not in golden:
            missing.append(name)
            continue
        compared += 1
        if line == golden[name]:
            continue
        before, after = json.loads(golden[name]), json.loads(line)
        if exact or decisions(before) != decisions(after):
            differences.append((name, before, after))
        else:
            diagnostic += 1
    for name, before, after in differences[:_SHOWN_DIFFERENCES]:
        print(f"DIFFERENT {name}:")
        for where, old, new in _first_changes(before, after):
            print(f"  {where}\n    recorded: {old!r}\n    now:      {new!r}")
    if missing:
        print(f"{len(missing)} cases not in the recording (first: {missing[0]}); record with the same --every")
    kind = "differences" if exact else "differences in decisions"
    print(f"{compared} cases compared in {time.perf_counter() - started:.1f} s: {len(differences)} {kind}"
          + ("" if exact else f"; {diagnostic} cases differ in diagnostics only (a verdict's extra, or a score "
                              f"past the fourth decimal)"))
    return 1 if differences or missing or not compared else 0


def decisions(line: dict) -> dict:
    """What the engine decides in a recorded line: everything but a verdict's `extra`, scores to the fourth
    decimal (the precision the run record and the release gate read)."""
    return {
        **{key: line[key] for key in ("case", "terminal", "reason", "final_answer")},
        "candidates": [{**candidate, "claims": [_decided(entry) for entry in candidate["claims"]]}
                       for candidate in line["candidates"]],
        "verdicts": [_decided(entry) for entry in line["verdicts"]],
    }


def _decided(entry: dict) -> dict:
    kept = {key: value for key, value in entry.items() if key != "extra"}
    for key in ("release_score", "confidence"):
        if kept.get(key) is not None:
            kept[key] = round(float(kept[key]), 4)
    return kept


_Change = tuple[str, object, object]


def _first_changes(before: object, after: object, where: str = "", limit: int = 3) -> list[_Change]:
    """Up to `limit` paths at which two decoded lines differ, with the values there."""
    found: list[_Change] = []
    if type(before) is not type(after):
        return [(where or "/", before, after)]
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            found += _first_changes(before.get(key), after.get(key), f"{where}/{key}", limit - len(found))
            if len(found) >= limit:
                break
        return found
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return [(f"{where} (length {len(before)} -> {len(after)})", before, after)]
        for i, (old, new) in enumerate(zip(before, after, strict=True)):
            found += _first_changes(old, new, f"{where}/{i}", limit - len(found))
            if len(found) >= limit:
                break
        return found
    return [] if before == after else [(where or "/", before, after)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", metavar="FILE", type=Path, help="write the engine's outputs to FILE")
    mode.add_argument("--check", metavar="FILE", type=Path, help="compare the engine's outputs with FILE")
    parser.add_argument("--exact", action="store_true",
                        help="--check: fail on any difference, a verdict's extra and the last bit of a score too")
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="only every Nth case (a fixed subset); record and check with the same N")
    args = parser.parse_args()
    if args.every < 1:
        parser.error("--every: must be at least 1")
    return record(args.record, args.every) if args.record else check(args.check, args.every, args.exact)


if __name__ == "__main__":
    sys.exit(main())
