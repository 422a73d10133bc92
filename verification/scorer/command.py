"""`python -m verification train-scorer`, and the `--scorer` option of the commands that verify."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path
from typing import Any

from verification.scorer import SCORERS


def add_scorer_option(parser: argparse.ArgumentParser) -> None:
    """`--scorer learned|rules` on a command that runs the offline verifier."""
    parser.add_argument("--scorer", choices=SCORERS, default=None,
                        help="the offline verifier's scorer: learned (the default, the MiniLM cross-encoder) or "
                        "rules (word overlap only, the fastest); default: VERIFICATION_SCORER, else learned")


def add_train_command(commands: Any) -> None:
    """The train-scorer subcommand, on the CLI's subparsers."""
    train = commands.add_parser(
        "train-scorer", help="fine-tune the learned scorer's cross-encoder and export it (needs the train extra)",
        description="Fine-tunes the bundled MiniLM on the labelled pairs beside the project (data/nli and the tune "
        "splits' training halves), exports it to int8 ONNX and writes its figures and model card. Deterministic "
        "from --seed; run the same command again to resume from the last checkpoint in --work.",
    )
    train.add_argument("--output", default=str(Path(__file__).parent / "model"), metavar="DIR",
                       help="where the model, its tokenizer, figures and card go (default: the shipped model's folder)")
    train.add_argument("--work", default="var/scorer-training", metavar="DIR", help="checkpoints (default %(default)s)")
    train.add_argument("--seed", type=int, default=13)
    train.add_argument("--epochs", type=float, default=1.0, help="passes over the pairs (default 1)")
    train.add_argument("--limit", type=int, metavar="N", help="train on the first N shuffled pairs only")
    train.set_defaults(run=_train_scorer)


def _train_scorer(args: argparse.Namespace) -> int:
    from verification.cli import InputError
    from verification.scorer import training

    if not args.epochs > 0:
        raise InputError(f"--epochs: must be above 0, got {args.epochs}")
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit: must be at least 1, got {args.limit}")
    missing = [name for name in training.NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        raise InputError(f"train-scorer: needs the training extra ({', '.join(missing)} missing): "
                         "pip install -e '.[train]'")
    settings = training.Settings(seed=args.seed, epochs=args.epochs, limit=args.limit)
    figures = training.train(Path(args.output), Path(args.work), settings)
    print(json.dumps(figures["validation"], indent=1))
    return 0
