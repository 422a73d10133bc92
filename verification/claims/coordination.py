"""Where one sentence makes several assertions: coordinated clauses and coordinated predicates.

"The plan costs $20 and it includes 5 seats" joins two clauses; "The museum opens at 9 and closes at 5"
joins two predicates that share one subject. Each part is a claim of its own, so that a wrong closing
hour cannot ride on a right opening hour. A predicate keeps its exact span in the answer ("closes at 5")
and carries the subject it shares ("The museum"), which is read in front of it.

Noun phrases joined by "and" ("salt and pepper", "between 9 and 5", "apples and pears from Kent") are one
fact and stay together: a part is split off only when it opens with a verb followed by what a verb
takes (an object, a number, a name, a preposition with a number), since without a parser that is what
tells "closes at 5" from "pears from Kent".

A clause whose verb is left for the reader to fill in from the clause before ("it hasn't been approved,
but she says it will be", "he can't come today, but he will tomorrow") says nothing on its own: it stays
with the clause it leans on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verification.claims.clauses import PREPOSITIONS
from verification.claims.tokens import SIMPLE_PAST, in_the_past, words


@dataclass(frozen=True)
class Part:
    """One assertion of a sentence: its span in the sentence and the subject it shares with a part before."""

    start: int
    """Offset in the sentence."""
    end: int
    """End offset (exclusive) in the sentence."""
    subject: str = ""
    """The subject a coordinated predicate shares ("The museum" for "closes at 5"); "" for a part that
    names its own."""


# Where one sentence joins two clauses: "X costs $20 and it includes 5 seats".
_JOINT = re.compile(r"\s*(?:;|,?\s+(?:and|but|while|whereas|although|though)\s+|,\s+(?:and|but)\s+)\s*")
# Predicates are joined by "and" and "but" only ("opens at 9 while closes at 5" is no sentence), or by
# commas in a list that an "and" closes ("opens at 9, closes at 5 and is free on Sundays").
_PREDICATE_JOINT = re.compile(r",?\s+(?:and|but)\s+|,\s+(?:and|but)\s+")
_LIST_COMMA = re.compile(r",\s+")
_ASIDE = re.compile(r"\([^()]*\)")
_SUBJECT_START = re.compile(
    r"^(?:it|they|he|she|we|you|i|this|that|these|those|there|its|their|his|her|our|your|the|a|an|each|"
    r"every|all|both|[A-Z][\w&'.-]*)\b"
)
_FINITE_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|will|would|can|could|may|might|must|should|does|do|did|"
    r"[a-z]{2,}(?:ed|es|s))\b"
)
# Closed classes of English, not lists of examples: the auxiliaries and modals (a predicate of their own
# whatever follows: "is free on Sundays"), the determiners and object pronouns that open an object, and
# the prepositions that open a verb's complement.
_AUXILIARY = re.compile(
    r"(?:is|are|was|were|has|have|had|will|would|can|could|may|might|must|shall|should|does|do|did)$"
)
# What may follow an auxiliary whose verb is left out: "will be", "did not", "will tomorrow", "does too".
_AFTER_ELIDED_VERB = frozenset(
    "be been not n't so too either also again still yet soon later now then today tomorrow tonight yesterday "
    "eventually".split()
)
_DETERMINER = re.compile(r"(?i:the|a|an|this|that|these|those|its|their|his|her|our|your|my|each|every|all|"
                         r"both|some|any|no)")
_INFLECTED = re.compile(r"[a-z]{2,}(?:ed|s)$")
_NOT_A_VERB_ENDING = ("ss", "us", "is", "'s", "’s")
_OBJECT_START = re.compile(
    r"(?:[$€£¥]?\d|[A-Z]|(?:the|a|an|this|that|these|those|its|their|his|her|our|your|my|all|each|every|no|"
    r"any|some|both|it|them|him|us|you|me|up|out|off|[a-z]+ly)\b)"
)
_PREPOSITION_WITH_NUMBER = re.compile(
    r"(?:at|in|on|for|within|by|from|to|until|till|after|before|over|under|between|per|of|into|about|"
    r"around|during|since|up\s+to)\s+[$€£¥]?\d"
)
_WORD = re.compile(r"[A-Za-z][\w'’-]*|[$€£¥]?\d[\d.,:]*")
_WINDOW_WORD = re.compile(r"[\w'’]+")
_PREPOSITIONS = PREPOSITIONS | {"of"}


def split_parts(sentence: str) -> list[Part]:
    """The assertions of one sentence, in order; the whole sentence when it joins none."""
    parts: list[Part] = []
    piece_start, subject = 0, ""
    joints = _joints(sentence)
    for index, (joint_start, joint_end, predicates_only) in enumerate(joints):
        left = sentence[piece_start:joint_start]
        right = sentence[joint_end:]
        if not predicates_only and _is_clause(left) and _opens_clause(right) and _SUBJECT_START.match(right) \
                and not _elliptical(right) and not _inside_a_name(sentence, joint_start, joint_end):
            parts.append(Part(piece_start, joint_start, subject))
            piece_start, subject = joint_end, ""
            continue
        shared = subject or _subject(left)
        if not shared or not _opens_predicate(right) or _bare_verb_before(left):
            continue
        if predicates_only and not _closed_by_and(sentence, joints[index + 1 :]):
            continue
        parts.append(Part(piece_start, joint_start, subject))
        piece_start, subject = joint_end, shared
    parts.append(Part(piece_start, len(sentence), subject))
    return [part for part in parts if part.end > part.start]


def _joints(sentence: str) -> list[tuple[int, int, bool]]:
    """(start, end, commas of a list) of every place the sentence may join two assertions, in order. None
    inside a quotation: 'whereupon Heimbach "grabbed and injured my hand," Parrott said' reports one thing
    said, whose words are the speaker's."""
    quoted = _quotations(sentence)
    joints = [(m.start(), m.end(), False) for m in _JOINT.finditer(sentence)]
    taken = [(start, end) for start, end, _ in joints]
    joints += [(m.start(), m.end(), True) for m in _LIST_COMMA.finditer(sentence)
               if not any(start <= m.start() < end for start, end in taken)]
    return sorted(joint for joint in joints if not any(start < joint[0] < end for start, end in quoted))


