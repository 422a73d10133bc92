"""What a piece of text commits to: typed values a source can confirm or contradict.

A claim that says "refunds within 60 days" is wrong against a source that says "within 30 days"
even though nearly every word matches; lexical overlap cannot see that, typed values can. Each
`Mention` carries a normalised value so two mentions of the same kind can be compared: money in
base units of its currency, durations in days, percentages as numbers, dates as (year, month, day).

A value also plays a role. "bought 40 days ago" is an elapsed time and "within 30 days" a window: they
are different quantities, so they never disagree, and the window decides by arithmetic whether it
applies (40 > 30, so "after 30 days" does). The two ends of "5 to 10 business days" are one range, not
two values to be matched one by one; "$20 per user per month" is a rate that equals "$240 per user per
year"; "lifetime" and "unlimited" are values too, with no end.

One module per reading: `values` (and `compare`, which compares them), `names`, `relations`; `mention`
holds the `Mention` they all return. Their patterns and word lists change verdicts, so a change to any of
them bumps the version of the stages that read them in `offline.CHECKS` (the verifier's fingerprint).
"""

from __future__ import annotations

from functools import lru_cache

from verification.claims.commitments.compare import agree, comparable, contradicts, grounds, value_words
from verification.claims.commitments.mention import Mention
from verification.claims.commitments.names import _entities, entity_key, find_names
from verification.claims.commitments.relations import _find_relations, find_relations
from verification.claims.commitments.values import (
    BY_POSITION,
    LIMITS,
    MONTHS,
    VALUE_KINDS,
    WORD_NUMBERS,
    _find_values,
    limit_words,
)
from verification.claims.tokens import NEGATION_WORDS, TEXT_CACHE_SIZE, words
from verification.types import Commitment

__all__ = [
    "LIMITS", "MONTHS", "VALUE_KINDS", "WORD_NUMBERS", "Mention", "agree", "comparable", "contradicts", "entity_key",
    "find_commitments", "find_mentions", "find_names", "find_relations", "find_values", "grounds", "limit_words",
    "value_words",
]


def find_mentions(text: str) -> list[Mention]:
    """Every typed value, entity, relation and negation in `text`, ordered by position."""
    return list(_find_mentions(text))


def find_values(text: str) -> list[Mention]:
    """The mentions of `text` that are values (kinds in VALUE_KINDS), ordered by position.

    The same values `find_mentions` has; comparing a claim's values with a sentence's needs no more,
    and most sentences of a case are read only for that.
    """
    return list(_find_values(text)[0])


# A case compares the mentions of a claim and of its sentences many times over; each text is read once.
# Mentions are frozen and the caches hold tuples, so no caller can change what another one reads.
@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _find_mentions(text: str) -> tuple[Mention, ...]:
    values, taken = _find_values(text)
    mentions = [*values, *_entities(text, taken), *_find_relations(text)]
    mentions.extend(
        Mention("negation", text[start:end], start, end) for word, start, end in words(text)
        if word in NEGATION_WORDS
    )
    return tuple(sorted(mentions, key=BY_POSITION))


def find_commitments(text: str) -> list[Commitment]:
    """The public form of `find_mentions`."""
    return [mention.to_commitment() for mention in find_mentions(text)]
