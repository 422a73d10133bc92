"""Retraining the learned scorer on an organisation's labels: what it gains on labels it never saw, and its time.

    .venv/bin/python benchmarks/retraining.py [--claims 1000] [--epochs 2] [--split tune|report]

The public tune splits stand in for an organisation: its reviewers' claim labels are WiCE `claim_dev` and
SummEdits `evaluation` (per claim, as `scorer.pairs` labels them: a summary's claim that no consistent
summary of the same document has is where the edit is). They go through the console's own split
(`verification.slice_of`, by a hash of each answer): 30% held out, a quarter of the rest to fit the new
model's stack, the rest to fine-tune its network; the run learns from `--claims` of them (network and
stack, drawn with a fixed seed). The run is the console's retraining job: `fine_tune`, `refit_stack`, then
every held-out claim verified again by the engine with each model (`scorer.comparison`), on 2 threads.

The held-out slice holds SummEdits answers the shipped network was trained on (the "fit" half by source)
or whose scores fitted the shipped stack and its calibration (the "hold" half): the comparison leans
towards the shipped model, never towards the retrained one.

Prints the run's wall and CPU time by stage, beside a reference measured in the same run on the same
machine (the engine verifying the held-out claims once with the shipped model), and old against new on the
held-out slice: AUROC over claims, then at the 5% budget the threshold the engine's calibration sets (95%
exact upper bound), automation and unsafe releases, pooled and per data set. Exits non-zero when the
retrained model is worse than the shipped one on the held-out slice (lower automation at the budget, or
lower AUROC: the rule promotion follows), or when the run takes longer than the retraining job's default
deadline (RETRAINING_TIME_LIMIT, 3600 s). `--split report` makes SummEdits `test` the organisation instead
(the report split: run it once, when the work is done, never to choose anything).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.claims.extraction import extract_claims  # noqa: E402
from verification.decision.offline import OfflineVerifier  # noqa: E402
from verification.decision.verifier import identity  # noqa: E402
from verification.retrieval.index import SourceIndex  # noqa: E402
from verification.scorers import learned_scorer  # noqa: E402
from verification.scorers.cross_encoder import MODEL_DIR  # noqa: E402
from verification.scorers.window import hypothesis, window_text  # noqa: E402
from verification.training.comparison import (  # noqa: E402
    HeldOutFigures,
    LabelledClaim,
    auroc_gap_bound,
    held_out_figures,
    not_worse,
    release_scores,
)
from verification.training.evaluation import Record, load  # noqa: E402
from verification.training.pairs import Pair, summedits_claim_labels  # noqa: E402
from verification.training.retraining import RetrainSettings, fine_tune  # noqa: E402
from verification.training.slices import slice_of  # noqa: E402
from verification.training.stack import refit as refit_stack  # noqa: E402

BUDGET = 0.05
DEADLINE_SECONDS = 3600
SEED = 29


def labelled_claims(split: str) -> Iterator[tuple[str, Record, str, str, bool]]:
    """(data set, record, claim, question, supported) for every labelled claim of the organisation: the tune
    splits, or (`report`) SummEdits `test`, the one report split here, run once when the work is done."""
    for record in load("wice", "tune") if split == "tune" else []:
        for claim in extract_claims(record.answer, record.question):
            yield "wice", record, claim.text, claim.context, record.supported
    summedits = load("summedits", split)
    labels = summedits_claim_labels(summedits)
    for record in summedits:
        for claim in extract_claims(record.answer, record.question):
            label = labels.get(record.id, {}).get(claim.text)
            if label is not None:
                yield "summedits", record, claim.text, claim.context, bool(label)


@contextmanager
def timed(into: dict[str, tuple[float, float]], stage: str) -> Iterator[None]:
    wall, cpu = time.perf_counter(), time.process_time()
    yield
    into[stage] = (time.perf_counter() - wall, time.process_time() - cpu)


def scored(folder: Path, claims: list[LabelledClaim]) -> tuple[list[float], str]:
    verifier = OfflineVerifier(learned_scorer(folder))
    return release_scores(verifier, claims), identity(verifier)


def row(name: str, figures: HeldOutFigures) -> str:
    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    threshold = f"{figures.threshold:.4f}" if figures.threshold is not None else "none"
    return (f"{name:<24} {figures.claims:>6} {figures.answers:>7} {figures.auroc or 0:>6.3f} {threshold:>9} "
            f"{share(figures.automation):>10} {share(figures.unsafe_rate):>7} {share(figures.unsafe_bound):>7}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1000, help="labelled claims the run trains on (default 1000)")
    parser.add_argument("--epochs", type=float, default=RetrainSettings.epochs)
    parser.add_argument("--split", choices=("tune", "report"), default="tune",
                        help="the organisation's labels: the tune splits (default), or SummEdits `test` (report)")
    args = parser.parse_args()
    if args.claims < 20:
        parser.error("--claims: at least 20")

    learn: list[tuple[str, LabelledClaim, Pair | None]] = []
    held: dict[str, list[LabelledClaim]] = {"wice": [], "summedits": []}
    for dataset, record, text, context, supported in labelled_claims(args.split):
        claim = LabelledClaim(answer=f"{dataset}:{record.id}", text=text, context=context,
                              sources=tuple(record.sources), supported=supported)
        part = slice_of(record.question, record.answer)
        if part == "held_out":
            held[dataset].append(claim)
            continue
        hits = SourceIndex(record.sources).select(text, 3)
        pair = Pair(window_text(hits), hypothesis(text, context), int(supported), f"org/{dataset}") if hits else None
        learn.append((part, claim, pair))
    random.Random(SEED).shuffle(learn)
    learn = learn[: args.claims]
    network = [pair for part, _, pair in learn if part == "network" and pair is not None]
    stack = [claim for part, claim, _ in learn if part == "stack"]
    every_held = held["wice"] + held["summedits"]
    print(f"labelled claims learnt from: {len(learn)} ({len(network)} for the network, {len(stack)} for the stack; "
          f"{sum(claim.supported for _, claim, _ in learn)} supported); held out: {len(every_held)} "
          f"(wice {len(held['wice'])}, summedits {len(held['summedits'])})")

    times: dict[str, tuple[float, float]] = {}
    work = Path(tempfile.mkdtemp(prefix="retraining-benchmark-"))
    try:
        # Warm-up: the shipped model loaded and a few claims verified, so the reference is not a cold start.
        scored(MODEL_DIR, every_held[:20])
        with timed(times, "reference: held-out verified, shipped model"):
            old_scores, old_identity = scored(MODEL_DIR, every_held)
        with timed(times, "fine-tune and export"):
            figures = fine_tune(base=MODEL_DIR, pairs=network, output=work / "model", work=work / "checkpoints",
                                settings=RetrainSettings(epochs=args.epochs))
        with timed(times, "stack refitted"):
            stack_fit = refit_stack(work / "model", stack)
        with timed(times, "held-out verified, new model"):
            new_scores, new_identity = scored(work / "model", every_held)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    training = figures["training"]
    print(f"training: {training['organisation_pairs']} organisation pairs + {training['replay_pairs']} replay, "
          f"{training['steps']} steps of {RetrainSettings.batch_size}; stack: {stack_fit}")
    print(f"{'stage':<46} {'wall s':>8} {'CPU s':>8}")
    for stage, (wall, cpu) in times.items():
        print(f"{stage:<46} {wall:>8.1f} {cpu:>8.1f}")
    total = sum(wall for stage, (wall, _) in times.items() if not stage.startswith("reference"))
    reference = times["reference: held-out verified, shipped model"][0]
    print(f"the run for {len(learn)} labelled claims: {total:.0f} s wall ({total / reference:.1f}x the reference)")

    print(f"\nheld out, at a {BUDGET:.0%} budget (95% exact upper bound)")
    print(f"{'model / slice':<24} {'claims':>6} {'answers':>7} {'AUROC':>6} {'threshold':>9} {'automation':>10} "
          f"{'unsafe':>7} {'bound':>7}")
    offsets = {"wice": (0, len(held["wice"])), "summedits": (len(held["wice"]), len(every_held))}
    results: dict[str, dict[str, HeldOutFigures]] = {}
    for side, scores, verifier in (("shipped", old_scores, old_identity), ("retrained", new_scores, new_identity)):
        results[side] = {"pooled": held_out_figures(every_held, scores, budget=BUDGET, verifier=verifier)}
        for dataset, (start, end) in offsets.items():
            results[side][dataset] = held_out_figures(every_held[start:end], scores[start:end], budget=BUDGET,
                                                      verifier=verifier)
    for slice_name in ("pooled", *(name for name in ("wice", "summedits") if held[name])):
        for side in ("shipped", "retrained"):
            print(row(f"{side} / {slice_name}", results[side][slice_name]))
    gap = auroc_gap_bound(every_held, old_scores, new_scores)
    ok, verdict = not_worse(results["shipped"]["pooled"], results["retrained"]["pooled"], gap)
    print(f"\npooled: {verdict}")
    failed = not ok or total > DEADLINE_SECONDS
    if total > DEADLINE_SECONDS:
        print(f"FAIL: the run took {total:.0f} s, past the retraining job's default deadline of {DEADLINE_SECONDS} s")
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
