"""Whether a statement has a finite verb: says something of its own, or only names what its question asks for.

A bare answer ("Sergei Grinkov", "dairy products", "ten weeks") is read with its question; a sentence
("Paramount produced the sequel", "Refunds reach the card in 5 days") states its claim itself, and only
a sentence can be proven by a source's words alone. With no tagger at hand, a verb is told by its form
and by what comes before it: English puts the subject first.
"""

from __future__ import annotations

import re

from verification.claims.clauses import CLAUSE_JOIN, PREPOSITIONS
from verification.claims.tokens import SIMPLE_PAST, STOP_WORDS, words

_AUXILIARY = frozenset({"is", "are", "am", "was", "were", "has", "have", "had", "will", "would", "can", "cannot",
                        "could", "may", "might", "must", "shall", "should", "does", "do", "did"})
_INFLECTED = re.compile(r"[a-z]{2,}(?:ed|s)")
_NOUN_ENDING = ("is", "us", "ss")
"""Words that end as an -s inflection cannot: "tennis", "rebellious", "business"."""
_BEFORE_A_NOUN = frozenset({
    "the", "a", "an", "this", "these", "those", "his", "her", "its", "their", "our", "my", "your", "some", "many",
    "few", "several", "no", "every", "each", "other", "of", "that", "which", "who", "and", "or", "than",
}) | PREPOSITIONS
"""Words after which the next word heads or continues a noun phrase ("the plants", "for athletes", "the band
that released ...") or a relative clause, never the main verb."""
_NUMBER_WORDS = frozenset({"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"})
_SUBJECTS = frozenset({"i", "you", "he", "she", "it", "we", "they", "one", "both", "all", "everyone"})
_NOMINATIVE = frozenset({"i", "he", "she", "we", "they"})
"""Pronouns only a subject takes: the word after one is its verb ("she came in 2nd place")."""
_CONTRACTED_VERB = re.compile(r"(?:i|you|he|she|it|we|they|that|there|here|who|what)'(?:s|re|ve|ll|d|m)")
"""A pronoun with its verb contracted onto it: "I've been", "she's", "they're", "it'll" say "I have been", "she
is", "they are", "it will". (A noun's "'s" is its possessive: "the company's headquarters" has no verb.)"""

Word = tuple[str, int, int]


def has_verb(statement: str) -> bool:
    """Whether the statement has a finite verb. An auxiliary or a past tense counts in lower case only ("May
    30, 1943" and "I Will Always Love You" are titles and dates); any other word by what precedes it."""
    found = words(statement)
    return any(
        (word in _AUXILIARY or word in SIMPLE_PAST) and statement[start].islower()
        or _CONTRACTED_VERB.fullmatch(word) is not None
        or _verb_after_subject(statement, found, at)
        for at, (word, start, _) in enumerate(found)
    )


def later_predicate(text: str, last: int, at: int) -> bool:
    """Whether the word at offset `at` is in a predicate joined after the words that end at offset `last`:
    the last join between them ("and", "but", "or", a semicolon) is followed by a verb of its own ("... in
    1809 and can be found everywhere"). A join with no verb after it joins nouns ("damaged items and gift
    cards"); a word before `last`, or `last` < 0 (no words), is in no later predicate."""
    if last < 0 or at < last:
        return False
    joins = list(CLAUSE_JOIN.finditer(text, last, at))
    return bool(joins) and has_verb(text[joins[-1].end() : at])


_CONTRAST = re.compile(r"\b(?:but|while|whereas)\b|;", re.IGNORECASE)


def later_clause(text: str, last: int, at: int) -> bool:
    """Whether the word at offset `at` is in a clause set against the words that end at offset `last`: the
    last join between them is "but", "while", "whereas" or a semicolon, and a verb of its own follows it
    ("It might be pricey, but our policies come with benefits ... if the worst were to happen"). "Refunds
    are issued, but only if you have a receipt" has no verb after its "but": the condition is the first
    clause's. "And" is no such join: "return items and get a refund if ..." may gate both."""
    if last < 0 or at < last:
        return False
    joins = list(CLAUSE_JOIN.finditer(text, last, at))
    return bool(joins) and _CONTRAST.fullmatch(joins[-1].group()) is not None and has_verb(text[joins[-1].end():at])


def _verb_after_subject(statement: str, found: list[Word], at: int) -> bool:
    """Whether the word at `at` is a verb its subject precedes.

    - After "she", "they", or "you" and "it" opening the statement: any word in lower case ("she came",
      "You get a refund").
    - After a plural noun: a word in lower case that opens no phrase ("Refunds reach", "Prices vary"),
      unless a number counts the noun ("3000 metres steeplechase").
    - A word in -s or -ed after a name, a pronoun or a noun ("Mary sings", "Paramount produced the
      sequel"), but not one closing a noun phrase ("flowering plants", "comic roles", "ten weeks") or
      with nothing before it ("refers to different weight classes").
    """
    word, start, _ = found[at]
    if at == 0 or not statement[start].islower() or not word.isalpha() or word in _BEFORE_A_NOUN:
        return False
    before, before_start, before_end = found[at - 1]
    if before in _NOMINATIVE or (at == 1 and before in ("you", "it")):
        return True  # "she came", and "You get", "It opens" where the pronoun opens the statement
    counted = at >= 2 and (found[at - 2][0].isdigit() or found[at - 2][0] in _NUMBER_WORDS)
    possessive = statement[before_end:before_end + 1] in ("'", "’")  # "The Deaflympics' first event"
    if _plural(before) and not counted and not possessive:
        return True
    if not _INFLECTED.fullmatch(word) or word.endswith(_NOUN_ENDING):
        return False
    hyphened = statement[before_start - 1:before_start] == "-"  # "Snap-on reported": "on" ends a name
    counts = (before.isdigit() or before in _NUMBER_WORDS) and not _named(statement, found, at - 1)
    if before in _BEFORE_A_NOUN and not hyphened or counts and not word.endswith("ed"):
        # "ten weeks", "3000 metres"; but "born in September 1872 used their poetry", "The Elm 12 weighs"
        return False
    # A word in -s closing what a lower-case word opened is a noun: "flowering plants". After a name or a
    # pronoun it is a verb: "Mary sings", "it rains".
    closes = at == len(found) - 1 and statement[before_start].islower() and before not in _SUBJECTS
    return not closes


def _named(statement: str, found: list[Word], at: int) -> bool:
    """Whether the number at `at` ends a name ("The Elm 12", "Windows 11"), after a capitalised word that is
    no function word ("Around 400 miles", "Over 30 days")."""
    if at == 0:
        return False
    word, start, _ = found[at - 1]
    return statement[start].isupper() and word not in STOP_WORDS and word not in _APPROXIMATELY


_APPROXIMATELY = frozenset({"around", "approximately", "nearly", "almost", "roughly", "exactly", "only"})


def _plural(word: str) -> bool:
    return len(word) > 3 and word.isalpha() and word.endswith("s") and not word.endswith(_NOUN_ENDING)
