"""Reading typed values: numbers, money, percentages, dates, times and durations, each normalised so two
of one kind compare (money in base units of its currency, durations in days, dates as (year, month,
day)); values with no end ("lifetime", "unlimited"); the role a value plays ("within", "after", "ago");
the two ends of a range read as one; rates ("per month") and the label of a label–value line. The
patterns and word lists are module constants: they shape verdicts, so this module is part of the
verifier's fingerprint (`offline._VERDICT_MODULES`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache

from verification.commitments.mention import Mention
from verification.tokens import NEGATION_WORDS, STOP_WORDS, TEXT_CACHE_SIZE, YEAR_RANGE, stem, year_range
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
_SCALE = r"(?:\s?(?:thousand|million|billion|trillion|mn|bn|tn|[kKmMbB])\b)"
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|" \
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
# A four-digit number before one of these is a count, not a year ("1500 employees").
_COUNT_NOUNS = r"(?:people|persons|employees|users|customers|units|copies|words|students|members|staff|" \
    r"workers|jobs|times|mg|ml|km|miles|meters|feet|tons|items|votes|shares|seats|pages|cases|deaths)\b"
_COUNT_AFTER = re.compile(rf"\s+{_COUNT_NOUNS}")
_DURATION_UNIT = r"(?:minute|hour|day|night|week|fortnight|month|quarter|year|decade)s?"

_PATTERNS: tuple[tuple[CommitmentKind, re.Pattern[str]], ...] = (
    ("money", re.compile(
        rf"(?:(?P<sym>[$€£¥₹]|US\$)\s?(?P<num>{_NUM})(?P<scale>{_SCALE})?"
        rf"|(?P<num2>{_NUM})(?P<scale2>{_SCALE})?\s?(?P<cur>USD|EUR|GBP|JPY|INR|CAD|AUD|CHF|dollars?|"
        rf"euros?|pounds|yen|rupees|cents)\b)", re.IGNORECASE)),
    ("duration", re.compile(
        rf"(?P<num>{_COUNT})(?:[\s-]+(?:business|calendar|working|full))?[\s-]+(?P<unit>{_DURATION_UNIT})\b",
        re.IGNORECASE)),
    ("percentage", re.compile(rf"(?P<num>{_COUNT})\s?(?:%|percent\b|per cent\b|percentage points?\b)",
                              re.IGNORECASE)),
    ("date", re.compile(
        rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH}),?\s+(?P<y1>\d{{4}})"
        rf"|(?P<m3>{_MONTH})\s+(?:of\s+)?(?P<y3>\d{{4}})"
        rf"|(?P<m2>{_MONTH})\s+(?P<d2>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?(?:,?\s+(?P<y2>\d{{4}}))?"
        rf"|(?P<y4>\d{{4}})-(?P<m4>\d{{2}})-(?P<d4>\d{{2}})"
        rf"|(?<![\w.,])(?P<y5>(?:1[0-9]|20)\d{{2}})s?(?![\d,.]\d|-\w|\s?%|\s+{_COUNT_NOUNS})"
        r")")),
    ("time", re.compile(r"\b(?P<h>\d{1,2})(?::(?P<min>\d{2}))?\s?(?P<ampm>[ap]\.?m\.?)(?!\w)"
                        r"|\b(?P<h2>[01]?\d|2[0-3]):(?P<min2>[0-5]\d)\b", re.IGNORECASE)),
    # Units are lower-case words: "5 seats", "500 mg"; "five Hollywood trades" has no unit.
    ("number", re.compile(rf"(?P<num>{_COUNT})(?P<scale>{_SCALE})?(?:[\s-]+(?P<unit>[a-z]+)\b)?")),
)
# Most sentences state no value at all, and each pattern above is a full scan. What each needs is
# cheap to look for first: these searches match wherever the pattern could (same flags, a part of
# it), so skipping a pattern when its search fails never changes what is found.
_DIGIT = re.compile(r"\d")
_COUNT_WORD = re.compile(rf"\b(?=[{_WORD_NUM_FIRST}])(?:{_WORD_NUM})\b", re.IGNORECASE)
_NEEDS_DIGIT = frozenset({"money", "date", "time"})
"""Kinds whose every form has a digit; the others need a digit or a number word (`_COUNT`)."""
_STARTS_ANYWHERE = frozenset({"date"})
"""Kinds a match of which can start well before its first digit ("March 5"); every other pattern starts
at a number, a number word, or a currency sign just before a number ("US$ 5")."""
_SIGN_BEFORE_NUMBER = len("US$ ")
"""Farthest a match can start before its number."""
_MONEY_WORDS = ("$", "usd", "eur", "gbp", "jpy", "inr", "cad", "aud", "chf", "dollar", "euro", "pound", "yen",
                "rupee", "cent")
"""A part of every sign and currency word the money pattern knows ("US$" has the "$")."""


def _may_state_money(text: str) -> bool:
    # A plain substring test is far cheaper than a case-blind regex; it is exact only for ASCII text
    # (case-blind matching folds a few other letters too), so any other text is left to the pattern.
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(word in lowered for word in _MONEY_WORDS)


_NEEDS_WORD: dict[CommitmentKind, Callable[[str], object]] = {
    "money": _may_state_money,
    "percentage": re.compile(r"%|per ?cent", re.IGNORECASE).search,
    # A look at the first character, which every unit, month name and year starts with, lets these
    # searches pass over most positions at once: without it they cost more than the scans they save.
    "duration": re.compile(rf"(?=[mhdnwfqy]){_DURATION_UNIT}", re.IGNORECASE).search,
    # Every date form has a month name or four digits; every time a colon or a digit before "am"/"pm".
    "date": re.compile(rf"(?=[\dJFMASOND])(?:\d{{4}}|{_MONTH})").search,
    "time": re.compile(r":|\d\s?[ap]\.?m", re.IGNORECASE).search,
}
"""A test for a word or sign the kind's pattern cannot match without: when it fails, the pattern would find nothing."""


