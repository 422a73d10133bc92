"""Claim diffs between two versions of an answer, with claims paired by what they say.

Claim ids cannot pair them: a reviewer's edit is verified by a fresh run, which numbers its claims from
k1 again, so the same id can name unrelated claims in two versions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from reviewconsole.intake.models import Claim
from reviewconsole.review.scripts import UNSPACED

SAME_CLAIM_SIMILARITY = 0.5
"""How alike (0 to 1, by words) two claims must be to count as one claim rewritten rather than one
removed and another added."""

# A word is what spaces end, except in Chinese and Japanese, where each character is one: a rewritten
# Chinese claim then differs by the characters it changed, not as one sentence-long word.
_WORD = re.compile(rf"[{UNSPACED}]|[^\s{UNSPACED}]+")
_UNSPACED_CHARACTER = re.compile(f"[{UNSPACED}]")
_PUNCTUATION = re.compile(r"[^\w$%]+")


class ChangeKind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class ClaimChange:
    """What happened to one claim between the older and the newer version."""

    kind: ChangeKind
    old: Claim | None
    new: Claim | None

    @property
    def claim(self) -> Claim:
        """The claim in the newer version (in the older one for a removed claim)."""
        claim = self.new or self.old
        if claim is None:
            raise ValueError("a claim change has a claim in at least one of the two versions")
        return claim

    @property
    def claim_id(self) -> str:
        """The claim's id in the newer version (in the older one for a removed claim)."""
        return self.claim.claim_id

    @property
    def old_claim_id(self) -> str:
        """The older version's id for the claim when it differs from the newer one's, else ""."""
        if self.old is None or self.new is None or self.old.claim_id == self.new.claim_id:
            return ""
        return self.old.claim_id

    @property
    def state_transition(self) -> tuple[str, str] | None:
        """(old state, new state) when the verdict moved, e.g. ("REFUTED", "SUPPORTED")."""
        if self.old is None or self.new is None or self.old.state == self.new.state:
            return None
        return self.old.state, self.new.state

    @property
    def text_changed(self) -> bool:
        return self.old is not None and self.new is not None and self.old.text != self.new.text

    @property
    def word_diff(self) -> SafeString:
        """The newer text with the words it dropped in <del> and the words it added in <ins>, escaped."""
        if self.old is None or self.new is None:
            return format_html("{}", self.claim.text)
        return word_diff(self.old.text, self.new.text)


def claim_diff(old: Iterable[Claim], new: Iterable[Claim]) -> list[ClaimChange]:
    """Claims added, removed, changed (text or state) and unchanged, in the newer version's order,
    with removed claims after, in the older version's order.

    A claim with the same text in both versions is the same claim; of the rest, the most alike pairs
    (at least SAME_CLAIM_SIMILARITY) are one claim rewritten; anything left was added or removed.
    """
    old_claims, new_claims = list(old), list(new)
    partner: dict[int, int] = {}  # index in new_claims -> index of the same claim in old_claims
    old_by_text: dict[str, list[int]] = {}
    for old_index, claim in enumerate(old_claims):
        old_by_text.setdefault(claim.text, []).append(old_index)
    for new_index, claim in enumerate(new_claims):
        if old_by_text.get(claim.text):
            partner[new_index] = old_by_text[claim.text].pop(0)
    unpaired_old = set(range(len(old_claims))) - set(partner.values())
    # Most alike first, so a claim pairs with its closest rewrite rather than the first one that passes.
    pairs = sorted(
        (-_similarity(old_claims[old_index].text, claim.text), new_index, old_index)
        for new_index, claim in enumerate(new_claims)
        if new_index not in partner
        for old_index in unpaired_old
    )
    for negative_similarity, new_index, old_index in pairs:
        if -negative_similarity < SAME_CLAIM_SIMILARITY:
            break
        if new_index not in partner and old_index in unpaired_old:
            partner[new_index] = old_index
            unpaired_old.discard(old_index)

    changes = []
    for new_index, claim in enumerate(new_claims):
        before = old_claims[partner[new_index]] if new_index in partner else None
        if before is None:
            kind = ChangeKind.ADDED
        elif before.text != claim.text or before.state != claim.state:
            kind = ChangeKind.CHANGED
        else:
            kind = ChangeKind.UNCHANGED
        changes.append(ClaimChange(kind, before, claim))
    changes.extend(ClaimChange(ChangeKind.REMOVED, old_claims[i], None) for i in sorted(unpaired_old))
    return changes


