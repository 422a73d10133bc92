"""The order a proof allows: the claim's words in the span's order, up to one phrase moved whole within
its clause and sentence ("In 2010, X did Y" / "X did Y in 2010"), so "B supplies A" is not proven by
"A supplies B"."""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.checks.proof.words import is_qualifier
from verification.claims.clauses import CLAUSE_JOIN
from verification.claims.tokens import STOP_WORDS, words
from verification.retrieval.index import Passage

_PREPOSITIONS = frozenset(
    "in on at by for from to with during after before since until through across within between among "
    "around throughout".split()
)
CONJUNCTION = re.compile(r"\b(?:and|or)\b", re.IGNORECASE)
PHRASE_MARK = re.compile(r"[,;:()\[\]—–]")
_LIST_JOINT = re.compile(r"\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or)\s+)", re.IGNORECASE)
"""What separates two members of a list: ", ", " and ", ", and ", " or "."""
_PARALLEL_LISTS = re.compile(r"\brespectively\b", re.IGNORECASE)
_WORD_END = re.compile(r"[^\s,;:]+")
_DETERMINERS = frozenset("the a an this that these those its their his her our your".split())


def one_move_from_order(positions: list[int], span: tuple[Passage, ...], text: str,
                        prepositioned: Sequence[bool] = ()) -> bool:
    """Whether the positions are in order once at most one run of them is moved elsewhere, a run that is a
    whole phrase the span opens with a preposition (`_phrases`) and the claim too: "in 2010" moves freely,
    "American" from "Jane's Addiction is an American rock band" does not, nor do arguments swapped around a
    verb, nor the name alone of "on their Michelle Obama ish", which leaves "ish" behind, nor "Misrata" of
    "were in Misrata" put where a name was ("Chris Hondros and Misrata were in Tim Hetherington").
    `prepositioned`: for each position, whether the claim says a preposition just before its word."""
    if _ascending(positions):
        return True
    phrases = _phrases(span)  # read only for a claim out of the span's order: most proofs keep it
    n = len(positions)
    for i in range(n):
        for j in range(i + 1, n + 1):
            block, rest = positions[i:j], positions[:i] + positions[j:]
            end = phrases.get(block[0])
            if end is not None and (not prepositioned or prepositioned[i]) \
                    and not any(block[0] < value < end for value in rest) and _ascending(block) \
                    and _ascending(rest) and _fits(block, rest) and not _across_clauses(block, rest, text) \
                    and _moved_within_its_sentence(block, positions[i - 1:i] + positions[j:j + 1], span):
                return True
    return False


def list_swapped(positions: list[int], claim_starts: list[int], text: str, claim: str,
                 span: tuple[Passage, ...]) -> bool:
    """Whether the positions are in order once two neighbouring members of one list are put back: "starring
    Jessica Lange and Anthony Hopkins" against "starring Anthony Hopkins and Jessica Lange". The two runs
    of the claim's words are joined by a list's joint (",", "and", "or") in the claim and, the other way
    round, in the span; who did what to whom is not moved by it ("Lange directed Hopkins" is no list). A
    span that pairs its lists ("A and B scored 3 and 5, respectively") is read in order only.
    `positions`: where the span says each of the claim's words, in the claim's order; `claim_starts`:
    where the claim says them."""
    descent = next((k for k in range(1, len(positions)) if positions[k] < positions[k - 1]), None)
    if descent is None:
        return True
    if _PARALLEL_LISTS.search(text, span[0].start, span[-1].end):
        return False
    for first in range(descent):
        for stop in range(descent + 1, len(positions) + 1):
            moved = positions[:first] + positions[descent:stop] + positions[first:descent] + positions[stop:]
            if _ascending(moved) and _joined(claim, claim_starts[descent - 1], claim_starts[descent]) \
                    and _joined(text, positions[stop - 1], positions[first]):
                return True
    return False


