"""The relation and the order of its arguments: "Tessaly acquired Corvane" where Corvane acquired Tessaly."""

from __future__ import annotations

from verification.checks.grounding.finding import Finding
from verification.claims.commitments import Mention
from verification.retrieval.index import Passage
from verification.types import State

SYMMETRIC_ACTS = frozenset({"join", "merg", "marri", "marry", "partner"})
"""Relation verbs (as stems) whose two sides can swap: a sentence with both names and the verb states it."""
PRONOUNS = frozenset({"he", "she", "it", "they", "we", "i", "you", "this", "that", "these", "those"})


def check_relation(relation: Mention, passages: list[Passage]) -> Finding | None:
    """A relation is grounded only by a sentence stating it with the same doer and the same object.

    The reverse order and another doer are contradictions `relation_mismatch.py` reports first; what is left
    here is the same relation denied (or asserted where the claim denies it) and a relation no
    sentence states.
    """
    subject, obj, polarity = relation.parts
    denial: tuple[Passage, Mention] | None = None
    names = f"{subject} {obj}".split()
    for passage in passages:
        # "A joined B" and "B and A joined forces" say the same: these acts have no direction.
        if relation.unit in SYMMETRIC_ACTS and relation.unit in passage.stem_set and polarity == "pos" \
                and all(name in passage.stem_set for name in names):
            return None
        for found in passage.mentions:
            if found.kind != "relation" or found.unit != relation.unit or not (
                _same_name(subject, found.parts[0]) and _same_name(obj, found.parts[1])
            ):
                continue
            if found.parts[2] == polarity or (polarity == "open" and found.parts[2] == "pos"):
                return None
            if {found.parts[2], polarity} == {"pos", "neg"} and denial is None:
                denial = passage, found
    if denial is not None:
        passage, found = denial
        return Finding(State.REFUTED, (passage,), "relation-negated",
                       f"The claim says \"{relation.text}\"; the source says \"{found.text}\".", relation.text)
    best = passages[:1]
    return Finding(State.INSUFFICIENT_EVIDENCE, tuple(best), "relation-unstated",
                   f"No source sentence states \"{relation.text}\" with the same doer and object in that "
                   "order.", relation.text)


def _same_name(a: object, b: object) -> bool:
    """Whether two entity keys name the same one: "newton" and "matthew newton" do."""
    first, second = set(str(a).split()), set(str(b).split())
    return bool(first) and bool(second) and (first <= second or second <= first)