_QUOTATION = re.compile(r'"[^"]*(?:"|$)|“[^”]*(?:”|$)')
"""A quotation in straight or curly marks; one left open runs to the end of the sentence."""


def _quotations(sentence: str) -> list[tuple[int, int]]:
    return [match.span() for match in _QUOTATION.finditer(sentence)] if '"' in sentence or "“" in sentence else []


def _bare_verb_before(left: str) -> bool:
    """Whether the text before a joint ends on a verb in the past with nothing after it: "lived and worked
    primarily in Czechoslovakia", "was founded and funded by the city" share what follows the second verb,
    so the first is no assertion of its own."""
    found = words(left)
    if not found:
        return False
    last, start, _ = found[-1]
    return in_the_past(last) and left[start:].rstrip(" ,").isalpha() and left[start].islower()


def _closed_by_and(sentence: str, later: list[tuple[int, int, bool]]) -> bool:
    """Whether a list's comma is followed by an "and" (or "but") that joins a predicate too."""
    return any(
        not commas and _PREDICATE_JOINT.fullmatch(sentence[start:end]) and _opens_predicate(sentence[end:])
        for start, end, commas in later
    )


def _is_clause(text: str) -> bool:
    """Enough of a sentence to stand alone: a few words including something verb-like."""
    words = text.split()
    return len(words) >= 3 and bool(_FINITE_VERB.search(" ".join(words[1:6])))


