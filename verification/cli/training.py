"""`python -m verification train-scorer`, `retrain-scorer` and `replay-sample`, and the `--scorer` option of the
commands that verify. Each command imports `verification.training` when it runs, never before: the CLI that
checks cases loads nothing of training."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verification.scorers import SCORERS

if TYPE_CHECKING:
    from verification.training.pairs import Pair


_SHIPPED_MODEL = Path(__file__).parents[1] / "scorers" / "model"
_REPLAY_FILE = Path(__file__).parents[1] / "training" / "replay.jsonl.gz"


def add_scorer_option(parser: argparse.ArgumentParser) -> None:
    """`--scorer learned|rules` on a command that runs the offline verifier."""
    parser.add_argument("--scorer", choices=SCORERS, default=None,
                        help="the offline verifier's scorer: learned (the default, the MiniLM cross-encoder) or "
                        "rules (word overlap only, the fastest); default: VERIFICATION_SCORER, else learned")


def add_train_command(commands: Any) -> None:
    """The scorer's training subcommands (train-scorer, retrain-scorer, replay-sample), on the CLI's subparsers."""
    train = commands.add_parser(
        "train-scorer", help="fine-tune the learned scorer's cross-encoder and export it (needs the train extra)",
        description="Fine-tunes the bundled MiniLM on the labelled pairs beside the project (data/nli and the tune "
        "splits' training halves), exports it to int8 ONNX and writes its figures and model card. Deterministic "
        "from --seed; run the same command again to resume from the last checkpoint in --work.",
    )
    train.add_argument("--output", default=str(_SHIPPED_MODEL), metavar="DIR",
                       help="where the model, its tokenizer, figures and card go (default: the shipped model's folder)")
    _add_run_arguments(train, work="var/scorer-training", epochs=1.0, over="the pairs")
    train.add_argument("--limit", type=int, metavar="N", help="train on the first N shuffled pairs only")
    train.set_defaults(run=_train_scorer)

    retrain = commands.add_parser(
        "retrain-scorer", help="fine-tune a scorer model on an organisation's labelled pairs (needs the train extra)",
        description="Fine-tunes the int8 model in --base on the pairs of --pairs, mixed with the replay sample of the "
        "public training mix, and exports it to --output as the shipped model is (model.int8.onnx, tokenizer.json, "
        "figures.json); prints the figures. Deterministic from --seed; run it again to resume from --work.",
    )
    retrain.add_argument("--pairs", required=True, metavar="ORG.jsonl",
                         help="one JSON object a line: \"window\", \"claim\", \"label\" (1 = the window supports the "
                         "claim, 0 = not), optionally \"question\" (the claim is then read after it)")
    retrain.add_argument("--base", required=True, metavar="DIR",
                         help=f"the model to start from (the shipped one is {_SHIPPED_MODEL})")
    retrain.add_argument("--output", required=True, metavar="DIR", help="where the new model goes (not --base)")
    _add_run_arguments(retrain, work="var/scorer-retraining", epochs=2.0, over="the organisation's pairs")
    retrain.set_defaults(run=_retrain_scorer)

    sample = commands.add_parser(
        "replay-sample", help="build the replay sample of the public training mix that retrain-scorer mixes in",
        description="A fixed-seed sample of train-scorer's training pairs (see verification/training/REPLAY.md), from "
        "VERIFICATION_DATA_DIR (else shared/data); the same data and seed give the same bytes. Prints its counts.",
    )
    sample.add_argument("--size", type=int, default=4000, metavar="N", help="pairs in the sample (default 4000)")
    sample.add_argument("--output", default=str(_REPLAY_FILE), metavar="FILE",
                        help="where it goes (default: the shipped sample)")
    sample.add_argument("--seed", type=int, default=13)
    sample.set_defaults(run=_replay_sample)


def _add_run_arguments(parser: argparse.ArgumentParser, *, work: str, epochs: float, over: str) -> None:
    """--work, --seed and --epochs of a training command."""
    parser.add_argument("--work", default=work, metavar="DIR", help="checkpoints (default %(default)s)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--epochs", type=float, default=epochs, help=f"passes over {over} (default {epochs:g})")


def _train_scorer(args: argparse.Namespace) -> int:
    from verification.cli import InputError
    from verification.training import fine_tune as training

    if not args.epochs > 0:
        raise InputError(f"--epochs: must be above 0, got {args.epochs}")
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit: must be at least 1, got {args.limit}")
    _require_training_extra("train-scorer")
    settings = training.Settings(seed=args.seed, epochs=args.epochs, limit=args.limit)
    figures = training.train(Path(args.output), Path(args.work), settings)
    print(json.dumps(figures["validation"], indent=1))
    return 0


def _require_training_extra(command: str) -> None:
    from verification.cli import InputError
    from verification.training.extra import NEEDS

    missing = [name for name in NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        raise InputError(f"{command}: needs the training extra ({', '.join(missing)} missing): "
                         "pip install -e '.[train]'")


def _retrain_scorer(args: argparse.Namespace) -> int:
    from verification.cli import InputError
    from verification.scorers.cross_encoder import ModelUnavailable
    from verification.training import retraining

    if not args.epochs > 0:
        raise InputError(f"--epochs: must be above 0, got {args.epochs}")
    pairs = read_pairs(Path(args.pairs))
    _require_training_extra("retrain-scorer")
    from tqdm import tqdm

    bars: list[Any] = []

    def progress(step: int, total: int) -> None:
        # Shown from the first step (or the step resumed from): nothing at all for a run refused before it.
        if not bars:
            bars.append(tqdm(total=total, initial=step, desc="retrain-scorer", unit="batch", file=sys.stderr))
        bars[0].update(step - bars[0].n)

    try:
        figures = retraining.fine_tune(base=Path(args.base), pairs=pairs, output=Path(args.output),
                                       work=Path(args.work), progress=progress,
                                       settings=retraining.RetrainSettings(seed=args.seed, epochs=args.epochs))
    except retraining.RetrainingRefused as error:
        raise InputError(str(error)) from None
    except ModelUnavailable as error:
        raise InputError(f"--base: {error}") from None
    finally:
        for bar in bars:
            bar.close()
    print(json.dumps(figures, indent=1))
    return 0


def read_pairs(path: Path) -> list[Pair]:
    """The labelled pairs of an ORG.jsonl file (`retrain-scorer --pairs`), each a `pairs.Pair` of origin
    "org/<file name>"; InputError naming the line and the field of the first bad line, or an empty file."""
    from verification.cli import InputError, json_lines
    from verification.scorers.window import hypothesis
    from verification.training.pairs import Pair

    origin = f"org/{path.stem}"
    pairs = []
    for where, data in json_lines(str(path), "a pair"):
        for field in ("window", "claim"):
            if not isinstance(data.get(field), str) or not data[field].strip():
                raise InputError(f"{where}{field}: required, a non-empty string")
        label = data.get("label")
        if label not in (0, 1) or isinstance(label, float):
            raise InputError(f"{where}label: required, 1 (the window supports the claim) or 0 (it does not)")
        question = data.get("question", "")
        if not isinstance(question, str):
            raise InputError(f"{where}question: must be a string")
        pairs.append(Pair(data["window"].strip(), hypothesis(data["claim"].strip(), question.strip()), int(label),
                          origin))
    if not pairs:
        raise InputError(f"{path}: no pairs")
    return pairs


def _replay_sample(args: argparse.Namespace) -> int:
    from verification.cli import InputError
    from verification.training import replay
    from verification.training.evaluation import DatasetUnavailable, data_dir

    if args.size < 1:
        raise InputError(f"--size: must be at least 1, got {args.size}")
    try:
        counts = replay.build(Path(args.output), size=args.size, seed=args.seed)
    except FileNotFoundError as error:
        raise InputError(f"replay-sample: the public data are not in {data_dir()} ({error.filename} missing); "
                         "set VERIFICATION_DATA_DIR") from None
    except DatasetUnavailable as error:
        raise InputError(f"replay-sample: {error}; set VERIFICATION_DATA_DIR") from None
    print(json.dumps(counts, indent=1))
    return 0