VALUE_KINDS = frozenset({"number", "money", "percentage", "date", "time", "duration"})

# Values with no end: "a lifetime warranty", "unlimited seats", "cancel at any time". Each is a
# commitment a source must state; against "a 2-year warranty" it is a different value.
_LIFETIME_NOUNS = (
    r"warranty|warranties|guarantee|access|membership|subscription|licen[cs]e|support|updates?|"
    r"cover|coverage|ban|pass|plan|deal|protection|service|repairs?|replacement"
)
# Read in every text; the first letters, looked at first, rule most words out at once.
_UNBOUNDED = re.compile(
    rf"\b(?=[lfiau])(?:lifetime(?=[\s-]+(?:{_LIFETIME_NOUNS})\b)|for\s+life\b|forever\b|indefinitely\b|"
    rf"(?<=\bat\s)any\s?time\b|anytime\b|unlimited(?:\s+(?P<what>[a-z]+)\b)?)",
    re.IGNORECASE,
)

# The role of a value, from the words before or after it. Only an elapsed time and a limit differ in
# kind; a limit and a plain value are the same quantity ("within 30 days" / "30 days to ask").
# Each is searched before every value; a look at the first letter (every phrase starts with one of
# these) lets the search pass over most positions at once, as in _COUNT.
_UPPER_BEFORE = re.compile(
    r"(?=[wunalfmb])(?:\bwithin|\bup\s+to|\bno\s+more\s+than|\bnot\s+more\s+than|\bat\s+most|\bless\s+than|"
    r"\bfewer\s+than|\bunder|\bno\s+later\s+than|\bmaximum(?:\s+of)?|\bmax\.?|\bbefore|\bup\s+until)"
    r"\s+(?:the\s+first\s+|the\s+|a\s+|an\s+)?$",
    re.IGNORECASE,
)
_LOWER_BEFORE = re.compile(
    r"(?=[abmolp])(?:\bafter|\bat\s+least|\bmore\s+than|\bover|\bminimum(?:\s+of)?|\bmin\.?|\bbeyond|"
    r"\bolder\s+than|\blonger\s+than|\bpast)\s+(?:the\s+first\s+|the\s+|a\s+|an\s+)?$",
    re.IGNORECASE,
)
_ELAPSED_AFTER = re.compile(r"\s+ago\b", re.IGNORECASE)
_RANGE_GAP = re.compile(r"\s*(?:to|-|–|—|or|and)\s*", re.IGNORECASE)
_RANGE_SPREAD = 100
"""Widest range read as one, high end over low: "1 or 2 tablets", "5 to 10 days", "200 to 400 mg"."""
_RANGE_OPENER = re.compile(r"\b(?:between|from)\s+$", re.IGNORECASE)
# "$20 per user per month": the period a price is charged for, in periods per year.
_PERIODS_PER_YEAR = {
    "day": 365.0, "daily": 365.0, "week": 52.0, "weekly": 52.0, "month": 12.0, "mo": 12.0,
    "monthly": 12.0, "quarter": 4.0, "quarterly": 4.0, "year": 1.0, "yr": 1.0, "annum": 1.0,
    "annually": 1.0, "yearly": 1.0,
}
_RATE = re.compile(
    r"(?:\s*(?:per|a|an|each|every|/)\s*(?:user|seat|person|member|head|licen[cs]e|device)\b)?"
    r"\s*(?:(?:per|a|an|each|every|/)\s*(?P<period>day|week|month|mo|quarter|year|yr|annum)\b"
    r"|,?\s*(?:billed\s+)?(?P<adverb>daily|weekly|monthly|quarterly|yearly|annually)\b)",
    re.IGNORECASE,
)
# "Weight: 1.2 kg", "Team plan: $20 per user per month": a line that starts with a short label.
_LABEL = re.compile(r"^[ \t]*(?P<label>[A-Za-z][\w&/()' -]{0,40}?)[ \t]*:[ \t]")
_LABEL_MAX_WORDS = 4
"""Longest label, in words: "Team plan:" is a label, "Sales agent said the price was:" is speech."""


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _find_values(text: str) -> tuple[tuple[Mention, ...], tuple[tuple[int, int], ...]]:
    """The values of `text` by position, and the spans they take (no name is read inside a value)."""
    mentions: list[Mention] = []
    taken: list[tuple[int, int]] = []
    digit = _DIGIT.search(text)
    # Where the first number or number word is: no match of a pattern that starts at one can start
    # earlier, so those scans begin there (a scan from a later position finds the same matches when
    # none starts before it; look-behinds and word boundaries still see the text before it).
    count_word = _COUNT_WORD.search(text, 0, digit.start() if digit else len(text))
    has_digit, has_count = digit is not None, digit is not None or count_word is not None
    first_number = min(match.start() for match in (digit, count_word) if match) if has_count else len(text)
    for match in YEAR_RANGE.finditer(text, first_number) if has_digit else ():
        years = year_range(match)
        if years is None or _COUNT_AFTER.match(text, match.end()):
            continue
        # Each end of "2018–19" is a year of its own: either can be confirmed or contradicted.
        for group, year in zip((1, 2), years, strict=True):
            mentions.append(Mention("date", match[group], match.start(group), match.end(group), float(year),
                                    "date", (year, None, None)))
        taken.append(match.span())
    values: list[Mention] = []
    for match in _UNBOUNDED.finditer(text):
        values.append(_unbounded(match))
        taken.append(match.span())
    for kind, pattern in _PATTERNS:
        if not (has_digit if kind in _NEEDS_DIGIT else has_count):
            continue
        if kind in _NEEDS_WORD and not _NEEDS_WORD[kind](text):
            continue
        scan_from = 0 if kind in _STARTS_ANYWHERE else max(0, first_number - _SIGN_BEFORE_NUMBER)
        for match in pattern.finditer(text, scan_from):
            span = match.span()
            if span[0] == span[1] or taken and any(span[0] < end and start < span[1] for start, end in taken):
                continue
            mention = _build(kind, match)
            if mention is not None:
                values.append(mention)
                taken.append(span)
    mentions.extend(_in_context(text, _ranges(text, sorted(values, key=lambda m: m.start))))
    return tuple(sorted(mentions, key=lambda mention: (mention.start, mention.end))), tuple(taken)


