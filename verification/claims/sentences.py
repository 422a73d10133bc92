"""Sentence splitting that keeps exact character offsets.

Evidence spans and claim spans are offsets into the original text, so the splitter never rewrites
anything: it only decides where sentences start and end, with surrounding whitespace left out.
"""

from __future__ import annotations

import re

# A period after one of these does not end a sentence ("Dr. Smith", "approx. 30", "U.S. law",
# "c. 1491", "fl. 1200", "Roe v. Wade").
_ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof sr jr st mt ft vs etc inc ltd co corp dept est approx no nos vol fig figs al
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun e.g i.e u.s u.k a.m
    p.m gen col lt sgt capt rev gov sen rep ph.d b.a m.a c ca fl v
    """.split()
)
# Of those, the ones that are also words a sentence can end with ("The answer is no.", "We sat in the
# sun.") abbreviate only before a number: "No. 5", "Fig. 2", "Sat. 14 May".
_ABBREVIATING_BEFORE_A_NUMBER = frozenset({"no", "nos", "fig", "figs", "sat", "sun", "wed"})

# Of those, the ones that stand before a name, which they never end a sentence before.
_TITLES = frozenset("mr mrs ms dr prof st mt ft gen col lt sgt capt rev gov sen rep".split())
_OPENER = re.compile(r"\s*(?:He|She|It|They|We|This|These|Those|There|The|His|Her|Its|Their|Our)\b")
"""Words that, written with a capital after an abbreviation, open the next sentence: no name is one."""

# A candidate end: terminal punctuation, optional closing quotes or brackets, then whitespace; or a
# period run straight into the next sentence's capital ("... west of Boston.Stanford University is",
# "... founded in 1987.Hot Rod is", "... to the "Fortean Times".British is"), as text pasted from
# paragraphs often is.
_END = re.compile(r"[.!?]+(?:[\"'”’)\]]*(?=\s)|(?P<run_in>(?=[A-Z][a-z])))")
# What a run-in end must follow (read apart from `_END`, which then scans for punctuation alone).
_RUN_IN_AFTER = re.compile(r"(?:[a-z]{2}|\d{4}|[a-z][\"”])\Z")
# A line break always ends a sentence: lists, headings and dialogue turns rarely end in a period.
_HARD_BREAK = re.compile(r"\n")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


MAX_SENTENCE_CHARS = 2000
"""Longest sentence `split_sentences(..., bounded=True)` returns; a longer run is cut into pieces.

Much of what is read in a sentence is compared with the rest of it (names against names, values against
values), so a source of one unpunctuated 200,000-character run would cost the square of its length.
Written sentences stay far below this: the longest in the tune and demo data is 1,694 characters.
"""


def split_sentences(text: str, *, bounded: bool = False) -> list[tuple[int, int]]:
    """(start, end) of every sentence in `text`, in order; text[start:end] is stripped of whitespace.

    With `bounded`, a sentence longer than MAX_SENTENCE_CHARS is returned as consecutive pieces of at most
    that length, cut at whitespace where there is some.
    """
    spans: list[tuple[int, int]] = []
    block_start = 0
    for brk in _HARD_BREAK.finditer(text):
        spans.extend(_split_block(text, block_start, brk.start()))
        block_start = brk.end()
    spans.extend(_split_block(text, block_start, len(text)))
    if bounded and any(end - start > MAX_SENTENCE_CHARS for start, end in spans):
        return [piece for span in spans for piece in _pieces(text, *span)]
    return spans


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A sentence as pieces of at most MAX_SENTENCE_CHARS, each cut after the last space that fits."""
    pieces: list[tuple[int, int]] = []
    while end - start > MAX_SENTENCE_CHARS:
        limit = start + MAX_SENTENCE_CHARS
        # Cut at a space in the second half of the window, so that every piece is a long one; a run without
        # one there (a URL, base64, a language written without spaces) is cut at the limit.
        cut = text.rfind(" ", start + MAX_SENTENCE_CHARS // 2, limit)
        cut = cut if cut > start else limit
        if (piece := _strip(text, start, cut)) is not None:
            pieces.append(piece)
        start = cut
    if (piece := _strip(text, start, end)) is not None:
        pieces.append(piece)
    return pieces


def _split_block(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    sentence_start = start
    for match in _END.finditer(text, start, end):
        if match["run_in"] is not None and not _RUN_IN_AFTER.search(text, max(0, match.start() - 4), match.start()):
            continue
        if _is_boundary(text, match.start(), match.end(), end):
            spans.append((sentence_start, match.end()))
            sentence_start = match.end()
    spans.append((sentence_start, end))
    return [stripped for span in spans if (stripped := _strip(text, *span)) is not None]


def _is_boundary(text: str, punct_start: int, punct_end: int, limit: int) -> bool:
    if text[punct_start] != ".":
        # A title that ends in "!" or "?" ("the "Kerrang!" release") ends inside its quotes; the
        # sentence goes on when a lower-case word follows.
        quoted = text[punct_end - 1] in "\"'”’)]"
        return not (quoted and _continues(text, punct_end, limit))
    before = _WORD_BEFORE.search(text, max(0, punct_start - 12), punct_start)
    if before and before.start() and text[before.start() - 1].isdigit():
        before = None  # "May 1st." is an ordinal, not "St."
    if before:
        word = before.group(1).lower().rstrip(".")
        # Initials ("J. R. Smith") and known abbreviations do not end sentences.
        if word in _ABBREVIATING_BEFORE_A_NUMBER:
            if _number_follows(text, punct_end, limit):
                return False
        elif len(word) == 1 and before.group(1).isupper():
            # An initial, unless a word that opens a sentence follows: "... and Withnail and I. The failure".
            return _opener_follows(text, punct_end, limit)
        elif word in _ABBREVIATIONS:
            # "... newspaper in the U.S. He created" ends a sentence: a word that only opens one follows
            # an abbreviation that can end one. A title never ends one: "Dr. He Jiankui" is a name.
            return word not in _TITLES and _opener_follows(text, punct_end, limit)
    # "... costs approx. $5 per month" is caught above; a lower-case continuation is not a new sentence.
    return not _continues(text, punct_end, limit)


def _number_follows(text: str, position: int, limit: int) -> bool:
    """Whether the next word after `position` starts with a digit (or a "#")."""
    following = _next_character(text, position, limit)
    return following.isdigit() or following == "#"


def _opener_follows(text: str, position: int, limit: int) -> bool:
    """Whether the next word after `position` is one that opens a sentence (`_OPENER`)."""
    return _OPENER.match(text, position, limit) is not None


def _continues(text: str, position: int, limit: int) -> bool:
    """Whether the next word after `position` starts in lower case, so the sentence goes on."""
    return _next_character(text, position, limit).islower()


def _next_character(text: str, position: int, limit: int) -> str:
    """The first character after `position` that is not whitespace, before `limit`; "" where there is none."""
    while position < limit and text[position].isspace():
        position += 1
    return text[position] if position < limit else ""


def _strip(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None
