"""Reading typed values: numbers, money, percentages, dates, times and durations, each normalised so two
of one kind compare (money in base units of its currency, durations in days, dates as (year, month,
day)); values with no end ("lifetime", "unlimited"); the role a value plays ("within", "after", "ago");
the two ends of a range read as one; rates ("per month") and the label of a label–value line. The
patterns and word lists are module constants: they shape verdicts, so a change here bumps the versions of
the value checks in `offline.CHECKS`.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from operator import attrgetter

from verification.claims.commitments.frequencies import frequencies
from verification.claims.commitments.mention import Mention
from verification.claims.commitments.spans import TakenSpans
from verification.claims.commitments.value_patterns import (
    _COUNT,
    _COUNT_AFTER,
    _COUNTS,
    _CURRENCY_SYMBOLS,
    _CURRENCY_WORDS,
    _DIGIT,
    _DURATION_DAYS,
    _FIRST_CHARACTERS,
    _NEEDS_DIGIT,
    _NEEDS_WORD,
    _PATTERNS,
    _SCALES,
    _SIGN_BEFORE_NUMBER,
    _STARTS_ANYWHERE,
    _STARTS_AT_A_COUNT,
    MONTHS,
    WORD_NUMBERS,
    _may_say,
)
from verification.claims.tokens import NEGATION_WORDS, STOP_WORDS, TEXT_CACHE_SIZE, YEAR_RANGE, stem, year_range
from verification.types import CommitmentKind

VALUE_KINDS = frozenset({"number", "money", "percentage", "date", "time", "duration"})
_MONTH_AFTER = re.compile(r"\s+(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b", re.IGNORECASE)

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
_UNBOUNDED_WORDS = ("life", "forever", "indefinitely", "any", "unlimited")
"""A part of each phrase of _UNBOUNDED ("lifetime" and "for life" have "life", "anytime" has "any")."""
_RANGE_DASHES = ("-", "–", "—")
"""Every year range (`YEAR_RANGE`) has one of these between its years."""

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
_NEWLINE = re.compile("\n")
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
# _LABEL at a given position of a longer text: `match(text, pos, endpos)` is anchored at `pos` already.
_LABEL_AT = re.compile(_LABEL.pattern.removeprefix("^"), _LABEL.flags)
_LABEL_MAX_WORDS = 4
"""Longest label, in words: "Team plan:" is a label, "Sales agent said the price was:" is speech."""


LIMITS = frozenset({"upper", "lower"})
"""The roles of a value that bounds what is said ("within 30 days", "over $50", "under 12")."""


def limit_words(text: str, mention: Mention) -> str:
    """A limit as the text words it: the value with the words that make it one ("over $50", "within 30 days")."""
    before = text[max(0, mention.start - 30) : mention.start]
    found = (_UPPER_BEFORE if mention.role == "upper" else _LOWER_BEFORE).search(before)
    start = mention.start - len(before) + found.start() if found else mention.start
    return text[start : mention.end]


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _find_values(text: str) -> tuple[tuple[Mention, ...], tuple[tuple[int, int], ...]]:
    """The values of `text` by position, and the spans they take (no name is read inside a value)."""
    mentions: list[Mention] = []
    taken: list[tuple[int, int]] = []
    has_digit = _DIGIT.search(text) is not None
    counts = [match.start() for match in _COUNTS.finditer(text)]
    # Where the first number or number word is: no match of a pattern that starts at one can start
    # earlier, so those scans begin there (a scan from a later position finds the same matches when
    # none starts before it; look-behinds and word boundaries still see the text before it).
    has_count = bool(counts)
    first_number = counts[0] if has_count else len(text)
    ranged = has_digit and any(dash in text for dash in _RANGE_DASHES)
    for match in YEAR_RANGE.finditer(text, first_number) if ranged else ():
        years = year_range(match)
        if years is None or _COUNT_AFTER.match(text, match.end()) \
                or len(match[2]) == 2 and _MONTH_AFTER.match(text, match.end()):
            continue  # "1819 – 20 January 1900" runs from a year to a day, not from 1819 to 1820
        # Each end of "2018–19" is a year of its own: either can be confirmed or contradicted.
        for group, year in zip((1, 2), years, strict=True):
            mentions.append(Mention("date", match[group], match.start(group), match.end(group), float(year),
                                    "date", (year, None, None)))
        taken.append(match.span())
    overlaps = TakenSpans(taken)
    values: list[Mention] = []
    for match in _UNBOUNDED.finditer(text) if _may_say(text, _UNBOUNDED_WORDS) else ():
        values.append(_unbounded(match))
        taken.append(match.span())
        overlaps.add(match.span())
    for kind, pattern in _PATTERNS:
        if not (has_digit if kind in _NEEDS_DIGIT else has_count):
            continue
        if kind in _NEEDS_WORD and not _NEEDS_WORD[kind](text):
            continue
        scan_from = 0 if kind in _STARTS_ANYWHERE else max(0, first_number - _SIGN_BEFORE_NUMBER)
        for match in _scan(kind, pattern, text, scan_from, counts):
            span = match.span()
            if span[0] == span[1] or taken and overlaps(span):
                continue
            mention = _build(kind, match)
            if mention is not None:
                values.append(mention)
                taken.append(span)
                overlaps.add(span)
    values.extend(frequencies(text, values, overlaps))
    mentions.extend(_in_context(text, _ranges(text, sorted(values, key=_START))))
    return tuple(sorted(mentions, key=BY_POSITION)), tuple(taken)


_START = attrgetter("start")
BY_POSITION = attrgetter("start", "end")
"""A mention's place in its text, (start, end): what mentions are ordered by (a sort key without a frame per call)."""


