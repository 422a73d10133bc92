"""What the verification cascade costs against sending every claim to the model, on the tune splits.

    .venv/bin/python benchmarks/cascade.py [--limit N]

For each labelled answer of the hold half of the tune splits (WiCE claim_dev, SummEdits `evaluation`,
HaluEval: what the offline calibration was made on), the claims are extracted and verified twice
through the real `CascadeVerifier` and `ModelVerifier`, with a model double that answers every
verification and counts the calls: once bound as the engine binds it for the default constitution at
the 5% budget (the uncertain band to the model), once with every claim to the model. The model's
answers do not matter here, only how many claims reach it; what a real model then releases is the
model path's own calibration (labels of the claims it decided).

Prints, per split and for the pooled safe band and the split's own group's: answers and claims, the
share of claims the cascade sends to the model, model calls per answer for both routes, how the answers
split (settled offline, a typed veto, the model needed), and the offline verifier's CPU milliseconds per
answer (first pass over a split only). Exits non-zero unless, on every split, the cascade makes fewer
model calls per answer than every-claim verification.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel  # noqa: E402

from verification.claims.extraction import extract_claims  # noqa: E402
from verification.decision.offline import OfflineVerifier  # noqa: E402
from verification.llm.cascade import Cascade, CascadeVerifier  # noqa: E402
from verification.llm.client import Message, ModelReply  # noqa: E402
from verification.llm.cove import ModelVerifier  # noqa: E402
from verification.policy.constitution import DEFAULT  # noqa: E402
from verification.training.evaluation import DATASETS, load  # noqa: E402
from verification.types import State  # noqa: E402


@dataclass
class CountingModel:
    """A chat model that answers every verification "not in the sources" and counts the calls by role."""

    model_id: str = "counting"
    calls: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def complete_json(self, *, role: str, messages: list[Message], schema: type[BaseModel]) -> ModelReply:
        with self._lock:
            self.calls[role] += 1
        if role == "question_writer":
            claim = messages[-1]["content"].split("Claim: ", 1)[-1].splitlines()[0]
            return ModelReply(json.dumps({"question": f"Is it so that {claim}"}), self.model_id)
        reply = {"state": "INSUFFICIENT_EVIDENCE", "quotes": [], "rationale": "Not stated.", "confidence": 0.5}
        return ModelReply(json.dumps(reply), self.model_id)

    def take(self) -> int:
        with self._lock:
            total, self.calls = sum(self.calls.values()), Counter()
        return total


def measure(dataset: str, limit: int | None, *, own_group: bool) -> dict[str, float]:
    """The figures of one split, with the pooled safe band or (`own_group`) the split's own group's."""
    records = load(dataset, "hold", limit)
    model = CountingModel()
    offline = OfflineVerifier()
    policy = DEFAULT.policy.model_copy(update={"calibration_group": f"{dataset}/hold" if own_group else None})
    bound = Cascade(offline, ModelVerifier(model)).bind(policy)
    assert isinstance(bound, CascadeVerifier), "the default constitution's route is the uncertain band"
    every = ModelVerifier(model)
    claims_total = sent = cascade_calls = every_calls = 0
    answers: Counter[str] = Counter()
    offline_cpu = 0.0
    for record in records:
        claims = extract_claims(record.answer, record.question)
        cpu = time.process_time()
        readings = offline.verify(claims, record.sources)
        offline_cpu += time.process_time() - cpu
        # The claims the cascade sends: below the band of the gate the answer's settled claims will meet.
        sending = dict(bound.uncertain(readings))
        reasons = [sending.get(i) for i in range(len(readings))]
        bound.verify(claims, record.sources)
        cascade_calls += model.take()
        every.verify(claims, record.sources)
        every_calls += model.take()
        claims_total += len(claims)
        sent += sum(reason is not None for reason in reasons)
        if any(reason is not None for reason in reasons):
            answers["model needed"] += 1
        elif all(r.state in (State.SUPPORTED, State.NOT_VERIFIABLE) for r in readings):
            answers["settled: released offline"] += 1
        else:
            answers["settled: a typed check decided"] += 1
    n = len(records)
    return {
        "answers": n, "claims": claims_total, "sent_share": sent / claims_total if claims_total else 0.0,
        "cascade_calls": cascade_calls / n, "every_calls": every_calls / n,
        "offline_cpu_ms": offline_cpu * 1000 / n, "band": bound.safe_threshold or 0.0,
        **{f"answers {key}": answers[key] / n for key in
           ("settled: released offline", "settled: a typed check decided", "model needed")},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="answers per split (default: all)")
    args = parser.parse_args()
    passed = True
    print(f"{'split':<16} {'band':>6} {'answers':>7} {'claims':>7} {'to model':>9} {'calls/answer':>13} "
          f"{'every claim':>12} {'offline ok':>10} {'vetoed':>7} {'model':>7} {'CPU ms':>7}")
    for dataset in DATASETS:
        for own_group in (False, True):
            figures = measure(dataset, args.limit, own_group=own_group)
            print(f"{dataset + '/hold':<16} {figures['band']:>6.3f} {figures['answers']:>7} {figures['claims']:>7} "
                  f"{figures['sent_share']:>9.1%} {figures['cascade_calls']:>13.2f} {figures['every_calls']:>12.2f} "
                  f"{figures['answers settled: released offline']:>10.1%} "
                  f"{figures['answers settled: a typed check decided']:>7.1%} "
                  f"{figures['answers model needed']:>7.1%} "
                  # The second pass reads texts the engine's per-text caches hold: its CPU time is no cost.
                  + (f"{'cached':>7}" if own_group else f"{figures['offline_cpu_ms']:>7.1f}"))
            passed &= figures["cascade_calls"] < figures["every_calls"]
    print("band: the offline release score at or above which a claim is settled, for the default constitution at "
          "the 5% budget: the pooled threshold, lowered to the threshold of the stratum the answer's settled "
          "claims are gated at where the calibration has strata; then the split's own group's "
          "(Policy.calibration_group). Calls: a question and a verification per claim sent.")
    print("PASS" if passed else "FAIL: the cascade did not make fewer model calls than every-claim verification")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
