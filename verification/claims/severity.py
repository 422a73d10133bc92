"""How much harm a claim can do if it is wrong.

A wrong refund window or dosage hurts a customer; a wrong adjective rarely does. Severity decides
what a reviewer sees first and which failures policy sends to a person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.claims.commitments import Mention
from verification.types import Severity

_DOSAGE_UNITS = frozenset({"mg", "mcg", "µg", "g", "ml", "dose", "tablet", "capsul", "pill", "drop", "unit",
                           "puff", "iu", "injection"})

# Promises and obligations a customer may act on, and safety or legal statements. Searched in every claim: a
# look at the first letter (every word starts with one of these) passes over most positions at once.
_CRITICAL_WORDS = re.compile(
    r"(?=[abcdefghilmoprstuw])\b(?:refund\w*|reimburs\w*|guarantee\w*|warrant(?:y|ies)|eligib\w*|entitled|compensat\w*|"
    r"cancel\w*|money[- ]back|free of charge|must|shall|required|mandatory|prohibited|illegal|legal(?:ly)?|"
    r"law|lawsuit|liab\w*|contract\w*|terms of service|comply|complian\w*|penalt\w*|fine[sd]?|"
    r"dos(?:e|es|age)|overdose|tablets?|capsules?|mg|ml|side[- ]effects?|allerg\w*|pregnan\w*|"
    r"contraindicat\w*|unsafe|safe(?:ty|ly)?|danger\w*|hazard\w*|toxic|emergency|poison\w*|"
    r"will be (?:reimbursed|refunded|credited|charged|replaced)|charged|price|fees?|billing|invoice\w*|"
    r"insur\w*|coverage|covered)\b",
    re.IGNORECASE,
)


def classify(text: str, mentions: Sequence[Mention]) -> Severity:
    """CRITICAL for money, dosage, legal, safety and policy promises; MODERATE for other facts."""
    if any(mention.kind == "money" for mention in mentions):
        return Severity.CRITICAL
    if any(mention.kind == "number" and mention.unit in _DOSAGE_UNITS for mention in mentions):
        return Severity.CRITICAL
    if _CRITICAL_WORDS.search(text):
        return Severity.CRITICAL
    if any(mention.kind != "negation" for mention in mentions):
        return Severity.MODERATE
    return Severity.MINOR
