"""Words of a text as the offline verifier compares them: lower-cased, stemmed, stop words apart.

A claim and a source rarely use the same inflection ("acquired" / "acquires", "policies" /
"policy"), so matching is done on crude stems rather than surface forms. The stemmer is small on
purpose: it only has to map both sides to the same key, not produce real lemmas.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

# Initialisms ("U.K.", "e.g.") first, as one word; then words, numbers with their separators,
# and a trailing possessive or contraction. Every word starts with a letter or a digit: the look at it
# first lets a scan pass over spaces and marks at once.
_WORD = re.compile(
    r"(?=[A-Za-z0-9])(?:(?<![A-Za-z])[A-Za-z](?:\.[A-Za-z])+\.?(?![A-Za-z])|[A-Za-z0-9]+(?:[.,][0-9]+)*"
    r"(?:['’][A-Za-z]+)?)"
)

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just let me
    more most my myself of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves s t ll ve re d m o y ma also may might must shall us via per one's
    said says say like well much many new
    """.split()
)

# Negation is a commitment of its own; it must never count as ordinary content.
NEGATION_WORDS = frozenset(
    {"not", "no", "never", "cannot", "without", "none", "nobody", "nothing", "neither", "nor", "n't"}
)

_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)$")

_IRREGULAR = {
    "was": "be", "were": "be", "is": "be", "are": "be", "been": "be", "being": "be",
    "has": "have", "had": "have", "having": "have", "bought": "buy", "sold": "sell", "won": "win",
    "lost": "lose", "led": "lead", "left": "leave", "became": "become", "began": "begin",
    "begun": "begin", "wrote": "write", "written": "write", "held": "hold", "met": "meet",
    "paid": "pay", "told": "tell", "made": "make", "took": "take", "taken": "take", "gave": "give",
    "given": "give", "went": "go", "gone": "go", "got": "get", "knew": "know", "known": "know",
    "grew": "grow", "grown": "grow", "ran": "run", "saw": "see", "seen": "see", "spent": "spend",
    "built": "build", "sent": "send", "brought": "bring", "thought": "think", "felt": "feel",
    "kept": "keep", "chose": "choose", "chosen": "choose", "rose": "rise", "risen": "rise",
    "fell": "fall", "fallen": "fall", "children": "child", "men": "man", "women": "woman",
    "people": "person", "did": "do", "done": "do", "does": "do", "says": "say", "said": "say",
}
SIMPLE_PAST = frozenset(
    "won lost led left became began wrote held met paid told made took gave went got knew grew ran saw spent "
    "built sent brought thought felt kept chose rose fell bought sold did said came drew drove ate fought flew "
    "forgot froze heard hid meant rode rang sang sat shook slept stood stole struck swam taught threw "
    "understood woke wore broke caught fled forgave sought sank stuck swore tore withdrew overcame overtook "
    "undertook blew dealt dug lent slid wept".split()
)
"""The irregular past forms above that are finite on their own ("He ran for the Senate"); no ending in -ed
shows them a verb. Participles ("written", "taken") need an auxiliary, which shows it."""


def in_the_past(word: str) -> bool:
    """Whether the (lower-cased) word is a verb in the past: in -ed past three letters ("red" is none), or an
    irregular past (`SIMPLE_PAST`)."""
    return len(word) > 3 and word.endswith("ed") or word in SIMPLE_PAST
# A source writes "Nov 10" where a claim writes "November 10": one key for both.
_MONTH_ABBREVIATIONS = {
    short: full for full, short in (
        ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("june", "jun"),
        ("july", "jul"), ("august", "aug"), ("september", "sep"), ("september", "sept"),
        ("october", "oct"), ("november", "nov"), ("december", "dec"))
}