def _joined(text: str, last: int, next_: int) -> bool:
    """Whether the word at `last` and the one at `next_` are neighbouring members of a list in `text`."""
    word = _WORD_END.match(text, last)
    return word is not None and word.end() < next_ and _LIST_JOINT.fullmatch(text, word.end(), next_) is not None


def _moved_within_its_sentence(block: list[int], beside: list[int], span: tuple[Passage, ...]) -> bool:
    """Whether the claim's words beside a moved run are of the run's own sentence: "in version 3.1" of the
    sentence before is not moved into "Support for custom domains was added in version 5.0"."""
    def sentence(position: int) -> int:
        return next(k for k, passage in enumerate(span) if passage.start <= position < passage.end)

    return all(sentence(position) == sentence(block[0]) for position in beside)


def _across_clauses(block: list[int], rest: list[int], text: str) -> bool:
    """Whether a moved run is another clause's: "and", "or", "but" or a semicolon between it and the words
    next to it in the source. "The landlord pays for water and the tenant pays for electricity" has "for
    water" in the landlord's clause, which "The tenant pays for water" moves into the tenant's."""
    before = max((value for value in rest if value < block[0]), default=None)
    after = min((value for value in rest if value > block[-1]), default=None)
    return any(CLAUSE_JOIN.search(text, low, high) is not None
               for low, high in ((before, block[0]), (block[-1], after)) if low is not None and high is not None)


def prepositioned(read: Sequence[tuple[str, int, int]], start: int, text: str = "") -> bool:
    """Whether the word of `read` (the words of `text`) that starts at `start` opens a phrase with a
    preposition before it, as `_phrases` reads one: "2010" of "in 2010", "resolve" of "until we resolve"."""
    at = next((k for k, (_, word_start, _) in enumerate(read) if word_start == start), None)
    if at is None:
        return False
    for word, word_start, _ in reversed(read[:at]):
        if word in _PREPOSITIONS:
            return True
        if not _passed_over(word, text, word_start):
            return False
    return False


def _phrases(span: tuple[Passage, ...]) -> dict[int, int]:
    """Where each prepositional phrase of the span opens (its first content word: "2010" of "In 2010,",
    "resolve" of "until we resolve the issues") and ends (the next preposition, conjunction or mark)."""
    phrases: dict[int, int] = {}
    for passage in span:
        read = list(words(passage.text))
        after_preposition = False
        for k, (word, start, _) in enumerate(read):
            if word in _PREPOSITIONS:
                after_preposition = True
            elif _passed_over(word, passage.text, start):
                continue  # "until we resolve the issues" opens at "resolve", "at the same time" at "time"
            else:
                if after_preposition:
                    phrases[passage.start + start] = passage.start + _phrase_end(passage.text, read, k)
                after_preposition = False
    return phrases


def _passed_over(word: str, text: str = "", start: int = 0) -> bool:
    """Whether a word between a preposition and its phrase's first content word is read past: a determiner,
    a pronoun, a qualifier or another function word ("at first glance", "at the same time"), unless it is
    written with a capital, as a month or a name is ("in May 1784", "until the US invasion")."""
    if text[start:start + 1].isupper() and word not in _DETERMINERS:
        return False
    return word in _DETERMINERS or word in STOP_WORDS or is_qualifier(word)


def _phrase_end(text: str, read: list[tuple[str, int, int]], opening: int) -> int:
    """Where the phrase that opens at word `opening` of `text` ends."""
    for (_, _, previous_end), (word, start, _) in zip(read[opening:], read[opening + 1:], strict=False):
        if word in _PREPOSITIONS or CONJUNCTION.fullmatch(word) or PHRASE_MARK.search(text, previous_end, start):
            return start
    return len(text)


def _ascending(values: list[int]) -> bool:
    return all(a < b for a, b in zip(values, values[1:], strict=False))


def _fits(block: list[int], rest: list[int]) -> bool:
    """Whether the moved run lies in one gap of the rest in the source (it was moved whole)."""
    below = [value for value in rest if value < block[0]]
    above = [value for value in rest if value > block[-1]]
    return len(below) + len(above) == len(rest)
