"""How often: "backups run daily" is not "backups run weekly".

"daily", "weekly", ... and "a day", "per month", "every week" are read as a duration between two times
("twice a day" as half a day), comparable only with another such (`compare.comparable` compares
durations of one sort), so "once a day" grounds "daily" and "weekly" or "twice a day" contradicts it. A
frequency that completes a value ("$20 billed monthly", "500 cars daily") is that value's rate, which the
value itself carries.
"""

from __future__ import annotations

import re

from verification.claims.commitments.mention import Mention
from verification.claims.commitments.spans import TakenSpans
from verification.claims.commitments.value_patterns import _may_say

_FREQUENCIES = {"hourly": 1 / 24, "daily": 1, "nightly": 1, "weekly": 7, "biweekly": 14, "fortnightly": 14,
                "monthly": 30, "quarterly": 91, "yearly": 365, "annually": 365}
"""How often, in days between: "backups run daily" is not "backups run weekly"."""
_PERIOD_DAYS = {"hour": 1 / 24, "day": 1, "night": 1, "week": 7, "fortnight": 14, "month": 30, "quarter": 91,
                "year": 365}
_FREQUENCY = re.compile(
    # A look at the first letter (every phrase starts with one of these) passes over most words at once.
    r"\b(?=[hdnwbfmqyape])(?:(?P<adverb>" + "|".join(_FREQUENCIES) + r")"
    r"|(?<!times )(?<!once )(?<!twice )(?:a|an|per|each|every)\s+(?P<period>" + "|".join(_PERIOD_DAYS) + r"))\b"
    r"(?!\s+(?:later|after|before|earlier|ago|from|of|or)\b)",
    re.IGNORECASE,
)
""""daily", or "a day": not "twice a day" (another frequency), nor "a week later" (a time passed)."""
_TIMES = {"once": 1, "twice": 2, "thrice": 3}
_MULTIPLE = re.compile(
    r"(?=[ot])\b(?P<times>once|twice|thrice)\s+(?:(?:a|an|per|each|every)\s+(?P<period>" + "|".join(_PERIOD_DAYS) + r")"
    r"|(?P<adverb>" + "|".join(_FREQUENCIES) + r"))\b",
    re.IGNORECASE,
)
""""twice a day", "once weekly": so many times in a period, read as the time between (half a day)."""
_PERIOD_PARTS = ("hour", "day", "dail", "night", "week", "fortnight", "month", "quarter", "year", "annual")
"""A part of every word of _FREQUENCIES and _PERIOD_DAYS: a text with none of them says how often nowhere."""
_BILLED = re.compile(r"\b(?:billed|charged|invoiced|paid)\s+$", re.IGNORECASE)
_RATE_GAP = 12
"""Farthest a frequency word may follow a value it completes ("$20 billed monthly"): that is a rate."""


def frequencies(text: str, values: list[Mention], overlaps: TakenSpans) -> list[Mention]:
    """Each "daily", "weekly", ... on its own, as a duration between two times, comparable only with
    another; one that completes a value ("$20 billed monthly", "500 cars daily") is that value's rate
    (`_completes`)."""
    found: list[Mention] = []
    if not _may_say(text, _PERIOD_PARTS):
        return found
    # "Take 1 tablet twice a day": how often, never the rate of the count before it.
    for match in _MULTIPLE.finditer(text):
        if overlaps(match.span()):
            continue
        period = _FREQUENCIES[match["adverb"].lower()] if match["adverb"] else _PERIOD_DAYS[match["period"].lower()]
        found.append(Mention("duration", match.group(), match.start(), match.end(),
                             period / _TIMES[match["times"].lower()], "day", ("every",)))
        overlaps.add(match.span())
    for match in _FREQUENCY.finditer(text):
        if overlaps(match.span()) or any(_completes(text, value, match.start()) for value in values):
            continue
        days = _FREQUENCIES[match["adverb"].lower()] if match["adverb"] else _PERIOD_DAYS[match["period"].lower()]
        found.append(Mention("duration", match.group(), match.start(), match.end(), days, "day", ("every",)))
    return found


def _completes(text: str, value: Mention, at: int) -> bool:
    """Whether a frequency word at `at` says the period of `value`: just after it ("500 cars daily"), or
    later in its sentence when the value is a rate already ("$20 per user per month, billed monthly")."""
    if value.end > at:
        return False
    billed = _BILLED.search(text, max(value.end, at - _RATE_GAP), at) if value.per is not None else None
    if billed is not None and text[value.end:billed.start()].strip(" ,"):
        # "$20 per month, billed annually": how often it is billed, beside the rate it has already (in
        # "$240 billed annually" the billing is the rate).
        return False
    if at - value.end <= _RATE_GAP:
        return True
    return value.per is not None and not any(mark in text[value.end : at] for mark in ".;!?")