def _opens_clause(text: str) -> bool:
    """Whether what follows a joint is a clause of its own (`_is_clause`), with its verb before any
    preposition: a verb-like word after one is a participle ("GAAP basis in Q2 compared to last year") or a
    noun ("a 15% discount for new customers"), and a word in -is or -us a noun ("basis", "status"). Without
    that the joint joins noun phrases: "on a non-GAAP and GAAP basis in Q2 compared to last year"."""
    if not _is_clause(text):
        return False
    # What brackets hold is an aside, never the verb: "and Dean Garcia (drums)" names a fourth member.
    said = _ASIDE.sub(" ", text).split()
    window = _WINDOW_WORD.findall(" ".join(said[1:6]))
    for before, word in zip([(_WINDOW_WORD.findall(said[0]) or [""])[-1], *window], window, strict=False):
        if word.lower() in _PREPOSITIONS:
            return False
        if _AUXILIARY.fullmatch(word):
            return True
        # A word in -s or -ed just after an article or a possessive is the noun it opens: "and the listeners,
        # if they just chat away" joins the listeners to "me", whatever verb follows them.
        if (_FINITE_VERB.fullmatch(word) and not word.endswith(("is", "us")) or word in SIMPLE_PAST) \
                and not _ARTICLE.fullmatch(before):
            return True
    return False


_ARTICLE = re.compile(r"(?i:the|a|an|its|their|his|her|our|your|my|every|no)")


def _inside_a_name(sentence: str, joint_start: int, joint_end: int) -> bool:
    """Whether the joint is a plain "and" between two capitalised words: a name's own ("the New Jersey Sports
    and Exposition Authority would ...", "Procter and Gamble"), whatever verb-like word comes before it."""
    before = sentence[:joint_start].rstrip()
    return (sentence[joint_start:joint_end].strip().lower() in ("and", "&") and before[-1:].isalnum()
            and _NAME_ENDING.search(before) is not None and sentence[joint_end:joint_end + 1].isupper())


_NAME_ENDING = re.compile(r"(?<![.!?]\s)\b[A-Z][\w&'’-]*$")
"""A capitalised word ending the text, not a sentence's first word."""


def _elliptical(clause: str) -> bool:
    """Whether a clause ends on an auxiliary whose verb it leaves out: "she says it will be", "he will
    tomorrow", "it wasn't then". Only "be", a negation and adverbs of time or addition may follow it."""
    read = [word for word, _, _ in words(clause)]  # "won't" is read as "will" and "n't"
    last = max((i for i, word in enumerate(read) if _AUXILIARY.fullmatch(word)), default=None)
    return last is not None and all(word in _AFTER_ELIDED_VERB for word in read[last + 1:])


def _subject(clause: str) -> str:
    """What comes before the clause's verb ("The museum" of "The museum opens at 9"); "" when unsure. An
    opening phrase set off by a comma may have a verb of its own ("By googling around to see who else might
    be lamenting the changes, I discovered ..."), or be a clause of its own ("The client is interested, and
    after asking about deductibles, the agent suggests ..."): then the subject is the one after its comma."""
    found = _before_verb(clause)
    cut = clause.rfind(", ")
    if found and len(found) < cut:
        pronoun = _PRONOUN_SUBJECT.match(clause, cut + 2)
        after = pronoun.group(1) if pronoun else _before_verb(clause[cut + 2:])
        if after:
            return after
    return found


_PRONOUN_SUBJECT = re.compile(r"(I|[Hh]e|[Ss]he|[Ww]e|[Tt]hey|[Yy]ou|[Ii]t) \w")
"""A pronoun and the word after it: the subject of what follows ("I found", "they sold")."""


def _before_verb(clause: str) -> str:
    words = list(_WORD.finditer(clause))
    for word in words[1:]:
        if _is_verb(word.group(), clause[word.end():]):
            subject = clause[: word.start()].rstrip(" ,")
            # A determiner alone ("The" of "The sales team works...", read at "sales") is no subject.
            return "" if _DETERMINER.fullmatch(subject) else subject
    return ""


def _opens_predicate(text: str) -> bool:
    """Whether `text` starts with a verb and what a verb takes: "closes at 5", "is free", "includes 5 seats"."""
    first = _WORD.match(text)
    return first is not None and len(text.split()) >= 2 and _is_verb(first.group(), text[first.end():])


def _is_verb(word: str, after: str) -> bool:
    if _AUXILIARY.match(word):
        return True
    if not _INFLECTED.match(word) or word.endswith(_NOT_A_VERB_ENDING):
        return False
    rest = after.lstrip()
    return bool(_OBJECT_START.match(rest) or _PREPOSITION_WITH_NUMBER.match(rest))
