"""Which way something goes: "the flight from Denver to Boston" where the source says "from Boston to
Denver".

"From A to B" orders its two ends: a route, a move, a transfer, a change of one thing into another. A
sentence with the same two ends the other way round contradicts the claim, whatever words it shares.
Ends that are numbers ("from 9am to 5pm", "from 5 to 10 days") are values, which the value checks read.
"""

from __future__ import annotations

import re

from verification.checks.grounding.finding import Finding
from verification.claims.clauses import same_key
from verification.claims.tokens import content_stems
from verification.claims.view import ClaimView
from verification.retrieval.index import Passage
from verification.types import State

_FROM_TO = re.compile(
    r"\bfrom\s+(?:the\s+)?(?P<source>[A-Za-z][\w'’.-]*(?:\s+[A-Za-z][\w'’.-]*){0,2}?)"
    r"\s+(?:to|into|towards?)\s+(?:the\s+)?(?P<target>[A-Za-z][\w'’.-]*(?:\s+[A-Za-z][\w'’.-]*){0,2})",
    re.IGNORECASE,
)


def check_direction(claim: ClaimView, passages: list[Passage]) -> Finding | None:
    """REFUTED when a sentence has the claim's "from A to B" as "from B to A"."""
    claimed = _directions(claim.text)
    if not claimed:
        return None
    (source, target), said = claimed[0]
    if same_key(source, target):
        return None
    reversed_in: tuple[Passage, str] | None = None
    for passage in passages:
        for (found_source, found_target), written in _directions(passage.text):
            if same_key(source, found_source) and same_key(target, found_target):
                return None  # said the claim's way, here or besides the other ("there and back")
            if reversed_in is None and same_key(source, found_target) and same_key(target, found_source):
                reversed_in = passage, written
    if reversed_in is None:
        return None
    passage, written = reversed_in
    return Finding(State.REFUTED, (passage,), "direction-reversed",
                   f"The claim says \"{said}\"; the source says \"{written}\".", said)


def _directions(text: str) -> list[tuple[tuple[str, str], str]]:
    """Each "from A to B" in `text`: the first content stem of A and of B, and the words as written."""
    if "from" not in text.lower():
        return []
    found = []
    for match in _FROM_TO.finditer(text):
        source, target = content_stems(match["source"]), content_stems(match["target"])
        if source and target:
            found.append(((source[0], target[0]), f"from {match['source']} to {match['target'].split()[0]}"))
    return found
