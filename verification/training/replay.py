"""The replay sample: a few thousand pairs of the public training mix, shipped with the engine.

Retraining the scorer on one organisation's labels alone would let it forget what the public mix taught it
(it would learn that organisation's windows and little else), so every retraining batch mixes in pairs of
that mix. A deployment does not have the public data (they live beside the repository, in `shared/data`),
so a fixed sample of them travels with the engine: `replay.jsonl.gz`, one JSON object a line with
"premise", "claim", "label" and "origin". `python -m verification replay-sample` builds it again from the
data, the same bytes from the same data and seed. What it holds and under which licences: REPLAY.md.
"""

from __future__ import annotations

import gzip
import io
import json
import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from verification.errors import PermanentError
from verification.training import fine_tune as training
from verification.training.pairs import Pair, training_pairs

REPLAY_FILE = Path(__file__).with_name("replay.jsonl.gz")
SIZE = 4000
"""How many pairs the shipped sample holds."""
SEED = 13


class ReplayUnavailable(PermanentError):
    """The replay sample is missing or unreadable; the message names the file."""


def build(output: Path = REPLAY_FILE, *, size: int = SIZE, seed: int = SEED,
          pairs: Sequence[Pair] | None = None) -> dict[str, dict[str, int]]:
    """Write a sample of `size` training pairs (by default of `pairs.training_pairs()`, validation pairs never)
    to `output`; returns how many it took per origin and label (`training.counts`)."""
    pool = [pair for pair in (training_pairs() if pairs is None else pairs) if not pair.validation]
    sample = _stratified(pool, size, seed)
    buffer = io.BytesIO()
    # No file name and no time in the gzip header: the same sample is the same bytes.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as packed:
        for pair in sample:
            line = {"premise": pair.premise, "claim": pair.claim, "label": pair.label, "origin": pair.origin}
            packed.write((json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(buffer.getvalue())
    return training.counts(sample)


def _stratified(pool: Sequence[Pair], size: int, seed: int) -> list[Pair]:
    """`size` pairs of `pool` (all of them if it has fewer), drawn from the seed within each (origin, label)
    stratum, each stratum's share as large as its share of what the shipped model trained on: the tune
    splits' windows count `tune_repeats` times, as `train-scorer` saw them."""
    strata: dict[tuple[str, int], list[Pair]] = defaultdict(list)
    for pair in pool:
        strata[(pair.origin, pair.label)].append(pair)
    repeats = training.Settings().tune_repeats
    weights = {key: len(pairs) * (1 if key[0].startswith("nli/") else repeats) for key, pairs in strata.items()}
    quotas = _shares(weights, {key: len(pairs) for key, pairs in strata.items()}, min(size, len(pool)))
    rng = random.Random(seed)
    sample: list[Pair] = []
    for key in sorted(strata):
        sample.extend(rng.sample(strata[key], quotas[key]))
    return sample


def _shares(weights: dict[tuple[str, int], int], caps: dict[tuple[str, int], int],
            size: int) -> dict[tuple[str, int], int]:
    """`size` dealt out in proportion to `weights` (largest remainders), none above its cap; what a capped
    stratum cannot take goes to the others."""
    quotas = dict.fromkeys(weights, 0)
    open_keys = sorted(weights)
    left = size
    while left > 0 and open_keys:
        total = sum(weights[key] for key in open_keys)
        exact = {key: left * weights[key] / total for key in open_keys}
        whole = {key: int(exact[key]) for key in open_keys}
        rest = left - sum(whole.values())
        for key in sorted(open_keys, key=lambda k: (whole[k] - exact[k], k))[:rest]:
            whole[key] += 1
        for key in open_keys:
            quotas[key] += min(whole[key], caps[key] - quotas[key])
        left = size - sum(quotas.values())
        open_keys = [key for key in open_keys if quotas[key] < caps[key]]
    return quotas


def load(path: Path = REPLAY_FILE) -> list[Pair]:
    """The replay sample's pairs, in the file's order."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines if line.strip()]
        return [Pair(row["premise"], row["claim"], int(row["label"]), row["origin"]) for row in rows]
    except FileNotFoundError:
        raise ReplayUnavailable(f"replay sample missing: {path}; build it with python -m verification "
                                "replay-sample") from None
    except (OSError, EOFError, ValueError, KeyError, TypeError) as error:
        raise ReplayUnavailable(f"replay sample unreadable: {path} ({type(error).__name__})") from error
