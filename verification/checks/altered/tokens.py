"""How the altered check reads a claim and a sentence for its diff: the words that carry content, and
negations, each keyed to compare alike, a stated value one token, a name known by its capital."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from verification.claims.commitments.value_patterns import WORD_NUMBERS
from verification.claims.tokens import STOP_WORDS, initialism, is_negating, stem, words

NEGATION = "<not>"
NON = "non"
"""The "non" of "non-refundable": read as one word with the word after the hyphen, which it negates."""
VALUE = "<value "
Opcode = tuple[str, int, int, int, int]
"""One edit of the diff, as `difflib.SequenceMatcher.get_opcodes` gives it: (kind, i1, i2, j1, j2)."""


@dataclass(frozen=True)
class Token:
    key: str
    surface: str
    named: bool
    """A name or a number: capitalised past the first word, or a digit."""
    joined: bool = False
    """Written right after the token before it, a space between: one name with it where both are names."""
    start: int = 0
    """Where it starts in its text."""


def is_name(token: Token) -> bool:
    return token.named and not token.key[:1].isdigit()


def sort_of(token: Token) -> str:
    return "number" if token.key[:1].isdigit() or is_value(token) else "name"


def digits(text: str) -> str:
    return "".join(character for character in text if character.isdigit())


def is_value(token: Token) -> bool:
    return token.key.startswith(VALUE)


@lru_cache(maxsize=8192)
def sentence_tokens(text: str) -> list[Token]:
    """A sentence's tokens where it states none of the claim's values: read once per sentence."""
    return read_tokens(text, words(text), [])


def read_tokens(text: str, read: Sequence[tuple[str, int, int]], values: Sequence[tuple[int, int, int]]) -> list[Token]:
    """The words that carry content, and negations, keyed to compare alike; each stated value (start, end,
    key) is one token."""
    tokens: list[Token] = []
    last = 0  # where the last token ends
    non: int | None = None  # where a "non-" just read starts
    for index, (word, start, end) in enumerate(read):
        value = next(((low, high, key) for low, high, key in values if low <= start < high), None) if values else None
        if value is not None:
            key = f"{VALUE}{value[2]}>"
            if last != value[1]:  # a value's first word: the value's other words are the same token
                tokens.append(Token(key, text[value[0]:value[1]], False, start=value[0]))
            last = value[1]
        elif word == NON and text[end:end + 1] == "-":
            if text[end + 1:end + 2].islower():
                non = start  # read with the word after the hyphen, as one word: "non-refundable"
                continue
            tokens.append(Token(NON, text[start:end], False, start=start))  # "non-GAAP" names a measure
            last = end
        elif is_negating(word):
            tokens.append(Token(NEGATION, text[start:end], False, start=start))
            last = end
        elif (word not in STOP_WORDS and len(word) > 1) or word[:1].isdigit() or _initialism(text, start, end) \
                or len(word) > 1 and text[start].isupper() and not _opens_line(text, index, start):
            # A function word with a capital inside a line is a name's ("the Out films", "The Who").
            number = WORD_NUMBERS.get(word)
            # A capital inside a word names as one at its start does: "iTunes", "eBay".
            named = word[:1].isdigit() or (text[start].isupper() and not _opens_line(text, index, start)) \
                or any(character.isupper() for character in text[start + 1:end])
            joined = bool(tokens) and text[last:start].isspace()
            if named and (joined or tokens and text[last:start] == "-") and not word[:1].isdigit() \
                    and _opens_name(tokens[-1]):
                # The capital that opens a line opens a name where a name goes on from it, after a space or
                # a hyphen ("Blank Slate among others.", "Armenian-American actor"): the line's first word
                # is read as a name then, not as a word.
                tokens[-1] = replace(tokens[-1], named=True)
            # A number word with a capital inside a sentence is a name's ("Three-Step Cleaning Process").
            key = str(number) if number is not None and not named else stem(word)
            if non is not None and non + len(NON) + 1 == start:
                key, start = NON + key, non
            tokens.append(Token(key, text[start:end], named, joined, start))
            last = end
        non = None
    return tokens


def _initialism(text: str, start: int, end: int) -> bool:
    """`tokens.initialism`, past a text's first word."""
    return start > 0 and initialism(text, start, end)


def _opens_name(token: Token) -> bool:
    return not token.named and token.surface[:1].isupper() and token.key not in (NEGATION,) and not is_value(token)


def _opens_line(text: str, index: int, start: int) -> bool:
    """Whether the word at `start` opens a line: a capital after a colon or a quote ("Ann: Darling, ...")
    opens one rather than names. The character before it is found by stepping back over spaces, not by
    copying the text before every capitalised word."""
    if index == 0:
        return True
    before = start
    while before > 0 and text[before - 1].isspace():
        before -= 1
    # Nothing but spaces before it opens the text, as the first word does.
    if before == 0:
        return True
    mark = text[before - 1]
    if mark == '"' and before > 1 and not text[before - 2].isspace() and text[before - 2] not in "([:":
        return False  # a quote closed after a word: "Billboard's" Fences chart
    if mark == "(":
        # A bracket opened after a word holds a name: "Cordoba (Argentina)", "Leo Bill (Peterloo)".
        opened = before - 1
        while opened > 0 and text[opened - 1].isspace():
            opened -= 1
        return not (opened > 0 and text[opened - 1].isalnum())
    if mark in '"“':
        prior = text[:before - 1].rstrip()
        if prior[-1:].isalnum() or prior[-1:] == "(" and prior[:-1].rstrip()[-1:].isalnum():
            return False  # a quote opened after a word names a title: the motion picture "Titus", Leo Bill ("Peterloo")
    return mark in ":;\"“(["


def same_gap(ours: list[Token], i: int, claim: str, theirs: list[Token], j: int, text: str) -> bool:
    """Whether the same words, case aside, lie before `ours[i]` in the claim as before `theirs[j]` in the
    sentence, back to the token before each."""
    if not (0 < i < len(ours) and 0 < j < len(theirs)):
        return False
    before, other = ours[i - 1], theirs[j - 1]
    return " ".join(claim[before.start + len(before.surface):ours[i].start].lower().split()) \
        == " ".join(text[other.start + len(other.surface):theirs[j].start].lower().split())
