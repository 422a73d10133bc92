"""How likely each word of a claim is to be the part the evidence does not say.

The unsupported part of a claim is usually a few words ("... and the only one dedicated to home
entertainment"); an average over the claim's words hides it. Each content word gets a probability
of being unsupported from a small logistic model over where (and how closely) the evidence has it,
how rare it is, and whether its neighbours in the claim are found. The weights are on the rules
scorer's card (`rules.json`), fitted by `benchmarks/fit_offline.py` on WiCE's token-level labels of the
unsupported part (train file only).
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

from verification.claims.tokens import NEGATION_WORDS, STOP_WORDS, stem
from verification.claims.view import ClaimView
from verification.retrieval.index import Hit, SourceIndex
from verification.scorers.card import RULES_CARD, CardUnreadable, logistic, read_card

TOKEN_FEATURES = (
    "in_best",
    "in_window",
    "near_window",
    "in_source",
    "prefix_in_window",
    "rarity",
    "is_name",
    "is_number",
    "pair_in_window",
    "neighbours_missing",
    "position",
)
"""What the token model reads about one word, in the order `token_vectors` measures it."""

TOKEN_WEIGHTS, TOKEN_BIAS = logistic(read_card(RULES_CARD)["token_model"], "rules, token_model")
"""The token model's weights and bias, from the rules scorer's card; a fit (or a test) may change them."""
if tuple(TOKEN_WEIGHTS) != TOKEN_FEATURES:
    raise CardUnreadable(f"model card rules, token_model: its features are not {', '.join(TOKEN_FEATURES)}")

_PREFIX = 5
"""Words sharing their first five letters count as a near match ("nominated" / "nomination")."""


class ClaimWord(NamedTuple):
    """One content word of a claim, as the token model sees it (a named tuple: one is made for every word of
    every claim checked, and a tuple is several times cheaper to make than a dataclass)."""

    stem: str
    """Its stem."""
    is_name: bool
    """Capitalised past the claim's first word."""
    is_number: bool
    """Starts with a digit."""


def token_vectors(claim_words: list[ClaimWord], hits: list[Hit], index: SourceIndex) -> list[tuple[float, ...]]:
    """The token model's input for each word of the claim, in order."""
    window = set().union(*(hit.passage.stem_set for hit in hits)) if hits else set()
    best = hits[0].passage.stem_set if hits else frozenset()
    near: set[str] = set(window)
    for hit in hits:
        for passage in index.neighbours(hit.passage):
            near |= passage.stem_set
    prefixes = {stem[:_PREFIX] for stem in window if len(stem) >= _PREFIX}
    pairs = set().union(*(hit.passage.bigrams for hit in hits))
    top_idf = index.idf("") or 1.0
    found = [word.stem in window for word in claim_words]
    last = max(1, len(claim_words) - 1)
    vectors: list[tuple[float, ...]] = []
    for i, word in enumerate(claim_words):
        before = claim_words[i - 1].stem if i else None
        after = claim_words[i + 1].stem if i + 1 < len(claim_words) else None
        around = [found[j] for j in (i - 2, i - 1, i + 1, i + 2) if 0 <= j < len(found)]
        vectors.append((
            float(word.stem in best),
            float(word.stem in window),
            float(word.stem in near),
            float(word.stem in index.vocabulary),
            float(len(word.stem) >= _PREFIX and word.stem[:_PREFIX] in prefixes),
            min(1.0, index.idf(word.stem) / top_idf),
            float(word.is_name),
            float(word.is_number),
            float((before, word.stem) in pairs or (word.stem, after) in pairs),
            (sum(1 for f in around if not f) / len(around)) if around else 0.0,
            i / last,
        ))
    return vectors


def _probability(vector: tuple[float, ...], weights: list[float]) -> float:
    # The same products summed in the same order as a generator would, without a frame per word.
    z = TOKEN_BIAS + sum(map(operator.mul, weights, vector))
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def claim_words(claim: ClaimView) -> list[tuple[ClaimWord, int]]:
    """The content words of a claim, in order, each once, with where each starts."""
    seen: set[str] = set()
    out = []
    claim_text = claim.text
    for word, start, _ in claim.words:
        if (word in STOP_WORDS or word in NEGATION_WORDS or len(word) < 2) and not word[:1].isdigit():
            continue
        key = stem(word)
        if key in seen:
            continue
        seen.add(key)
        out.append((ClaimWord(key, start > 0 and claim_text[start].isupper(), word[:1].isdigit()), start))
    return out


def unsupported_words(claim: ClaimView, hits: list[Hit], index: SourceIndex) -> list[float]:
    """Each content word's probability of being unsupported, in claim order."""
    words_ = [word for word, _ in claim_words(claim)]
    # The weights are read when asked (a fit or a test may change them), once per claim rather than per word.
    weights = [TOKEN_WEIGHTS[name] for name in TOKEN_FEATURES]
    return [_probability(vector, weights) for vector in token_vectors(words_, hits, index)]
