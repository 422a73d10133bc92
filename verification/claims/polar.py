"""A bare yes or no: an answer whose whole assertion is its question's.

"Yes." to "Can I cancel at any time?" says that one can; the words the offline rules align and score are
the question's, not the answer's, and whether the sources say yes or no takes reading the question as a
statement. The words are a closed class per language, not a list grown from cases.
"""

from __future__ import annotations

from verification.claims.language import ENGLISH

POLAR_WORDS: dict[str, frozenset[str]] = {
    ENGLISH: frozenset({"yes", "no", "yeah", "yep", "nope", "nah"}),
    "de": frozenset({"ja", "nein", "doch", "jawohl", "jein"}),
    "zh": frozenset({"是", "是的", "对", "对的", "不", "不是", "不对", "没有", "有"}),
    "ja": frozenset({"はい", "いいえ", "ええ", "いや", "うん", "ううん"}),
}
"""Each language's words that answer a yes-or-no question on their own."""

_EDGES = " \t\r\n.,;:!?…'\"“”‘’()[]。，、；：！？「」『』（）"
"""What may stand around the word: punctuation, quotes, spaces (ASCII and CJK)."""


def polar(text: str, language: str = ENGLISH) -> bool:
    """Whether `text` is only a yes or a no in `language`, punctuation aside: "Yes.", "Nope!", "いいえ。"."""
    return text.strip(_EDGES).lower() in POLAR_WORDS.get(language, frozenset())
