"""What a value is said of: the words that tell which quantity it measures.

Two values of one unit need not be one quantity: "6 months" one must have worked to qualify for leave
and the "16 weeks" the leave lasts are both durations; "within 30 days" for refunds and "5 to 10 business
days" for delivery are both spans of days. Which quantity a value is comes from what it is said of: the
content words before it in its own clause, back to a value of the same sort before it ("worked" of "must
have worked for 6 months"; "closes" of "closes at 5 pm" after "opens at 9 am"). Nearest first: the first is its head.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from operator import attrgetter

from verification.claims.clauses import Token, covered_keys, same_key
from verification.claims.commitments.compare import comparable
from verification.claims.commitments.mention import Mention

_PREPOSITIONS = frozenset({
    "within", "upon", "throughout", "across", "toward", "towards", "beyond", "among", "around", "onto",
    "inside", "outside", "near", "past", "till", "along", "beside", "besides", "except", "versus", "plus",
    "including", "excluding", "approximately", "roughly", "nearly", "almost", "least", "exactly", "just",
})
"""Words the stop-word list keeps as content that say how a value is bounded, not what it measures."""


_end = attrgetter("end")


def said_of(tokens: Sequence[Token], value: Mention, values: Sequence[Mention]) -> tuple[str, ...]:
    """Keys of the content words `value` is said of, nearest first; () when its clause has none before it.

    `tokens` are the text's clause tokens, `values` every value of the same text.
    """
    # The first word that ends inside or after the value: words end in order, so it is looked up by halving.
    first = bisect_right(tokens, value.start, key=_end)
    if first == len(tokens):
        return ()
    clause = tokens[first].clause
    earlier = [other for other in values if other.start < value.start]
    keys: list[str] = []
    for token in reversed(tokens[:first]):
        if token.clause != clause:
            break
        before = None
        for other in earlier:  # a loop, not a generator: asked for every word before every value compared
            if other.start <= token.start < other.end:
                before = other
                break
        if before is not None:
            if keys and comparable(before, value):
                break  # what comes before a value of the same sort is said of that one
            continue  # the first end of "5 to 10 days"; the "2015" of "acquired in 2015 in a deal worth $212M"
        if token.content and not token.word[:1].isdigit() and token.word not in _PREPOSITIONS:
            keys.append(token.key)
    return tuple(dict.fromkeys(keys))


_COUNTED_WORDS = 4
"""Most words of what a value counts ("16 weeks of fully paid parental leave")."""


def counted(tokens: Sequence[Token], value: Mention) -> tuple[str, ...]:
    """Keys of what a value counts when an "of" follows it: "leave" of "16 weeks of parental leave",
    "employment" of "6 months of continuous employment". () when no "of" follows the value."""
    after = [token for token in tokens if token.start >= value.end]
    if not after or after[0].word != "of":
        return ()
    keys: list[str] = []
    for token in after[1:]:
        if token.clause != after[0].clause or not token.content or len(keys) == _COUNTED_WORDS:
            break
        keys.append(token.key)
    return tuple(keys)


def same_quantity(said: Sequence[str], other_words: Sequence[str]) -> bool:
    """Whether a value said of `said` can measure what a text of `other_words` is about: some word it is
    said of is one of them. A value said of nothing readable (a fronted "In 2019, ...", a label line)
    may measure anything."""
    return not said or bool(covered_keys(said, other_words))


def same_count(counts: Sequence[str], other_counts: Sequence[str]) -> bool:
    """Whether two values that each say what they count count the same thing: a duration of leave and a
    duration of employment do not. Where either says nothing, nothing tells them apart."""
    return not counts or not other_counts or bool(covered_keys(counts, other_counts))


def closeness(said: Sequence[str], other_said: Sequence[str]) -> tuple[bool, int]:
    """How nearly two values are said of the same thing: whether either's head is among the other's
    words, then how many words they share. Sorts the closest last."""
    heads = (bool(said) and any(same_key(said[0], key) for key in other_said)) or (
        bool(other_said) and any(same_key(other_said[0], key) for key in said))
    return heads, len(covered_keys(said, other_said))