def initialism(text: str, start: int, end: int) -> bool:
    """Whether the word at `text[start:end]` is written in capitals, two letters or more, in a text that is not
    all capitals: an initialism or a name ("AM", "IT", "US"), whatever the same letters in lower case are
    ("am", "it", "us" are stop words)."""
    surface = text[start:end]
    return len(surface) > 1 and surface.isalpha() and surface.isupper() and not text.isupper()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude, deterministic stem of one lower-cased word."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _MONTH_ABBREVIATIONS:
        return stem(_MONTH_ABBREVIATIONS[word])
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    if word[:1].isdigit():
        # "9th" and "9" are the same number to compare; so are "1,000" and "1000".
        return _ORDINAL.sub("", word.replace(",", ""))
    for suffix, replacement, min_stem in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= min_stem:
            word = word[: len(word) - len(suffix)] + replacement
            break
    # "stopped" -> "stopp" -> "stop": collapse a doubled final consonant left by the suffix rules.
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word.rstrip("e") if len(word) > 3 else word


_SUFFIXES: tuple[tuple[str, str, int], ...] = (
    ("ational", "ate", 3), ("ization", "ize", 3), ("fulness", "ful", 3), ("iveness", "ive", 3),
    ("ability", "", 4), ("ibility", "", 4), ("able", "", 4), ("ible", "", 4), ("ably", "", 4),
    ("ements", "", 3), ("ement", "", 3), ("ments", "", 3), ("ment", "", 4), ("ities", "", 3),
    ("ity", "", 3), ("ness", "", 3), ("ings", "", 3), ("ing", "", 3), ("ies", "y", 2),
    ("ied", "y", 2), ("ion", "", 4), ("ions", "", 4), ("ier", "y", 3), ("ers", "", 3), ("er", "", 4),
    ("edly", "", 3),
    ("ed", "", 3), ("ly", "", 4), ("sses", "ss", 2), ("es", "", 4), ("s", "", 3),
)


# A range of years, the second written in full or by its last two digits: "1491–1510", "2018-19". (A look at
# the first digit lets a scan pass over every other character at once.)
YEAR_RANGE = re.compile(
    r"(?=[12])(?<![\w.,])((?:1[0-9]|20)\d{2})\s?[-–—]\s?((?:1[0-9]|20)\d{2}|\d{2})(?![\w%]|[-–.,]\d)"
)


def year_range(match: re.Match[str]) -> tuple[int, int] | None:
    """The two years of a YEAR_RANGE match, or None when it is not a range ("2016-08" is a month)."""
    first, second = int(match[1]), int(match[2])
    if len(match[2]) == 2:
        second += first // 100 * 100
        if second <= first and match[2] == "00":
            second += 100  # "1999–00"
    return (first, second) if first < second <= first + 100 else None


def words(text: str) -> list[tuple[str, int, int]]:
    """Every word of `text` with its offsets, lower-cased; "n't" is split off as its own word.

    The short end of a year range is written out ("2018–19" gives "2018" and "2019"), so it matches
    a source that spells the range in full.
    """
    return list(_words(text))


# A case asks for the words of its claims and sentences dozens of times (stems, names, negation,
# values); each text is tokenised once and the result shared. The cache holds tuples, so no caller
# can change what another one reads; bounded, it holds many cases' texts at once.
TEXT_CACHE_SIZE = 4096
"""How many texts' words, stems and mentions are kept."""


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _words(text: str) -> tuple[tuple[str, int, int], ...]:
    if text.isascii() and "'" not in text and "-" not in text:
        # Most sentences: no contraction, no year range, nothing to lower word by word. The words are
        # those `_read_words` yields, read in one pass without a generator (every sentence of a case
        # is read here); a dotted word ("U.K.", "v2.0") is mended as `_read_words` mends it.
        found = []
        for match in _WORD.finditer(text.lower()):
            word = match.group()
            if "." in word and word[:1].isalpha():
                word = word.replace(".", "")
            found.append((word, match.start(), match.end()))
        return tuple(found)
    return tuple(_read_words(text))


def first_word(text: str) -> str | None:
    """The first of the words of `text` (`words(text)[0][0]`), or None; the rest of the text is not read.

    For a glance at the word after a name: a slice read whole would only be thrown away, and kept in the
    cache in place of a sentence that is read again.
    """
    return next((word for word, _, _ in _read_words(text)), None)


CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}
"""Words whose spelling changes before "n't", by that spelling: "won't" is "will" and "n't"."""


