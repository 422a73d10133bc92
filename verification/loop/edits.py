"""Text surgery the repair operators share: splicing edits into an answer, removing a claim with whatever
joined it to its sentence, and tidying the spaces an edit leaves."""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.claims.extraction import extract_claims
from verification.claims.sentences import split_sentences
from verification.types import Claim


def splice(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    pieces = []
    cursor = 0
    for start, end, replacement in sorted(edits):
        pieces.append(text[cursor:start])
        pieces.append(replacement)
        cursor = max(cursor, end)
    pieces.append(text[cursor:])
    return tidy("".join(pieces))


def tidy(text: str) -> str:
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"[ \t]+(?=[\n.,;!?])|(?<=\n)[ \t]+(?=\S)", "", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def sentence_of(text: str, start: int, end: int) -> tuple[int, int]:
    for sentence_start, sentence_end in split_sentences(text):
        if sentence_start <= start and end <= sentence_end:
            return sentence_start, sentence_end
    return start, end


def removal(text: str, claim: Claim) -> tuple[int, int, str]:
    """The edit that removes `claim` with whatever joined it to its sentence."""
    sentence_start, sentence_end = sentence_of(text, claim.start, claim.end)
    pieces = [p for p in extract_claims(text) if sentence_start <= p.start and p.end <= sentence_end]
    others = [p for p in pieces if (p.start, p.end) != (claim.start, claim.end)]
    if not others:
        end = sentence_end
        while end < len(text) and text[end] in " \t":
            end += 1
        return sentence_start, end, ""
    before = [p for p in others if p.end <= claim.start]
    if before:
        # "A costs $5 and B has 3 seats." minus the second piece keeps A's clause and the full stop.
        stop = claim.text.rstrip()[-1:] if claim.text.rstrip()[-1:] in ".!?" else ""
        return before[-1].end, claim.end, stop
    following = min(others, key=lambda p: p.start)
    if following.subject and text.startswith(following.subject, claim.start):
        # "The museum opens at 9 and closes at 5." less its first predicate: the subject stays for the second.
        return claim.start + len(following.subject), following.start, " "
    replacement = text[following.start].upper()
    return claim.start, following.start + 1, replacement


def tiered_text(text: str, removed: Sequence[Claim], noted: Sequence[Claim], note: str) -> str:
    """`text` without the `removed` claims and with `note` after the sentence of each `noted` one."""
    edits = [removal(text, claim) for claim in removed]
    ends = {sentence_of(text, claim.start, claim.end)[1] for claim in noted}
    edits += [(end, end, f" {note.strip()}") for end in sorted(ends)]
    return splice(text, edits)
