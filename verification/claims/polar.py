"""A bare yes or no: an answer whose whole assertion is its question's.

"Yes." to "Can I cancel at any time?" says that one can; the words the offline rules align and score are
the question's, not the answer's, and whether the sources say yes or no takes reading the question as a
statement. The words are a closed class per language, not a list grown from cases.

`asserted` makes that statement for an English question that opens with an auxiliary ("Can I ...?",
"Is the Pro plan ...?", "Are A and B both ...?"): the answer is then checked as its question's claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.claims.language import ENGLISH
from verification.claims.tokens import STOP_WORDS, content_stems, stem, words

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
    if language != ENGLISH or not set(content_stems(text) if stems is None else stems) <= _ANSWER_STEMS:
        return False
    # Letters are no function words: "R&B", "B" and "A." name something, as a yes or no never does.
    found = [word for word, _, _ in words(text)]
    return any(len(word) > 1 for word in found) and all(len(word) > 1 or word in STOP_WORDS for word in found) \
        and _elliptical(found)


def _elliptical(found: Sequence[str]) -> bool:
    """Whether words end as an answer that leaves its verb to the question does: on an auxiliary ("you can"),
    a negation ("they are not"), a word that says yes or no ("of course", "not at all"). "I had to have them
    all" is a statement of its own, though every word of it is a function word."""
    last = found[-1]
    return last in AUXILIARIES or last in _NEGATIVE or last in _SO or stem(last) in _ANSWER_STEMS \
        or tuple(found[-2:]) == ("at", "all")


_SO = frozenset({"so", "too"})
"""Words that stand for the question's verb phrase: "I think so", "me too"."""


AUXILIARIES = frozenset({
    "am", "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would",
    "shall", "should", "may", "might", "must",
})
"""The words an English yes-or-no question opens with: the auxiliary moved before its subject."""

_SUBJECTS = frozenset({"i", "you", "we", "they", "he", "she", "it", "there", "this", "that", "these", "those"})
"""Subjects of one word: where the question's subject ends is then known."""

_ASKER = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "we": "you", "us": "you",
          "our": "your", "ours": "yours", "ourselves": "yourselves"}
"""The asker's words as the answer speaks of them: "Can I cancel my plan?" is answered "you can cancel your plan"."""

_AGREEING = {("am", "you"): "are", ("was", "you"): "were"}
"""The auxiliary that agrees with the subject the asker's word becomes ("am I" is "you are")."""

_SET_APART = re.compile(r"\b(?:both|either|all)\b", re.IGNORECASE)
"""Words that end a coordinated subject: "Are Jane and Elle both magazines?"."""

_NEGATIVE = frozenset({"no", "nope", "nah", "not", "never", "n't"})
"""Words that make an answer word a no."""

_QUESTION = re.compile(r"(?:^|(?<=[.!?:;\n]))\s*(?P<aux>[A-Za-z]+)\s+(?P<rest>[^?.!:;\n]+?)\s*\?\s*$")
"""The last sentence of a question, where it opens with a word and ends with its only question mark."""


def asserted(question: str, answer: str) -> str | None:
    """The statement a bare yes or no to an English yes-or-no question asserts, or None where the question is
    not one ("Which plan ...?", two questions, a negative "Can't I ...?").

    "Yes." to "Can I cancel my plan at any time?" asserts "you can cancel your plan at any time"; "No." to it
    "you cannot cancel your plan at any time". Where the subject is longer than a word, the auxiliary
    stays where the question puts it unless a word such as "both" ends the subject: "is the Pro plan billed
    monthly" says what "the Pro plan is billed monthly" says to every check, which reads its words, not
    their order around an auxiliary.
    """
    if question.count("?") != 1 or not (found := _QUESTION.search(question)):
        return None
    aux = found["aux"].lower()
    if aux not in AUXILIARIES:
        return None
    parts = [_ASKER.get(word.lower(), word) for word in found["rest"].split()]
    negative = bool(_NEGATIVE & set(re.findall(r"n't|\w+", answer.lower())))
    said = ("cannot" if aux == "can" else f"{aux} not") if negative else aux
    if parts[0].lower() in _SUBJECTS:
        subject = parts[0].lower()
        said = said.replace(aux, _AGREEING.get((aux, subject), aux), 1)
        return " ".join([subject, said, *parts[1:]])
    apart = next((i for i, word in enumerate(parts) if _SET_APART.fullmatch(word)), None)
    if apart is None:
        return " ".join([said, *parts])
    # "Yes" to "Are A and B both magazines?" says of each that it is one, which is what "A and B are
    # magazines" says; a "both" stated nowhere would hold back what the sources say of each. A no keeps
    # it: "not both" is no "neither".
    distributive = parts[apart].lower() == "both" and not negative and "and" in parts
    # The subject ends at the word; where the word opens the question ("Did both A and B ...?"), the
    # auxiliary stays first.
    return " ".join([*parts[:apart], said, *parts[apart + 1 if distributive else apart:]])
