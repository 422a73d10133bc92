"""Retrain a scorer model on an organisation's labelled pairs, starting from the model it runs now.

    python -m verification retrain-scorer --pairs ORG.jsonl --base DIR --output DIR [--work DIR]

The starting point is an int8 ONNX scorer (the shipped one, or an earlier retrained one in a folder of the
same files), turned back into a float model (`dequantize.float_model`, checked against the file it came
from). It is fine-tuned on the organisation's pairs, each epoch mixed with a
fresh draw of the replay sample of the public mix (`replay.py`), so that it learns the organisation's
windows without forgetting the rest, computing with its weights rounded as the int8 file will hold them
(`_on_grid`: a small update would otherwise be rounded away at export), then exported exactly as
`train-scorer` exports (int8, weights stored unsigned, the tokenizer, figures.json). Deterministic from the
seed; checkpoints in `work`, so the same call resumes where an interrupted one stopped. Needs the training
extra, as `train-scorer` does.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verification.errors import PermanentError
from verification.scorers import cross_encoder
from verification.scorers.window import HYPOTHESIS
from verification.training import dequantize, replay
from verification.training import fine_tune as training
from verification.training.pairs import Pair

MAX_DEQUANTISATION_DIFFERENCE = 0.08
"""Largest mean |probability difference| between the dequantised base and its int8 file that is taken for
quantisation error (about 0.02 on the shipped model); above it a weight went to the wrong place."""


class RetrainingRefused(PermanentError):
    """Pairs or settings retraining cannot start from (none, one label only, a base that is also the output);
    the message names what."""


class DequantisationMismatch(PermanentError):
    """The float model rebuilt from the base file reads pairs unlike the file itself: it is not the same model."""


@dataclass(frozen=True)
class RetrainSettings(training.Steps):
    """What a retraining run is made of (the training loop's settings, see `training.Steps`, and those below);
    written into the new model's figures."""

    epochs: float = 2.0
    """Passes over the organisation's pairs; a fraction trains on that share of the last pass."""
    learning_rate: float = 5e-5
    """AdamW's peak rate. The weight matrices learn in int8 steps (`_on_grid`): at 2e-5 a run of 188 steps on
    1,000 pairs hardly moved one (held-out AUROC 0.607, the base's 0.608), at 5e-5 they moved (0.663), and
    the public validation pairs read as well as before (NLI AUROC 0.929, then 0.931)."""
    checkpoint_every: int = 50
    """Steps between checkpoints (one is written after the last step too)."""
    replay_per_pair: float = 2.0
    """Replay pairs mixed into each epoch per organisation pair; at most the whole sample."""
    check_pairs: int = 200
    """Pairs (organisation and replay) the dequantised base and the int8 export are checked on."""


def fine_tune(*, base: Path, pairs: Sequence[Pair], output: Path, work: Path, settings: RetrainSettings,
              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Fine-tune the model in `base` on `pairs` (those marked `validation` are only measured, never trained
    on) mixed with the replay sample, export it to `output` and write its figures.json; returns the figures.

    `progress(step, total)` is called after every step, and once with the step resumed from when a checkpoint
    in `work` is taken up. RetrainingRefused: no pairs to train on, pairs of one label, `output` = `base`;
    ModelUnavailable: no readable model in `base`; ReplayUnavailable: no replay sample; UnmappedWeight or
    DequantisationMismatch: the base file is not a model this code can rebuild."""
    import torch

    trained = [pair for pair in pairs if not pair.validation]
    held = [pair for pair in pairs if pair.validation]
    _refuse(trained, held, base, output, settings)
    start = cross_encoder.CrossEncoder(base)
    sample = replay.load()
    plan = _plan(trained, sample, start.tokenizer, settings)
    check = random.Random(settings.seed).sample(trained + sample, min(settings.check_pairs, len(trained + sample)))

    torch.manual_seed(settings.seed)
    torch.set_num_threads(2)
    model = dequantize.float_model(base / cross_encoder.MODEL_FILE)
    dequantised = dequantize.agreement(model, base, check)
    mean = dequantised["mean_abs_probability_difference"]
    if mean is not None and mean > MAX_DEQUANTISATION_DIFFERENCE:
        raise DequantisationMismatch(f"{base / cross_encoder.MODEL_FILE}: the float model rebuilt from it reads "
                                     f"pairs {mean} apart in probability on average (quantisation error is about "
                                     "0.02): a weight is in the wrong place")
    key = {"settings": settings.__dict__, "base_sha256": start.sha256, "pairs_sha256": _digest(pairs),
           "replay_sha256": _digest(sample)}
    _on_grid(model)
    seconds = training.fit(model, plan.examples, plan.encodings, plan.order, work, settings, key=key,
                           progress=progress)
    _off_grid(model)

    quantised = training.export_int8(model, output, base / cross_encoder.TOKENIZER_FILE)
    float_logits, int8_logits = training.compared(model, quantised, check)
    seen = {plan.sources[i] for batch in plan.order for i in batch}
    seen_pairs = [trained[number] if kind == "org" else sample[number] for kind, number in sorted(seen)]
    figures: dict[str, Any] = {
        "hypothesis": HYPOTHESIS,
        "sha256": quantised.sha256,
        "base_sha256": start.sha256,
        "settings": settings.__dict__,
        "training": {
            "pairs": len(seen),
            "organisation_pairs": sum(kind == "org" for kind, _ in seen),
            "replay_pairs": sum(kind == "replay" for kind, _ in seen),
            "examples": sum(len(batch) for batch in plan.order),
            "steps": len(plan.order),
            "seconds": round(seconds.total, 1),
            "seconds_this_run": round(seconds.this_run, 1),
            "by_origin": training.counts(seen_pairs),
        },
        "int8_against_float": {"pairs": len(check), **training.differences(int8_logits, float_logits)},
        "base_dequantised_against_int8": dequantised,
    }
    if held:
        held_float, held_int8 = training.compared(model, quantised, held)
        held_base = start.run([(pair.premise, pair.claim) for pair in held])
        figures["validation"] = training.by_origin(held, {"base": held_base, "int8": held_int8, "float": held_float})
    (output / "figures.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return figures


def _on_grid(model: Any) -> None:
    """Train the weight matrices as the int8 file will hold them, and leave the embedding tables as they are.

    Each linear layer computes with its weight rounded to the int8 grid the export will put it on (symmetric,
    one step per output channel: the largest weight of the channel over 127), while the gradient updates the
    float weight underneath as if unrounded (the straight-through estimator). Without it the export undid
    the training: a fine-tuning at a small rate moves a weight by far less than half a step, so rounding put
    nearly every weight back where it was (measured on 1,000 pairs: the float model's log loss on held-out
    windows fell from 1.00 to 0.80, the exported int8 model's only to 0.997). The biases and LayerNorms are
    stored in float and keep every update as they are. The embedding tables share one step per table, so an
    update would not survive rounding either: they are frozen."""
    import torch
    from torch.nn.utils import parametrize

    class OnGrid(torch.nn.Module):
        def forward(self, weight: torch.Tensor) -> torch.Tensor:
            step = weight.detach().abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / 127
            return weight + (torch.round(weight.detach() / step).clamp(-127, 127) * step - weight.detach())

    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            parametrize.register_parametrization(module, "weight", OnGrid())
        elif isinstance(module, torch.nn.Embedding):
            module.weight.requires_grad_(False)


def _off_grid(model: Any) -> None:
    """Each linear layer's weight set to its rounded value, the one the int8 export keeps exactly."""
    import torch
    from torch.nn.utils import parametrize

    for module in model.modules():
        if isinstance(module, torch.nn.Linear) and parametrize.is_parametrized(module, "weight"):
            parametrize.remove_parametrizations(module, "weight", leave_parametrized=True)


def _refuse(trained: Sequence[Pair], held: Sequence[Pair], base: Path, output: Path,
            settings: RetrainSettings) -> None:
    """RetrainingRefused, naming what, when there is nothing sound to train."""
    if not trained:
        also = f" ({len(held)} are marked validation, which is only measured)" if held else ""
        raise RetrainingRefused(f"pairs: none to train on{also}")
    labels = {pair.label for pair in trained}
    if not labels <= {0, 1}:
        raise RetrainingRefused(f"pairs: labels must be 1 (supported) or 0 (not), found {sorted(labels - {0, 1})}")
    if len(labels) < 2:
        name = "1 (supported)" if labels == {1} else "0 (not supported)"
        raise RetrainingRefused(f"pairs: every one of the {len(trained)} pairs is labelled {name}; retraining needs "
                                "pairs of both labels")
    if output.resolve() == base.resolve():
        raise RetrainingRefused(f"output: {output} is the base model's folder; write the new model elsewhere")
    for name, value in (("epochs", settings.epochs), ("batch_size", settings.batch_size),
                        ("learning_rate", settings.learning_rate), ("checkpoint_every", settings.checkpoint_every)):
        if not value > 0:
            raise RetrainingRefused(f"settings: {name} must be above 0, got {value}")
    if settings.replay_per_pair < 0:
        raise RetrainingRefused(f"settings: replay_per_pair must be 0 or more, got {settings.replay_per_pair}")


@dataclass(frozen=True)
class _Plan:
    """What a run trains on, step by step."""

    examples: list[Pair]
    """Every epoch's pairs, one after the other."""
    sources: list[tuple[str, int]]
    """Where each example came from: ("org", its number among the organisation's pairs) or ("replay", its
    number in the sample)."""
    encodings: list[Any]
    """Each example tokenised."""
    order: list[list[int]]
    """The batches, as indices into `examples`, in the order they are trained on."""


def _plan(trained: Sequence[Pair], sample: Sequence[Pair], tokenizer: Any, settings: RetrainSettings) -> _Plan:
    """Every epoch: the organisation's pairs and that epoch's draw of the replay sample, shuffled together from
    the seed, in batches of similar length.

    Each epoch draws replay pairs the earlier ones did not, as long as the sample lasts: more of the public
    mix is replayed, and no replay pair is learnt by heart."""
    per_epoch = min(round(settings.replay_per_pair * len(trained)), len(sample))
    drawn = random.Random(settings.seed).sample(range(len(sample)), len(sample))
    plan = _Plan(examples=[], sources=[], encodings=[], order=[])
    for epoch in range(math.ceil(settings.epochs)):
        block = [("org", number) for number in range(len(trained))]
        block += [("replay", drawn[(epoch * per_epoch + i) % len(sample)]) for i in range(per_epoch)]
        random.Random(settings.seed + epoch).shuffle(block)
        pairs = [trained[number] if kind == "org" else sample[number] for kind, number in block]
        encodings = tokenizer.encode_batch([(pair.premise, pair.claim) for pair in pairs])
        offset = len(plan.examples)
        share = min(1.0, settings.epochs - epoch)
        lengths = [len(encoding.ids) for encoding in encodings]
        plan.order.extend([offset + i for i in batch]
                          for batch in training.batches(lengths, settings.batch_size, settings.seed + epoch, share))
        plan.examples.extend(pairs)
        plan.sources.extend(block)
        plan.encodings.extend(encodings)
    return plan


def _digest(pairs: Sequence[Pair]) -> str:
    """A hash of the pairs' content, in order: a checkpoint is resumed only for the pairs it was trained on."""
    digest = hashlib.sha256()
    for pair in pairs:
        digest.update(json.dumps([pair.premise, pair.claim, pair.label, pair.origin, pair.validation]).encode())
    return digest.hexdigest()