def _read_words(text: str) -> Iterator[tuple[str, int, int]]:
    """The words of `text` in order, as `words` has them."""
    short_years = {
        match.start(2): str(years[1]) for match in YEAR_RANGE.finditer(text)
        if len(match[2]) == 2 and (years := year_range(match))
    } if "-" in text or "–" in text or "—" in text else {}
    # Lower-casing ASCII text keeps every offset, so it is lowered once rather than word by word (the
    # pattern matches either case alike); other text can change length when lowered ("İ").
    ascii_text = text.isascii()
    for match in _WORD.finditer(text.lower() if ascii_text else text):
        word = match.group() if ascii_text else match.group().lower().replace("’", "'")
        start, end = match.span()
        if "." in word and word[:1].isalpha():
            word = word.replace(".", "")  # "U.K." is "uk", as a source that writes "UK" has it
        word = short_years.get(start, word)
        if word.endswith("n't") and len(word) > 3:
            base = word[:-3]
            yield CONTRACTED.get(base, base), start, end - 3
            yield "n't", end - 3, end
        else:
            yield word, start, end


def spelled_out(read: Sequence[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The words as one wording is compared with another word for word: "n't" is "not" and "cannot" is "can"
    and "not", each at the part of the word it is read from, so "It can't be" says "It cannot be" and "It
    cannot be" is "It can be" with a "not" put in."""
    out: list[tuple[str, int, int]] = []
    for word, start, end in read:
        if word == "cannot":
            out.extend((("can", start, start + 3), ("not", start + 3, end)))
        else:
            out.append(("not" if word == "n't" else word, start, end))
    return out


def content_stems(text: str) -> list[str]:
    """Stems of the words that carry content, in order, duplicates kept."""
    return list(_content_stems(text))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _content_stems(text: str) -> tuple[str, ...]:
    return tuple([
        stem(word)
        for word, _, _ in _words(text)
        if word not in STOP_WORDS and word not in NEGATION_WORDS and len(word) > 1 or word[:1].isdigit()
    ])


def has_negation(text: str) -> bool:
    """Whether any negating word appears in `text`."""
    return any(word in _NEGATING for word, _, _ in _words(text))


_NEGATION_REACH = 3
"""How many words after a negating word may pass before the word it negates."""
_NEGATION_PHRASES = frozenset({
    ("no", "longer"), ("not", "longer"), ("never", "again"), ("not", "yet"), ("not", "able"), ("unable", "to"),
})
"""A negating word and the word that completes it: the negated word comes after both."""
_AS_NOT = {"n't": "not", "cannot": "not"}
"""Negating words that are a "not" to `_NEGATION_PHRASES`: "hasn't yet been approved" negates "approved"."""
_ALTERNATIVE = frozenset({"or", "nor"})
_NOT_A_NEGATION = frozenset({"only", "merely"})
"""After "not" these make "not only ... but also", which asserts both parts and denies nothing."""
_NON = "non"
_NEGATING = NEGATION_WORDS | {_NON, "unable"}
"""Negating words as `negated_stems` reads them: also the "non" of "non-refundable" (a word of its own once
split at the hyphen) and "unable", which negates what it is unable to do ("unable to accept")."""
_NEGATING_PREFIXES = ("un", "non")
_PREFIX_NEGATES = 4
"""Shortest word a prefix negates: "unpaid" is "paid" negated; "until" and "union" negate nothing."""
_NOT_PREFIXED = frozenset({"unless"})


def is_negating(word: str) -> bool:
    """Whether the (lower-cased) word negates what follows it: "not", "never", "unable", ..."""
    return word in _NEGATING


def completes_negation(negating: str, word: str) -> bool:
    """Whether `word` completes the negation `negating` opens ("not yet", "n't yet", "no longer", "never
    again", "not able to"), so that what is negated comes after both."""
    return (_AS_NOT.get(negating, negating), word) in _NEGATION_PHRASES


_DENIABLE = ("able", "ible")
"""The endings of the adjectives `denied_quality` reads: what can or cannot be done."""


def denied_quality(word: str) -> str | None:
    """The adjective of what can or cannot be done that an "un" or "non" denies in `word` ("available" of
    "unavailable", "refundable" of "nonrefundable"), or None. Only adjectives in "-able" and "-ible" are
    read so: the "un" of "unpacked" undoes, where "not packed" denies."""
    if not word.endswith(_DENIABLE):
        return None  # most words: read before the prefixes are
    base = prefix_negated(word)
    return base if base is not None and base.endswith(_DENIABLE) else None



def prefix_negated(word: str) -> str | None:
    """The word an "un" or "non" negates in `word` ("available" in "unavailable", "refundable" in
    "nonrefundable"), or None. A stem that is no word ("derstand" in "understand") is harmless: no other
    text has it to compare."""
    for prefix in _NEGATING_PREFIXES:
        if word.startswith(prefix) and word not in _NOT_PREFIXED:
            base = word[len(prefix):]
            if len(base) >= _PREFIX_NEGATES and base.isalpha() and base not in STOP_WORDS:
                return base
    return None


@lru_cache(maxsize=8192)
def negated_stems(text: str) -> frozenset[str]:
    """Stems of the words a negation applies to: the first content word after each negating word.

    "was not arrested" negates "arrest"; comparing these, rather than whether a sentence has a
    negating word anywhere, keeps an unrelated "never" elsewhere in a long sentence from flipping
    the polarity of what the claim says.
    """
    tokens = _words(text)
    negated = set(free_of_stems(text))
    for i, (word, _, _) in enumerate(tokens):
        if word not in _NEGATING or tokens[i + 1 : i + 2] and tokens[i + 1][0] in _NOT_A_NEGATION:
            continue
        if word == _NON and (i + 1 == len(tokens) or text[tokens[i + 1][1]].isupper()):
            continue  # "non-Muslim nations" names a group; it denies nothing about Muslims
        if word == "no" and answering(text, tokens[i][1]):
            continue  # "No, worse - it's the punchline" answers what was asked; it denies nothing after it
        for k, (following, _, _) in enumerate(tokens[i + 1 : i + 1 + _NEGATION_REACH], start=i + 1):
            if completes_negation(word, following):
                continue  # "no longer refundable" negates "refundable", not "longer"
            if following not in STOP_WORDS and following not in NEGATION_WORDS:
                negated.add(stem(following))
                # A negation reaches each word "or" joins to the one it negates: "do not sell or rent".
                while tokens[k + 1 : k + 2] and tokens[k + 1][0] in _ALTERNATIVE and k + 2 < len(tokens) \
                        and tokens[k + 2][0] not in STOP_WORDS and tokens[k + 2][0] not in NEGATION_WORDS:
                    k += 2
                    negated.add(stem(tokens[k][0]))
                break
    return frozenset(negated)


def answering(text: str, start: int) -> bool:
    """Whether the "no" at `start` answers what was asked ("No, worse.", "Client: No, I have not."): a comma
    follows it and nothing but a speaker's label, a quote or a bracket is before it in its sentence."""
    if text[start + 2:start + 3] != ",":
        return False
    before = text[:start].rstrip()
    return not before or before[-1] in _OPENS_AN_ANSWER


_OPENS_AN_ANSWER = frozenset(':"“‘\'(.!?')
"""Marks after which a "No," opens what a sentence or a line says."""


_FREE_OF = re.compile(r"\b([A-Za-z]+)-free\b", re.IGNORECASE)


@lru_cache(maxsize=8192)
def free_of_stems(text: str) -> frozenset[str]:
    """Stems of the words a "-free" compound denies: "a risk-free trial" says there is no risk."""
    if "-free" not in text.lower():
        return frozenset()
    return frozenset(stem(found[1].lower()) for found in _FREE_OF.finditer(text))


@lru_cache(maxsize=8192)
def after_negation_stems(text: str) -> frozenset[str]:
    """Stems of every content word that follows a negating word anywhere before it in `text`.

    Far wider than `negated_stems`: spoken text ("it's not for the, for the e, for the elderly") puts
    the negated word well past the negation. A rule that calls a claim wrong because its source never
    negates a word asks this, so that any doubt counts against the rule.
    """
    near: set[str] = set()
    negated = False
    for word, _, _ in _words(text):
        if word in _NEGATING:
            negated = True
        elif negated and word not in STOP_WORDS:
            near.add(stem(word))
    return frozenset(near)
