"""A bare yes or no: an answer whose whole assertion is its question's.

"Yes." to "Can I cancel at any time?" says that one can; the words the offline rules align and score are
the question's, not the answer's, and whether the sources say yes or no takes reading the question as a
statement. The words are a closed class per language, not a list grown from cases.
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.claims.language import ENGLISH
from verification.claims.tokens import content_stems, stem

POLAR_WORDS: dict[str, frozenset[str]] = {
    ENGLISH: frozenset({"yes", "no", "yeah", "yep", "nope", "nah"}),
    "de": frozenset({"ja", "nein", "doch", "jawohl", "jein"}),
    "zh": frozenset({"是", "是的", "对", "对的", "不", "不是", "不对", "没有", "有"}),
    "ja": frozenset({"はい", "いいえ", "ええ", "いや", "うん", "ううん"}),
}
"""Each language's words that answer a yes-or-no question on their own."""

_EDGES = " \t\r\n.,;:!?…'\"“”‘’()[]。，、；：！？「」『』（）"
"""What may stand around the word: punctuation, quotes, spaces (ASCII and CJK)."""

_ANSWER_STEMS = frozenset(stem(word) for word in (
    *POLAR_WORDS[ENGLISH], "indeed", "sure", "certainly", "absolutely", "definitely", "course", "correct", "right",
    "true", "exactly"))
"""The stems of the English words that say yes or no and nothing else ("of course", "that's right")."""


def polar(text: str, language: str = ENGLISH, stems: Sequence[str] | None = None) -> bool:
    """Whether `text` says only yes or no in `language`: a yes or a no, punctuation aside ("Yes.", "Nope!",
    "いいえ。"); in English also any words none of which states anything beyond yes or no ("Yes, you can.",
    "It is not.", "Of course."), since an elliptical answer asserts its question just as a bare one does.
    `stems`: the text's content stems where they are read already (a claim's view has them)."""
    if text.strip(_EDGES).lower() in POLAR_WORDS.get(language, frozenset()):
        return True
    return language == ENGLISH and set(content_stems(text) if stems is None else stems) <= _ANSWER_STEMS
