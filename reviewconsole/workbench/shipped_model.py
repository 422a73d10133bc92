"""The model this release ships (`verification/scorers/model/`), as its card and figures say: what it is,
what it was trained on, and how it did on pairs it never saw. Read from the files beside the model, so the
scorer page shows them on any machine, the training extra installed or not."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from verification import SHIPPED_MODEL_DIR

CARD_FILE, FIGURES_FILE = "MODEL_CARD.md", "figures.json"


@dataclass(frozen=True)
class ValidationRow:
    origin: str
    pairs: int
    auroc: float
    """AUROC of the shipped (int8) model on pairs of this origin it never trained on."""


@dataclass(frozen=True)
class ShippedModel:
    sha256: str
    base_model: str
    """The card's "base model" line: the model fine-tuned, its size and licence."""
    training_pairs: int
    training_supported: int
    training_not_supported: int
    validation: tuple[ValidationRow, ...]
    int8_mean_probability_difference: float | None
    card: str
    """The whole model card (Markdown source), data sets and licences included."""


def shipped_model(folder: Path = SHIPPED_MODEL_DIR) -> ShippedModel | None:
    """The shipped model's card and figures; None where the release has no model folder (a rules-only build)."""
    return _read(folder)


@cache
def _read(folder: Path) -> ShippedModel | None:
    try:
        figures = json.loads((folder / FIGURES_FILE).read_text(encoding="utf-8"))
        card = (folder / CARD_FILE).read_text(encoding="utf-8")
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    training = figures.get("training") or {}
    by_origin = (training.get("by_origin") or {}).values()
    base = next((line.split(":", 1)[1].strip() for line in card.splitlines() if line.startswith("- base model:")), "")
    return ShippedModel(
        sha256=str(figures.get("sha256", "")),
        base_model=base,
        training_pairs=int(training.get("pairs", 0)),
        training_supported=sum(int(counts.get("supported", 0)) for counts in by_origin),
        training_not_supported=sum(int(counts.get("not_supported", 0)) for counts in by_origin),
        validation=tuple(
            ValidationRow(origin, int(row["pairs"]), float(row["auroc_int8"]))
            for origin, row in sorted((figures.get("validation") or {}).items())
        ),
        int8_mean_probability_difference=(figures.get("int8_against_float") or {}).get(
            "mean_abs_probability_difference"),
        card=card,
    )
