"""A scorer's model card: its parameters, what it was fitted on and the figures it reached, kept as one
JSON file beside the scorer. Loading reads the parameters from the card; nothing is pasted into code."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verification.errors import PermanentError

RULES_CARD = Path(__file__).with_name("rules.json")
"""The rules-only scorer's card (its logistic weights and the token model's), as shipped."""


class CardUnreadable(PermanentError):
    """A model card that is missing, not JSON, or lacks a parameter; the message names the file and the field."""


def read_card(path: Path) -> dict[str, Any]:
    """The card's contents; CardUnreadable names a missing or unreadable file."""
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CardUnreadable(f"model card unreadable: {path} ({type(error).__name__})") from error
    if not isinstance(card, dict):
        raise CardUnreadable(f"model card unreadable: {path} (not a JSON object)")
    return card


def write_card(card: Mapping[str, Any], path: Path) -> None:
    """Write the card, whole or not at all: a half-written card never replaces a good one."""
    staged = path.with_name(path.name + ".tmp")
    staged.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    staged.replace(path)


def logistic(card: Mapping[str, Any], where: str) -> tuple[dict[str, float], float]:
    """The weights (by feature, in the card's feature order) and bias of a logistic model on a card."""
    try:
        features = list(card["features"])
        weights = {name: float(card["weights"][name]) for name in features}
        return weights, float(card["bias"])
    except (KeyError, TypeError, ValueError) as error:
        raise CardUnreadable(f"model card {where}: a logistic model needs features, weights and bias ({error!r})") \
            from error
