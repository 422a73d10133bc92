"""What the offline engine does with answers in Japanese: JNLI's sentence pairs, premise as the source.

    .venv/bin/python benchmarks/languages.py [--split tune|measure] [--limit N] [--show 5]

JNLI (JGLUE, CC BY-SA 4.0, `../shared/data/nli/jnli/`, or JNLI_PATH) pairs a caption with a second
sentence labelled entailment, contradiction or neutral. Each pair is one case: the caption is the source,
the second sentence the answer, checked by `check_case` with the built-in constitution and the offline
verifier, as a team with no model endpoint runs it. The pairs are split by a hash of their id: `tune`
(seven in ten) is for choosing rules, `measure` (the other three) is run once to report.

Consistent answers are the entailed ones; inconsistent ones the contradicted and the neutral (a claim the
source does not state must not be released either). It prints, per label, how many ended in each terminal
state, the share of consistent answers rejected without a person (target at most 2%), the share of
inconsistent ones released (target at most 5%, with its exact 95% upper bound), the wall and CPU time per
case, and the released inconsistent answers (`--show`), and exits non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.decision.bounds import upper_bound  # noqa: E402
from verification.engine import check_case, default_verifier  # noqa: E402
from verification.types import Case, Source, Terminal  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATH = ROOT.parent / "shared" / "data" / "nli" / "jnli" / "valid-v1.3.json"
QUESTION = "この写真には何が写っていますか？"
MAX_REJECTED = 0.02
MAX_RELEASED = 0.05


def pairs(path: Path, split: str) -> list[dict[str, str]]:
    """The JNLI pairs of one split, in file order (`measure`: those whose id hashes to 0-2 of 10)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if (_bucket(row["sentence_pair_id"]) < 3) == (split == "measure")]


def _bucket(pair_id: str) -> int:
    return int(hashlib.sha256(pair_id.encode()).hexdigest(), 16) % 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "measure"), default="tune")
    parser.add_argument("--limit", type=int, default=None, help="check the first N pairs only")
    parser.add_argument("--show", type=int, default=5, help="released inconsistent answers to print")
    args = parser.parse_args()
    path = Path(os.environ.get("JNLI_PATH", DEFAULT_PATH))
    if not path.exists():
        print(f"JNLI not found at {path}: set JNLI_PATH", file=sys.stderr)
        return 2
    rows = pairs(path, args.split)[: args.limit]
    verifier = default_verifier(scorer="rules")
    outcomes: Counter[tuple[str, str]] = Counter()
    released_wrong: list[tuple[str, str, str]] = []
    wall, cpu = time.perf_counter(), time.process_time()
    for row in rows:
        case = Case(external_id=row["sentence_pair_id"], question=QUESTION, answer=row["sentence2"],
                    sources=[Source(id="caption", title="写真の説明", text=row["sentence1"])])
        record = check_case(case, verifier=verifier)
        released = record.terminal is Terminal.PERMIT and record.final_answer == row["sentence2"]
        terminal = "RELEASED" if released else record.terminal.value
        outcomes[row["label"], terminal] += 1
        if released and row["label"] != "entailment":
            released_wrong.append((row["label"], row["sentence1"], row["sentence2"]))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu

    print(f"JNLI {args.split}: {len(rows)} pairs, {wall / max(1, len(rows)) * 1000:.1f} ms wall and "
          f"{cpu / max(1, len(rows)) * 1000:.1f} ms CPU per case")
    terminals = ("RELEASED", "PERMIT", "REVIEW", "ABSTAIN", "REJECT")
    print(f"{'label':<14}" + "".join(f"{name:>10}" for name in terminals))
    for label in ("entailment", "contradiction", "neutral"):
        print(f"{label:<14}" + "".join(f"{outcomes[label, name]:>10}" for name in terminals))
    consistent = sum(count for (label, _), count in outcomes.items() if label == "entailment")
    inconsistent = sum(count for (label, _), count in outcomes.items() if label != "entailment")
    rejected = outcomes["entailment", "REJECT"]
    released = len(released_wrong)
    rejected_rate = rejected / consistent if consistent else 0.0
    released_rate = released / inconsistent if inconsistent else 0.0
    print(f"consistent released: {outcomes['entailment', 'RELEASED']}/{consistent} "
          f"({outcomes['entailment', 'RELEASED'] / max(1, consistent):.1%})")
    print(f"consistent rejected without a person: {rejected}/{consistent} ({rejected_rate:.1%}; target <= "
          f"{MAX_REJECTED:.0%})")
    print(f"inconsistent released: {released}/{inconsistent} ({released_rate:.1%}, 95% upper bound "
          f"{upper_bound(released, inconsistent, 0.95):.1%}; target <= {MAX_RELEASED:.0%})")
    for label, source, answer in released_wrong[: args.show]:
        print(f"  released {label}: {answer}  <=  {source}")
    return 0 if rejected_rate <= MAX_REJECTED and released_rate <= MAX_RELEASED else 1


if __name__ == "__main__":
    sys.exit(main())
