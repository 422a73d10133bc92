"""The words and patterns values are written with: number words and scales, currencies, months, duration
units, and one regular expression per kind of value, with the cheap tests that rule a pattern out before
it scans a text. They shape verdicts (a change here bumps the value checks' versions in `offline.CHECKS`);
`values.py` reads values with them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from verification.types import CommitmentKind

WORD_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100, "dozen": 12,
}
_SCALES = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "mm": 1e6, "billion": 1e9,
    "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12,
}
_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
_CURRENCY_WORDS = {
    "usd": "USD", "dollar": "USD", "dollars": "USD", "us$": "USD", "eur": "EUR", "euro": "EUR",
    "euros": "EUR", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "jpy": "JPY", "yen": "JPY",
    "inr": "INR", "rupees": "INR", "cad": "CAD", "aud": "AUD", "chf": "CHF", "cents": "USD-cent",
}
_DURATION_DAYS = {
    "minute": 1 / 1440, "hour": 1 / 24, "day": 1, "night": 1, "week": 7, "fortnight": 14, "month": 30,
    "quarter": 91, "year": 365, "decade": 3650,
}
MONTHS = {
    name: index + 1
    for index, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")]
    )
    for name in names
}

_NUM = r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_WORD_NUM = "|".join(sorted((re.escape(w) for w in WORD_NUMBERS), key=len, reverse=True))
# Tried at every word boundary, the number words cost more than the rest of a pattern; a look at the
# first letter (every number word starts with one of these) rules most words out at once.
_WORD_NUM_FIRST = "".join(sorted({word[0] for word in WORD_NUMBERS}))
_COUNT = rf"(?:{_NUM}|\b(?=[{_WORD_NUM_FIRST}])(?:{_WORD_NUM})\b)"
# The same look at the first character before a pattern that starts with a count: a scan then passes
# over every position that holds neither a digit nor such a letter at once.
_COUNT_START = rf"(?=[\d{_WORD_NUM_FIRST}])"
_SCALE = r"(?:\s?(?:thousand|million|billion|trillion|mn|bn|tn|[kKmMbB])\b)"
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|" \
    r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?)"
# A four-digit number before one of these is a count, not a year ("1500 employees").
_COUNT_NOUNS = r"(?:people|persons|employees|users|customers|units|copies|words|students|members|staff|" \
    r"workers|jobs|times|mg|ml|km|miles|meters|feet|tons|items|votes|shares|seats|pages|cases|deaths)\b"
_COUNT_AFTER = re.compile(rf"\s+{_COUNT_NOUNS}")
ABBREVIATED_UNITS = ("KB", "MB", "GB", "TB", "PB", "Kbps", "Mbps", "Gbps", "kHz", "MHz", "GHz", "kWh", "Wh", "mAh",
                     "kW", "MW")
"""Units written as capitalised abbreviations: "10 GB" and "10 MB" are different amounts of one thing."""
_ABBREVIATED = r"(?=[KMGTPkmW])(?:[KMGTP]B|[KMG]bps|[kMG]Hz|k?Wh|mAh|[kM]W)"
"""ABBREVIATED_UNITS as one pattern, with a look at the first letter so that most numbers pass at once."""
_DURATION_UNIT = r"(?:minute|hour|day|night|week|fortnight|month|quarter|year|decade)s?"

_PATTERNS: tuple[tuple[CommitmentKind, re.Pattern[str]], ...] = (
    ("money", re.compile(
        rf"(?:(?P<sym>[$€£¥₹]|US\$)\s?(?P<num>{_NUM})(?P<scale>{_SCALE})?"
        rf"|(?P<num2>{_NUM})(?P<scale2>{_SCALE})?\s?(?P<cur>USD|EUR|GBP|JPY|INR|CAD|AUD|CHF|dollars?|"
        rf"euros?|pounds|yen|rupees|cents)\b)", re.IGNORECASE)),
    ("duration", re.compile(
        rf"{_COUNT_START}(?P<num>{_COUNT})(?:[\s-]+(?:business|calendar|working|full))?[\s-]+(?P<unit>{_DURATION_UNIT})\b",
        re.IGNORECASE)),
    ("percentage", re.compile(rf"{_COUNT_START}(?P<num>{_COUNT})\s?(?:%|percent\b|per cent\b|percentage points?\b)",
                              re.IGNORECASE)),
    ("date", re.compile(
        rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH})(?:,?\s+(?P<y1>\d{{4}}))?"
        rf"|(?P<m3>{_MONTH})\s+(?:of\s+)?(?P<y3>\d{{4}})"
        rf"|(?P<m2>{_MONTH})\s+(?P<d2>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?(?:,?\s+(?P<y2>\d{{4}}))?"
        rf"|(?P<y4>\d{{4}})-(?P<m4>\d{{2}})-(?P<d4>\d{{2}})"
        rf"|(?<![\w.,])(?P<y5>(?:1[0-9]|20)\d{{2}})s?(?![\d,.]\d|-\w|\s?%|\s+{_COUNT_NOUNS})"
        r")")),
    ("time", re.compile(r"\b(?P<h>\d{1,2})(?::(?P<min>\d{2}))?\s?(?P<ampm>[ap]\.?m\.?)(?!\w)"
                        r"|\b(?P<h2>[01]?\d|2[0-3]):(?P<min2>[0-5]\d)\b", re.IGNORECASE)),
    # Units are lower-case words ("5 seats", "500 mg") or the abbreviations of ABBREVIATED_UNITS ("10 GB");
    # "five Hollywood trades" has no unit.
    ("number", re.compile(
        rf"{_COUNT_START}(?P<num>{_COUNT})(?P<scale>{_SCALE})?"
        rf"(?:[\s-]+(?P<unit>[a-z]+|{_ABBREVIATED})\b|(?P<glued>{_ABBREVIATED})\b)?"
    )),
)
# Most sentences state no value at all, and each pattern above is a full scan. What each needs is
# cheap to look for first: these searches match wherever the pattern could (same flags, a part of
# it), so skipping a pattern when its search fails never changes what is found.
_DIGIT = re.compile(r"\d")
_COUNTS = re.compile(rf"{_COUNT_START}{_COUNT}", re.IGNORECASE)
"""Every count (a number or a number word, in any case) in a text. No count starts inside another, so the
places this scan finds are every place one can start."""
_NEEDS_DIGIT = frozenset({"money", "date", "time"})
"""Kinds whose every form has a digit; the others need a digit or a number word (`_COUNT`)."""
_STARTS_AT_A_COUNT = frozenset({"duration", "percentage", "number"})
"""Kinds whose pattern starts with a count: it is tried only where `_COUNTS` found one, one scan for all three."""
_STARTS_ANYWHERE = frozenset({"date"})
"""Kinds a match of which can start well before its first digit ("March 5"); every other pattern starts
at a number, a number word, or a currency sign just before a number ("US$ 5")."""
_SIGN_BEFORE_NUMBER = len("US$ ")
"""Farthest a match can start before its number."""
_FIRST_CHARACTERS: dict[CommitmentKind, re.Pattern[str]] = {
    "money": re.compile(r"[$€£¥₹\dU]", re.IGNORECASE),
    "date": re.compile(r"[\dJFMASOND]"),
    "time": re.compile(r"\d"),
}
"""The characters a match of the kind's pattern can start with, one place each: a currency sign, the "U" of
"US$" or a digit; a digit or a month's capital; a digit. A scan asks the pattern only there (`_scan`)."""
_MONEY_WORDS = ("$", "usd", "eur", "gbp", "jpy", "inr", "cad", "aud", "chf", "dollar", "euro", "pound", "yen",
                "rupee", "cent")
