"""Whom a line is said by: a transcript line opens with its speaker ("Project Lead: ...", "Client: ..."),
which is what the line claims as much as its words."""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.claims.tokens import stem, words

SPEAKER = re.compile(r"\s*([A-Za-z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s")
"""A line that opens with whom it is said by; group 1 is the label."""


def speaker(label: str) -> tuple[str, ...]:
    """A speaker's label keyed to compare alike: "Sales agent" is "Sales Agent"."""
    return tuple(stem(word) for word in label.lower().split())


def said_words(label: re.Match[str], text: str,
               read: Sequence[tuple[str, int, int]] | None = None) -> list[tuple[str, int, int]]:
    """The words of a line past its speaker's label (`SPEAKER`'s match), with their offsets in `text`;
    `read`: the words of `text` where they are read already."""
    return [word for word in (words(text) if read is None else read) if word[1] >= label.end()]