@dataclass(frozen=True)
class TextChange:
    """Text of an answer that is in no claim (a disclosure, "I could not find anything more on this"),
    added or removed between two versions: a repair may add it, and a reviewer must see it."""

    kind: ChangeKind
    text: str


def text_changes(
    old_text: str, old_claims: Iterable[Claim], new_text: str, new_claims: Iterable[Claim]
) -> list[TextChange]:
    """What the newer version adds outside its claims, then what it drops, each in its version's order."""
    old_pieces, new_pieces = _outside_claims(old_text, old_claims), _outside_claims(new_text, new_claims)
    return [
        *(TextChange(ChangeKind.ADDED, piece) for piece in new_pieces if piece not in old_pieces),
        *(TextChange(ChangeKind.REMOVED, piece) for piece in old_pieces if piece not in new_pieces),
    ]


def _outside_claims(text: str, claims: Iterable[Claim]) -> list[str]:
    """The stretches of `text` between its claims' spans that hold a word, whitespace collapsed."""
    pieces, position = [], 0
    for claim in sorted(claims, key=lambda claim: claim.start):
        pieces.append(text[position:claim.start])
        position = max(position, claim.end)
    pieces.append(text[position:])
    return [" ".join(piece.split()) for piece in pieces if any(ch.isalnum() for ch in piece)]


def _comparable_words(text: str) -> list[str]:
    """Words without case or punctuation, so "Days." and "days" agree when claims are compared."""
    return [word for word in (_PUNCTUATION.sub("", w).lower() for w in _WORD.findall(text)) if word]


def _similarity(old_text: str, new_text: str) -> float:
    return SequenceMatcher(None, _comparable_words(old_text), _comparable_words(new_text), autojunk=False).ratio()


def word_diff(old_text: str, new_text: str) -> SafeString:
    """`new_text` word by word, with dropped words in <del> and added ones in <ins>; all text escaped."""
    old_words, new_words = _words(old_text), _words(new_text)
    pieces: list[tuple[SafeString, _Word, _Word]] = []  # each with its first and last word
    matcher = SequenceMatcher(None, [word.text for word in old_words], [word.text for word in new_words],
                              autojunk=False)
    for operation, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if operation == "equal":
            pieces.append(_piece("{}", new_words[new_start:new_end]))
            continue
        if old_end > old_start:
            pieces.append(_piece("<del>{}</del>", old_words[old_start:old_end]))
        if new_end > new_start:
            pieces.append(_piece("<ins>{}</ins>", new_words[new_start:new_end]))
    return format_html_join("", "{}{}", (
        ("" if at == 0 else _between(pieces[at - 1][2], first), html) for at, (html, first, _last) in enumerate(pieces)
    ))


@dataclass(frozen=True)
class _Word:
    text: str
    spaced: bool
    """Whitespace stands before it in its text."""


def _words(text: str) -> list[_Word]:
    return [_Word(found.group(), text[found.start() - 1:found.start()].isspace()) for found in _WORD.finditer(text)]


def _between(before: _Word, after: _Word) -> str:
    """The space between two words shown side by side: none where their text has none and one of them is a
    Chinese or Japanese character, so characters written together stay together."""
    together = not after.spaced and any(_UNSPACED_CHARACTER.fullmatch(word.text) for word in (before, after))
    return "" if together else " "


def _piece(template: str, words: Sequence[_Word]) -> tuple[SafeString, _Word, _Word]:
    text = "".join(_between(words[at - 1], word) + word.text if at else word.text for at, word in enumerate(words))
    return format_html(template, text), words[0], words[-1]