def _number(raw: str) -> float | None:
    raw = raw.strip().lower()
    if raw in WORD_NUMBERS:
        return float(WORD_NUMBERS[raw])
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def _scale(raw: str | None) -> float:
    return _SCALES.get(raw.strip().lower(), 1.0) if raw else 1.0


def _build(kind: CommitmentKind, match: re.Match[str]) -> Mention | None:
    groups = match.groupdict()
    text, start, end = match.group(), match.start(), match.end()
    if kind == "money":
        number = _number(groups["num"] or groups["num2"])
        if number is None:
            return None
        scale = _scale(groups["scale"] or groups["scale2"])
        currency = _CURRENCY_SYMBOLS.get(groups["sym"] or "") if groups["sym"] != "US$" else "USD"
        currency = currency or _CURRENCY_WORDS.get((groups["cur"] or "").lower(), "USD")
        if currency == "USD-cent":
            currency, scale = "USD", 0.01
        rate = _RATE.match(match.string, end)
        per = _PERIODS_PER_YEAR[(rate["period"] or rate["adverb"]).lower()] if rate else None
        return Mention("money", text, start, end, number * scale, currency, per=per)
    if kind == "percentage":
        number = _number(groups["num"])
        return None if number is None else Mention("percentage", text, start, end, number, "%")
    if kind == "date":
        return _date(match)
    if kind == "time":
        hour = int(groups["h"] or groups["h2"])
        minute = int(groups["min"] or groups["min2"] or 0)
        if (groups["ampm"] or "").lower().startswith("p") and hour < 12:
            hour += 12
        return Mention("time", text, start, end, hour * 60 + minute, "minute")
    if kind == "duration":
        number = _number(groups["num"])
        unit = groups["unit"].lower().rstrip("s")
        told_in = "hours" if _DURATION_DAYS[unit] < 1 else "days"
        return None if number is None else Mention("duration", text, start, end,
                                                   number * _DURATION_DAYS[unit], "day", (told_in,))
    number = _number(groups["num"])
    if number is None:
        return None
    unit_word = (groups["unit"] or "").lower()
    if unit_word in STOP_WORDS or unit_word in NEGATION_WORDS:
        unit_word = ""
    if unit_word:
        return Mention("number", text, start, end, number * _scale(groups["scale"]), stem(unit_word))
    if not groups["num"][:1].isdigit():
        return None  # a bare "one" or "three" is too often not a quantity at all
    bare = text[: match.start("unit") - start] if groups["unit"] else text
    return Mention("number", bare.rstrip(" -"), start, start + len(bare.rstrip(" -")),
                   number * _scale(groups["scale"]), None)


