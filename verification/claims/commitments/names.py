"""Reading names: capitalised runs ("Bank of America", "Led by Donkeys") that are not function words,
weekdays or months, each with a case- and inflection-insensitive key (`entity_key`) so two spellings of
one name compare. No name is read inside a value, so names are read after the values of a text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from verification.claims.commitments.mention import Mention
from verification.claims.commitments.spans import TakenSpans
from verification.claims.commitments.values import MONTHS, _find_values
from verification.claims.tokens import STOP_WORDS, TEXT_CACHE_SIZE, first_word, stem, words

# (The look at the capital first lets a scan pass over every other character at once.)
_ENTITY = re.compile(
    r"(?=[A-Z])\b[A-Z][\w&'’.-]*(?:\s+(?:(?:of|the|de|la|van|von|&)\s+)?[A-Z][\w&'’.-]*)*"
)
_NOT_ENTITIES = frozenset(
    """the a an it its this that these those they he she we you i our your their his her there here
    in on at for to of and but or if when while after before as by with from however also then thus
    so yes no not please thank thanks hi hello dear monday tuesday wednesday thursday friday saturday
    sunday today tomorrow yesterday""".split()
) | frozenset(MONTHS)


def find_names(text: str) -> list[Mention]:
    """The mentions of `text` that are names (kind "entity"), ordered by position: the same names
    `find_mentions` has, without reading relations, which a sentence asked only whom it names never needs.

    Not kept: its one reader (`value_checks`) keeps what it asks of them instead, and the mentions kept
    for every sentence read would only give the garbage collector more to walk."""
    return _entities(text, _find_values(text)[1])


def entity_key(text: str) -> str:
    """A case- and inflection-insensitive key for an entity name."""
    return _entity_key(text)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _entity_key(text: str) -> str:
    tokens = [stem(word) for word, _, _ in words(text) if word not in {"the", "a", "an"}]
    return " ".join(tokens)


def _entities(text: str, taken: Sequence[tuple[int, int]]) -> list[Mention]:
    found = []
    overlaps = TakenSpans(taken)
    for match in _ENTITY.finditer(text):
        start, end = match.span()
        name = match.group().rstrip(".'’-")
        end = start + len(name)
        # Drop a leading function word capitalised only because it starts the sentence.
        first, _, rest = name.partition(" ")
        if first.lower() in _NOT_ENTITIES:
            if not rest:
                continue
            name = rest.lstrip()
            start = end - len(name)
        if name.lower() in _NOT_ENTITIES or overlaps((start, end)):
            continue
        found.append(Mention("entity", name, start, end, None, None, (_entity_key(name),)))
    return found


# A sentence is asked about its subjects for every claim whose value it contradicts: its names are read
# once per text, for both questions, and only what is asked of them is kept, as tuples of strings (which
# the garbage collector, walking every text kept, soon stops tracking).
@lru_cache(maxsize=TEXT_CACHE_SIZE)
def subject_names(text: str) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, ...], ...]]:
    """(name, the stem of the word after it) for each name in `text` ("basic", "plan" for "the Basic plan"),
    and the words of each name."""
    names = find_names(text)
    subjects: dict[tuple[str, str], None] = {}
    for mention in names:
        following = first_word(text[mention.end : mention.end + 40])
        if following is not None and following not in STOP_WORDS:
            subjects[str(mention.parts[0]), stem(following)] = None
    return tuple(subjects), tuple(tuple(str(m.parts[0]).split()) for m in names)
