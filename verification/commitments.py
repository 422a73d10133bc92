"""What a piece of text commits to: typed values a source can confirm or contradict.

A claim that says "refunds within 60 days" is wrong against a source that says "within 30 days"
even though nearly every word matches; lexical overlap cannot see that, typed values can. Each
`Mention` carries a normalised value so two mentions of the same kind can be compared: money in
base units of its currency, durations in days, percentages as numbers, dates as (year, month, day).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verification.tokens import NEGATION_WORDS, STOP_WORDS, YEAR_RANGE, stem, words, year_range
from verification.types import Commitment, CommitmentKind

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
_COUNT = rf"(?:{_NUM}|\b(?:{_WORD_NUM})\b)"
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

# Capitalised runs, allowing short lower-case joiners inside ("Bank of America", "Led by Donkeys").
_ENTITY = re.compile(
    r"\b[A-Z][\w&'’.-]*(?:\s+(?:(?:of|the|de|la|van|von|&)\s+)?[A-Z][\w&'’.-]*)*"
)
_NOT_ENTITIES = frozenset(
    """the a an it its this that these those they he she we you i our your their his her there here
    in on at for to of and but or if when while after before as by with from however also then thus
    so yes no not please thank thanks hi hello dear monday tuesday wednesday thursday friday saturday
    sunday today tomorrow yesterday""".split()
) | frozenset(MONTHS)

_RELATION_VERBS = (
    r"acquired|acquires|acquire|bought|buys|purchased|purchases|founded|founds|co-founded|owns|owned|"
    r"supports|supported|support|replaced|replaces|defeated|defeats|beat|beats|merged with|sued|sues|"
    r"hired|hires|married|marries|succeeded|succeeds|created|creates|developed|develops|invented|"
    r"published|publishes|released|releases|signed|signs|joined|joins|leads|led|manages|managed|"
    r"founded by|owns|funds|funded|sponsors|sponsored|recommends|recommended|invested in|partnered with"
)
_ACTIVE = re.compile(
    rf"(?P<subj>{_ENTITY.pattern})\s+(?:has\s+|have\s+|had\s+|will\s+|did\s+|does\s+)?"
    rf"(?P<neg>(?:not|never|n't)\s+)?(?P<verb>{_RELATION_VERBS})\s+(?:the\s+)?(?P<obj>{_ENTITY.pattern})"
)
_PASSIVE = re.compile(
    rf"(?P<obj>{_ENTITY.pattern})\s+(?:was|were|is|are|has been|had been|will be)\s+"
    rf"(?P<neg>(?:not|never)\s+)?(?P<verb>{_RELATION_VERBS})\s+by\s+(?:the\s+)?(?P<subj>{_ENTITY.pattern})"
)

VALUE_KINDS = frozenset({"number", "money", "percentage", "date", "time", "duration"})


@dataclass(frozen=True)
class Mention:
    """A `Commitment` found in a text (same fields, same meaning), plus what comparing it needs."""

    kind: CommitmentKind
    text: str
    start: int
    end: int
    value: float | None = None
    unit: str | None = None
    parts: tuple[str | int | None, ...] = ()
    """Extra detail: (year, month, day) for dates, (subject, object, polarity) for relations."""

    def to_commitment(self) -> Commitment:
        """The public, serialisable form."""
        return Commitment(kind=self.kind, text=self.text, start=self.start, end=self.end,
                          value=self.value, unit=self.unit)


def find_mentions(text: str) -> list[Mention]:
    """Every typed value, entity, relation and negation in `text`, ordered by position."""
    mentions: list[Mention] = []
    taken: list[tuple[int, int]] = []
    for match in YEAR_RANGE.finditer(text):
        years = year_range(match)
        if years is None or _COUNT_AFTER.match(text, match.end()):
            continue
        # Each end of "2018–19" is a year of its own: either can be confirmed or contradicted.
        for group, year in zip((1, 2), years, strict=True):
            mentions.append(Mention("date", match[group], match.start(group), match.end(group), float(year),
                                    "date", (year, None, None)))
        taken.append(match.span())
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            span = match.span()
            if span[0] == span[1] or any(span[0] < end and start < span[1] for start, end in taken):
                continue
            mention = _build(kind, match)
            if mention is not None:
                mentions.append(mention)
                taken.append(span)
    mentions.extend(_entities(text, taken))
    mentions.extend(find_relations(text))
    mentions.extend(
        Mention("negation", text[start:end], start, end) for word, start, end in words(text)
        if word in NEGATION_WORDS
    )
    return sorted(mentions, key=lambda mention: (mention.start, mention.end))


def find_commitments(text: str) -> list[Commitment]:
    """The public form of `find_mentions`."""
    return [mention.to_commitment() for mention in find_mentions(text)]


def find_relations(text: str) -> list[Mention]:
    """Who did what to whom, for a small set of verbs, active ("A acquired B") or passive."""
    relations = []
    for pattern in (_ACTIVE, _PASSIVE):
        for match in pattern.finditer(text):
            subj, obj = _entity_key(match.group("subj")), _entity_key(match.group("obj"))
            if not subj or not obj or subj == obj:
                continue
            verb = stem(match.group("verb").split()[0].lower())
            polarity = "neg" if match.group("neg") else "pos"
            relations.append(Mention("relation", match.group(), match.start(), match.end(), None, verb,
                                     (subj, obj, polarity)))
    return relations


def comparable(a: Mention, b: Mention) -> bool:
    """Whether two mentions measure the same kind of thing, so that different values disagree."""
    if a.kind != b.kind or a.kind not in VALUE_KINDS:
        return False
    if a.kind == "number":
        return a.unit is not None and a.unit == b.unit
    if a.kind == "money":
        return a.unit == b.unit
    if a.kind == "duration":
        # "every 4 hours" and "aged 12 years" are both durations but never about the same thing.
        return a.parts == b.parts
    return True


def agree(a: Mention, b: Mention) -> bool:
    """Whether two comparable mentions state the same value (money and numbers within rounding)."""
    if a.kind == "date":
        return all(x is None or y is None or x == y for x, y in zip(a.parts, b.parts, strict=False))
    if a.value is None or b.value is None:
        return a.text.lower() == b.text.lower()
    if a.value == b.value:
        return True
    # "$212.4 million" and "$212 million" are the same figure stated at two precisions.
    return abs(a.value - b.value) <= 0.01 * max(abs(a.value), abs(b.value))


def entity_key(text: str) -> str:
    """A case- and inflection-insensitive key for an entity name."""
    return _entity_key(text)


def _entity_key(text: str) -> str:
    tokens = [stem(word) for word, _, _ in words(text) if word not in {"the", "a", "an"}]
    return " ".join(tokens)


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
        return Mention("money", text, start, end, number * scale, currency)
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
        scale = "hours" if _DURATION_DAYS[unit] < 1 else "days"
        return None if number is None else Mention("duration", text, start, end,
                                                   number * _DURATION_DAYS[unit], "day", (scale,))
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


def _entities(text: str, taken: list[tuple[int, int]]) -> list[Mention]:
    found = []
    for match in _ENTITY.finditer(text):
        start, end = match.span()
        name = match.group().rstrip(".'’-")
        end = start + len(name)
        # Drop a leading function word capitalised only because it starts the sentence.
        first, _, rest = name.partition(" ")
        if first.lower() in _NOT_ENTITIES:
            if not rest:
                continue
            name = rest.lstrip()
            start = end - len(name)
        if name.lower() in _NOT_ENTITIES or any(start < e and s < end for s, e in taken):
            continue
        found.append(Mention("entity", name, start, end, None, None, (_entity_key(name),)))
    return found
