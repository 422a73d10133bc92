"""Values against the sentence that speaks of the same thing, in the languages read by rules only.

"茶叶博物馆晚上 9 点关门" against "中国茶叶博物馆开放时间：上午 9 点至下午 5 点": the sentence shares the
claim's other words (the museum), states times, and none of them is 21:00, so the claim is REFUTED with
that sentence cited. Values are read per language (`commitments/localized.py`): "晚上 9 点" is 21:00,
"三十天" 30 days. A sentence that states no value of the kind says nothing against it.
"""

from __future__ import annotations

from verification.checks.check import Check, CheckFinding, Role, refuted
from verification.claims.commitments import Mention
from verification.claims.language import READ, SCORED
from verification.claims.segmentation import keys
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage

COMPARED = frozenset({"time", "duration", "money", "percentage", "date"})
"""The kinds of value compared; a bare number could count anything."""
_SHARED = 0.5
"""Share of the claim's other words a sentence must state to be about the same thing."""


class StatedValues(Check):
    name = "stated-values"
    version = 1
    role = Role.CONTRADICTION
    languages = READ - SCORED

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        for value in claim.mentions:
            if value.kind not in COMPARED:
                continue
            for hit in evidence.hits:
                stated = [other for other in hit.passage.values if _comparable(value, other)]
                if not stated or any(_equal(value, other) for other in stated):
                    continue
                if _about_the_same(claim, hit.passage):
                    said = "、".join(other.text for other in stated) if claim.language in ("zh", "ja") else \
                        ", ".join(other.text for other in stated)
                    return refuted(hit.passage, StatedValues, 0.85,
                                   f"The source gives {said} where the claim says {value.text}.",
                                   claim, evidence, value.text)
        return None


def _comparable(value: Mention, other: Mention) -> bool:
    return other.kind == value.kind and other.unit == value.unit


def _equal(value: Mention, other: Mention) -> bool:
    if value.kind == "date":
        return all(mine is None or mine == theirs for mine, theirs in zip(value.parts, other.parts, strict=True))
    return value.value is not None and other.value is not None and abs(value.value - other.value) < 1e-9


def _about_the_same(claim: ClaimView, passage: Passage) -> bool:
    """Whether the sentence states most of the claim's words besides its values: it speaks of the same thing."""
    own = set()
    for mention in claim.mentions:
        own.update(keys(mention.text, claim.language))
    rest = [key for key in claim.unique_stems if key not in own]
    return bool(rest) and sum(key in passage.stem_set for key in rest) / len(rest) >= _SHARED
