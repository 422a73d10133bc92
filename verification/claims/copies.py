"""Whether an answer's sentence is copied from a source: word for word (spacing aside), or with its first
letter's case changed or its negations written out or contracted. A copied sentence is one claim
(`extraction`): its parts are the source's, joined as the source joins them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.claims.sentences import split_sentences
from verification.claims.tokens import CONTRACTED


def copied(sentence: str, sources: Sequence[str], *, whole: bool = False) -> bool:
    """Whether the sentence is in a source word for word (spacing aside), at word boundaries; `whole`: as one
    of the source's sentences, from its start to its end."""
    needle = " ".join(sentence.split())
    if len(needle.split()) < _COPIED_WORDS:
        return False
    # A sentence copied whole may change its first letter's case ("and the EPS ..." for "And the EPS ...").
    needles = [needle, needle[0].swapcase() + needle[1:]] if whole else [needle]
    for source in sources:
        for needle in needles:
            at = source.find(needle)
            while at >= 0:
                before, after = source[at - 1:at], source[at + len(needle):at + len(needle) + 1]
                # A sentence that ends where the next one runs on ("... in Czechoslovakia.Alexander Cox is")
                # ends at its period all the same.
                ended = needle[-1] in _SENTENCE_END and after[:1].isupper()
                if not (before.isalnum() or after.isalnum() and not ended) and (
                        not whole or _a_sentence(source, at, needle)):
                    return True
                at = source.find(needle, at + 1)
    return False


_CONTRACTION = re.compile(r"\b(ca|wo|sha|\w+)n['’]t\b|\b(can)not\b", re.IGNORECASE)


def spelled(text: str) -> str:
    """The text with its negations written out, as `tokens.spelled_out` reads them: "aren't" is "are not",
    "won't" is "will not", "cannot" is "can not"."""
    if "'" not in text and "’" not in text and "nnot" not in text:
        return text
    return _CONTRACTION.sub(lambda found: f"{CONTRACTED.get(found[1].lower(), found[1]) if found[1] else found[2]} not",
                            text)


def _a_sentence(source: str, at: int, needle: str) -> bool:
    """Whether `needle`, found at `at`, is one of the source's sentences whole."""
    # A sentence may close inside quotes or brackets before it: "... of the East End.' And Get Back, ...".
    before = source[:at].rstrip().rstrip("\"'”’)]")
    # So may a line after a colon that opens on a capital ("... with the story:" and a line "By googling ..."):
    # a copy is read with its source's spacing made plain, where the line break is lost.
    opens = not before or before[-1] in _SENTENCE_END or before[-1] == ":" and source[at:at + 1].isupper()
    closes = needle[-1] in _SENTENCE_END or source[at + len(needle):at + len(needle) + 1] in _SENTENCE_END
    return opens and closes


_SENTENCE_END = ".!?"


_INNER_PERIOD = re.compile(r"\.\s+(?=[A-Z])")
"""A period inside an answer's sentence before a capital: after an abbreviation ("Bush Sr. Nominated"), where
the splitter goes on."""
_AROUND = 3
"""Words on each side of such a period that a source must say, around its own end of a sentence there."""


def source_breaks(sentence: str, sources: Sequence[str]) -> list[int]:
    """Offsets in an answer's sentence, each just past a period, where a source that says the words around
    that period ends a sentence: "... George Bush Sr. Nominated for five Grammy awards, ..." runs on past an
    abbreviation, but a source whose line ends at "George Bush Sr." says two sentences, and so does the
    answer that copies them. A claim over two of the source's sentences is compared with neither."""
    breaks = []
    for inner in _INNER_PERIOD.finditer(sentence):
        before, after = sentence[:inner.start()].split(), sentence[inner.end():].split()
        if len(before) < _AROUND or len(after) < _AROUND:
            continue
        around = re.compile(r"\s+".join(map(re.escape, [*before[-_AROUND:-1], before[-1] + ".", *after[:_AROUND]])))
        for source in sources:
            found = around.search(source)
            if found is not None and len(split_sentences(found.group())) > 1:
                breaks.append(inner.end())
                break
    return breaks


_COPIED_WORDS = 4
"""Fewest words of a sentence read as copied: a shorter one is a phrase many sources say."""
