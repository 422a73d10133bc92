"""Words, clauses and keys: how a text is read into tokens that carry a matching key and the number of
the clause they are in (a qualifier or a negation does not reach across a clause). A claim is read once,
into its view (`ClaimView.clause_tokens`); a source sentence through `clause_tokens`, which keeps what it
has read, so a sentence cited for ten claims is read once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from verification.claims.tokens import NEGATION_WORDS, STOP_WORDS, stem, words

NEGATORS = frozenset({"not", "n't", "never", "cannot"})
CLAUSE_JOIN = re.compile(r"\b(?:and|but|or|while|whereas)\b|;", re.IGNORECASE)
"""What joins one clause to the next: "The landlord pays for water and the tenant pays for electricity"."""
BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "am"})
CONDITIONS = frozenset({"if", "unless", "whether", "when", "whenever", "until", "ask", "asks", "asked"})
_CLAUSE_WORDS = frozenset({
    "but", "while", "whereas", "although", "though", "because", "since", "unless", "if", "when",
    "whether", "which", "who", "whom", "whose", "where",
})
"""Words that open a new clause: a qualifier or a negation does not reach across them."""
_BOUNDARY_MARKS = frozenset(",;:()[]\"“”—–!?\n")
PREPOSITIONS = frozenset({
    "for", "in", "on", "at", "during", "within", "after", "before", "until", "since", "by", "with",
    "from", "to", "into", "under", "over", "through", "per", "via", "without", "across", "against",
    "about", "as",
})
"""Words that open a phrase saying where, when, for whom or how: where a word's reach stops."""


class Token(NamedTuple):
    """One word of a text as the grounding checks read it.

    A named tuple rather than a dataclass: every word of every sentence the checks read is one, and a
    tuple is several times cheaper to make.
    """

    word: str
    key: str
    start: int
    end: int
    clause: int
    content: bool
    capitalised: bool
    """Written with a capital or a digit first: part of a name."""


@lru_cache(maxsize=16384)
def clause_tokens(text: str) -> tuple[Token, ...]:
    """The words of `text` with a matching key and the number of the clause each is in."""
    out = []
    clause, previous_end = 0, 0
    for word, start, end in words(text):
        if not _BOUNDARY_MARKS.isdisjoint(text[previous_end:start]) or word in _CLAUSE_WORDS:
            clause += 1
        previous_end = end
        capital = text[start].isupper() or word[:1].isdigit()
        out.append(Token(word, word_key(word), start, end, clause, _is_content(word), capital))
    return tuple(out)


@lru_cache(maxsize=16384)
def content_keys(text: str) -> frozenset[str]:
    """The keys of the content words of `text`, as `clause_tokens` has them.

    Far cheaper than the tokens: a check looking for a word asks this first, and passes over a sentence
    that has none of the words it looks for without reading it into tokens.
    """
    return frozenset(word_key(word) for word, _, _ in words(text) if _is_content(word))


def _is_content(word: str) -> bool:
    return (word not in STOP_WORDS and word not in NEGATION_WORDS and len(word) > 1) or word[:1].isdigit()


# Asked for every word of every text the grounding checks read; a word's key never changes.
@lru_cache(maxsize=65536)
def word_key(word: str) -> str:
    """A stem that also maps "covers" and "covered" together (the shared stemmer splits them)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "'s")):
        word = word[:-3] + "y" if word.endswith("ies") else word[:-1]
    return stem(word)


def same_key(a: str, b: str) -> bool:
    """Whether two keys name the same thing: equal, or one a longer form ("accident", "accidental")."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= SHORTEST_PREFIX and long_.startswith(short)


def covered_keys(keys: Iterable[str], pool: Iterable[str]) -> list[str]:
    """The keys among `keys` that some key of `pool` matches (`same_key`): looked up rather than compared
    pair by pair, since it is asked for every value of every sentence a claim's values are compared with."""
    exact = frozenset(pool)
    longer: list[str] | None = None  # the pool's long keys, gathered only once a key needs them
    found = []
    for key in keys:
        if key in exact:
            found.append(key)
        elif len(key) < SHORTEST_PREFIX:
            continue  # a short key matches only itself
        elif any(key[:n] in exact for n in range(SHORTEST_PREFIX, len(key))):
            found.append(key)
        else:
            if longer is None:
                longer = [other for other in exact if len(other) > SHORTEST_PREFIX]
            if any(len(other) > len(key) and other.startswith(key) for other in longer):
                found.append(key)
    return found


SHORTEST_PREFIX = 5
"""`same_key`: a key this long or longer also matches the longer forms it starts ("accident", "accidental")."""