def _date(match: re.Match[str]) -> Mention | None:
    g = match.groupdict()
    year = g["y1"] or g["y2"] or g["y3"] or g["y4"] or g["y5"]
    month_name = g["m1"] or g["m2"] or g["m3"]
    month: int | None = MONTHS.get(month_name.lower().rstrip(".")) if month_name else None
    if g["m4"]:
        month = int(g["m4"])
    day = g["d1"] or g["d2"] or g["d4"]
    # "May 5" is a date, "may 5" could be the verb; bare "May" without a number is ignored.
    if month_name and month_name[0].islower():
        return None
    parts = (int(year) if year else None, month, int(day) if day else None)
    return Mention("date", match.group(), match.start(), match.end(),
                   float(year) if year else None, "date", parts)


def _unbounded(match: re.Match[str]) -> Mention:
    text, start, end = match.group(), match.start(), match.end()
    what = match.group("what")
    if what and what.lower() not in STOP_WORDS:
        # "unlimited seats" is a count of seats with no end: "up to 10 seats" says otherwise.
        return Mention("number", text, start, end, math.inf, stem(what.lower()))
    if what or text.lower().startswith("unlimited"):
        # A bare "unlimited" says no end of something unnamed: only another "unlimited" grounds it.
        return Mention("number", text[: len("unlimited")], start, start + len("unlimited"), math.inf, None)
    return Mention("duration", text, start, end, math.inf, "day", ("days",))