def _scan(
    kind: CommitmentKind, pattern: re.Pattern[str], text: str, start: int, counts: list[int]
) -> Iterator[re.Match[str]]:
    """The matches `pattern.finditer(text, start)` finds, found faster where the places a match can start are known.

    A scan tries the pattern at every position; most positions are no place a match can start (a count
    for the kinds that start with one, `_FIRST_CHARACTERS` for others), and those places are found in
    one pass. Trying the pattern only there, in order and past the end of each match, finds what a full
    scan finds: no match starts anywhere else, and none is empty.
    """
    if kind in _STARTS_AT_A_COUNT:
        places: Iterator[int] = iter(counts)
    elif kind in _FIRST_CHARACTERS:
        places = (candidate.start() for candidate in _FIRST_CHARACTERS[kind].finditer(text, start))
    else:
        yield from pattern.finditer(text, start)
        return
    for place in places:
        if place < start:
            continue  # inside the last match, or before where the scan begins
        match = pattern.match(text, place)
        if match is not None:
            yield match
            start = match.end()


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
        # "0.5 percentage points" is a difference of rates, never "0.5%" of something.
        unit = "pp" if text.lower().rstrip("s").endswith("point") else "%"
        return None if number is None else Mention("percentage", text, start, end, number, unit)
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
    unit_word = (groups["unit"] or groups["glued"] or "").lower()
    if unit_word in STOP_WORDS or unit_word in NEGATION_WORDS:
        unit_word = ""
    if unit_word:
        # "500 cars per day" is a rate, compared per year as money is: not "500 cars per week".
        rate = _RATE.match(match.string, end)
        per = _PERIODS_PER_YEAR[(rate["period"] or rate["adverb"]).lower()] if rate else None
        return Mention("number", text, start, end, number * _scale(groups["scale"]), stem(unit_word), per=per)
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


_WRITTEN_COUNT = re.compile(_COUNT, re.IGNORECASE)
"""`_COUNT` compiled once: asked of values each time a bare number is compared with a value of another kind."""


def _written_number(mention: Mention) -> float | None:
    """The number as the text writes it: 212.4 in "$212.4 million", 10 in "10 business days"."""
    found = _WRITTEN_COUNT.search(mention.text)
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
        if joiner == "and" and not _opens_range(text, low.start):
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
    labelled_lines = ":" in text  # every label ends in a colon
    # Where each line starts, found once: a source of one 200,000-character line would otherwise be
    # searched back to its start for every value in it.
    newlines = [match.start() for match in _NEWLINE.finditer(text)] if labelled_lines else []
    for mention in values:
        before = text[max(0, mention.start - 30) : mention.start]
        role = ""
        if mention.kind == "duration" and _ELAPSED_AFTER.match(text, mention.end):
            role = "elapsed"
        elif _UPPER_BEFORE.search(before):
            role = "upper"
        elif _LOWER_BEFORE.search(before):
            role = "lower"
        labelled = None
        if labelled_lines:
            before_line = bisect_left(newlines, mention.start)
            line_start = newlines[before_line - 1] + 1 if before_line else 0
            # As `_LABEL.match(text[line_start : mention.start])`, without copying the line.
            labelled = _LABEL_AT.match(text, line_start, mention.start)
        label = None
        if labelled and len(labelled["label"].split()) <= _LABEL_MAX_WORDS:
            label = labelled["label"].strip()
        # Made whole rather than by `replace`, which reads the fields' list for every value it copies.
        out.append(Mention(mention.kind, mention.text, mention.start, mention.end, mention.value, mention.unit,
                           mention.parts, role, mention.bounds, mention.per, label) if role or label else mention)
    return out


def _opens_range(text: str, end: int) -> bool:
    """`_RANGE_OPENER.search(text, 0, end)`, read only just before `end`.

    A match ends at `end` (the pattern ends in whitespace and `$`), so it starts at "between" or "from"
    right before the whitespace that ends there; a search from the start of a long text would try every
    position before it, for every "5 and 10" of the text.
    """
    word_end = end
    while word_end > 0 and text[word_end - 1].isspace():
        word_end -= 1
    # The word and the character before it, which `\b` reads (a search from `pos` sees the text before it).
    return _RANGE_OPENER.search(text, max(0, word_end - len("between") - 1), end) is not None