"""A part of every sign and currency word the money pattern knows ("US$" has the "$")."""
_DURATION_WORDS = ("minute", "hour", "day", "night", "week", "fortnight", "month", "quarter", "year", "decade")
_PERCENT_WORDS = ("%", "percent", "per cent")


def _may_say(text: str, parts: tuple[str, ...]) -> bool:
    """Whether `text` has one of `parts` (lower case) in any case: False rules out a case-blind pattern that
    cannot match without one of them.

    A plain substring test is far cheaper than a case-blind regex; it is exact only for ASCII text
    (case-blind matching folds a few other letters too), so any other text is left to the pattern.
    """
    lowered = _ascii_lowered(text)
    if lowered is None:
        return True
    # Asked four times of every text read for values: mapped in C rather than through a generator.
    return any(map(lowered.__contains__, parts))


# A text is asked about each sort of value in turn, one after the other: it is lowered once for all of them.
@lru_cache(maxsize=2)
def _ascii_lowered(text: str) -> str | None:
    """`text` lower-cased where it is ASCII; None otherwise."""
    return text.lower() if text.isascii() else None


_NEEDS_WORD: dict[CommitmentKind, Callable[[str], object]] = {
    "money": lambda text: _may_say(text, _MONEY_WORDS),
    "percentage": lambda text: _may_say(text, _PERCENT_WORDS),
    "duration": lambda text: _may_say(text, _DURATION_WORDS),
    # Every date form has a month name or four digits; every time a colon or a digit before "am"/"pm".
    # A look at the first character, which every month name and year starts with, lets the search pass
    # over most positions at once: without it it costs more than the scan it saves.
    "date": re.compile(rf"(?=[\dJFMASOND])(?:\d{{4}}|{_MONTH})").search,
    "time": re.compile(r":|\d\s?[ap]\.?m", re.IGNORECASE).search,
}
"""A test for a word or sign the kind's pattern cannot match without: when it fails, the pattern would find nothing."""