def _written_number(mention: Mention) -> float | None:
    """The number as the text writes it: 212.4 in "$212.4 million", 10 in "10 business days"."""
    found = re.search(_COUNT, mention.text, re.IGNORECASE)
    return _number(found.group()) if found else None


def _ranges(text: str, values: list[Mention]) -> list[Mention]:
    """Join the two ends of a range: each gets the other's kind and unit and the range as bounds.

    "5 to 10 business days" is read as "5" and "10 business days"; the 5 is days as well, and a
    claim of "7 days" neither matches nor contradicts either end on its own.
    """
    out = list(values)
    for i in range(len(out) - 1):
        low, high = out[i], out[i + 1]
        if low.kind == "date" or high.kind == "date" or low.unbounded or high.unbounded:
            continue
        gap = text[low.end : high.start]
        if not _RANGE_GAP.fullmatch(gap):
            continue
        joiner = gap.strip().lower()
        if joiner == "and" and not _RANGE_OPENER.search(text, 0, low.start):
            continue  # "5 apples and 10 pears" is two counts
        if joiner == "or" and (low.unit or low.kind != "number"):
            continue  # "$3.1 billion or $6.78 per share" restates; "1 or 2 tablets" is a range
        typed = low if low.unit or low.kind != "number" else high
        if typed is low and (high.unit or high.kind != "number") and (high.kind, high.unit) != (low.kind, low.unit):
            continue  # "2 tablets or 400 mg": two quantities, not a range
        factor = None
        if typed.value is not None and (written := _written_number(typed)):
            factor = typed.value / written
        ends = []
        for mention in (low, high):
            if mention.kind == typed.kind and mention.unit == typed.unit:
                ends.append(mention)
                continue
            written = _written_number(mention)
            if written is None or factor is None:
                break
            ends.append(replace(mention, kind=typed.kind, unit=typed.unit, value=written * factor,
                                parts=typed.parts, per=typed.per))
        if len(ends) != 2 or ends[0].value is None or ends[1].value is None:
            continue
        bounds = (min(ends[0].value, ends[1].value), max(ends[0].value, ends[1].value))
        if bounds[0] <= 0 or bounds[1] > _RANGE_SPREAD * bounds[0]:
            continue  # "5 to 10 days" is a range; "6.78 to 3.1 billion" never is
        out[i], out[i + 1] = (replace(end, bounds=bounds) for end in ends)
    return out


def _in_context(text: str, values: list[Mention]) -> list[Mention]:
    """Each value with its role and, on a label–value line, its label."""
    out = []
    for mention in values:
        before = text[max(0, mention.start - 30) : mention.start]
        role = ""
        if mention.kind == "duration" and _ELAPSED_AFTER.match(text, mention.end):
            role = "elapsed"
        elif _UPPER_BEFORE.search(before):
            role = "upper"
        elif _LOWER_BEFORE.search(before):
            role = "lower"
        line_start = text.rfind("\n", 0, mention.start) + 1
        labelled = _LABEL.match(text[line_start : mention.start])
        label = None
        if labelled and len(labelled["label"].split()) <= _LABEL_MAX_WORDS:
            label = labelled["label"].strip()
        out.append(replace(mention, role=role, label=label) if role or label else mention)
    return out
