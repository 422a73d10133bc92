"""Words that say the opposite of each other, for catching a claim that flips one word of its source.

"Prices rose" against "prices fell" shares nearly every word with its source; coverage calls it
supported. A short list of common opposites, compared on stems, lets the verifier see the flip. The
list is general English, not drawn from any evaluation set; a pair belongs here only when swapping
one for the other reverses what a sentence says.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from verification.claims.tokens import NEGATION_WORDS, STOP_WORDS, stem, words

if TYPE_CHECKING:
    from verification.claims.view import ClaimView

_PAIRS = """
increase decrease | increase decline | increase reduce | increase drop | increase cut | rise fall
rise decline | grow shrink | gain loss | gain lose | profit loss | win lose | won lost | earn lose
higher lower | high low | more less | more fewer | most least | maximum minimum | majority minority
above below | up down | over under | before after | early late | earlier later | first last
begin end | beginning end | start end | start finish | open close | opened closed | enter exit
include exclude | including excluding | with without | presence absence | presence lack
enable disable | enabled disabled | activate deactivate | automatic manual | automatically manually
accept reject | approve reject | approve deny | allow prohibit | allow ban | allow forbid | permit forbid
agree disagree | support oppose | like dislike | love hate | friend enemy | ally enemy | success failure
succeed fail | pass fail | positive negative | true false | correct incorrect | right wrong
legal illegal | possible impossible | able unable | likely unlikely | known unknown | same different
easy hard | easy difficult | simple complex | cheap expensive | cheaper expensive | cheap costly
free paid | rich poor | strong weak | large small | big small | long short | old young | old new
elderly young | ancient modern | fast slow | heavy light | full empty | hot cold | wet dry
happy sad | good bad | better worse | best worst | safe dangerous | healthy sick | alive dead
buy sell | bought sold | import export | input output | give take | send receive | lend borrow
push pull | attack defend | arrive leave | remember forget | find lose | add remove | join leave
public private | internal external | inside outside | domestic foreign | local global | national international
explicit implicit | specific general | formal informal | official unofficial | permanent temporary
always never | all none | everyone nobody | every no | often rarely | many few | most few
male female | men women | man woman | boy girl | husband wife | father mother | son daughter
north south | east west | left right | top bottom | front back | past future | day night
next last | next previous | upcoming previous
required optional | mandatory optional | compulsory optional | compulsory voluntary | obligatory optional
highest lowest | largest smallest | biggest smallest | heaviest lightest | fastest slowest | oldest youngest
oldest newest | earliest latest | cheapest dearest | strongest weakest | longest shortest | best worst
""".strip()


def _build() -> dict[str, frozenset[str]]:
    opposites: dict[str, set[str]] = {}
    for pair in _PAIRS.replace("\n", "|").split("|"):
        first, second = (stem(word) for word in pair.split())
        opposites.setdefault(first, set()).add(second)
        opposites.setdefault(second, set()).add(first)
    return {word: frozenset(others) for word, others in opposites.items()}


OPPOSITES = _build()
"""Each stem and the stems that reverse it."""


_REACH = 3
"""Words either side of a flipped word that must share something with the other side's context."""


def flipped_word(
    claim_text: str | ClaimView, passage_text: str, unsaid_in: Collection[str] = frozenset()
) -> tuple[str, str] | None:
    """(claim word, source word) when the claim has a word where the source, in the same context, has its opposite.

    Context matters: "increase" in a claim and "reduce" elsewhere in a long source sentence are
    about different things; only an opposite with a shared content word within a few words counts.
    With `unsaid_in` (a source's vocabulary), only content words the source never uses are compared.
    """
    passage_stems = _stem_set(passage_text)
    # A claim's view has its words stemmed, and their opposites found, already; a bare text is read here.
    if isinstance(claim_text, str):
        claim = _stemmed(claim_text)
        reversing = opposites_of(key for _, key in claim)
    else:
        claim, reversing = claim_text.word_stems, claim_text.opposite_stems
    if passage_stems.isdisjoint(reversing):
        return None  # asked for every hit of every claim: most sentences have no opposite of any claim word
    claim_stems = frozenset(key for _, key in claim)
    passage = _stemmed(passage_text)
    claim_clauses = _segments(claim_text if isinstance(claim_text, str) else claim_text.text)
    passage_clauses = _segments(passage_text)
    for i, (word, key) in enumerate(claim):
        if key in passage_stems or (unsaid_in and (key in unsaid_in or word in STOP_WORDS or word in NEGATION_WORDS)):
            continue  # a function word ("with") or a negating one ("none") is in no vocabulary: that says nothing
        if passage_stems.isdisjoint(OPPOSITES.get(key, ())):
            continue  # asked for every claim word against every hit: most have no opposite there at all
        for j, (found, other) in enumerate(passage):
            if other in OPPOSITES.get(key, ()) and other not in claim_stems and (
                _context(claim, i, claim_clauses) & _context(passage, j, passage_clauses)
            ):
                return word, found
    return None


def opposites_of(stems: Iterable[str]) -> frozenset[str]:
    """The stems that reverse one of `stems` (OPPOSITES)."""
    return frozenset().union(*(OPPOSITES.get(key, ()) for key in stems))


@lru_cache(maxsize=8192)
def _stemmed(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((word, stem(word)) for word, _, _ in words(text))


@lru_cache(maxsize=8192)
def _stem_set(text: str) -> frozenset[str]:
    return frozenset(key for _, key in _stemmed(text))


def _context(sequence: tuple[tuple[str, str], ...], at: int, segments: tuple[int, ...]) -> set[str]:
    """The content words within `_REACH` of the word at `at`, on its side of a semicolon or a "but": "debt
    reduction; an increase in the dividend" says nothing of debt increasing."""
    around = [*range(max(0, at - _REACH), at), *range(at + 1, min(len(sequence), at + 1 + _REACH))]
    return {sequence[k][1] for k in around if sequence[k][0] not in STOP_WORDS and segments[k] == segments[at]}


_CONTRAST = frozenset({"but", "while", "whereas", "although", "though"})


@lru_cache(maxsize=8192)
def _segments(text: str) -> tuple[int, ...]:
    """For each word of `text` (as `words` reads it), the number of the part it is in: a semicolon or a word
    of contrast starts the next. A comma does not: "Anchor, a paid tool" is one thing said of Anchor."""
    found, segment, previous_end = [], 0, 0
    for word, start, end in words(text):
        if ";" in text[previous_end:start] or word in _CONTRAST:
            segment += 1
        found.append(segment)
        previous_end = end
    return tuple(found)
