"""Reading relations: who did what to whom, for a small set of acts, stated actively ("Corvane acquired
Tessaly"), passively ("Tessaly was acquired by Corvane") or by a noun ("Corvane's acquisition of
Tessaly", "Ada Lovelace, founder of Tessaly"), each with its polarity: stated, denied ("abandoned its
acquisition of") or unsettled ("its planned acquisition of").
"""

from __future__ import annotations

import re
from functools import lru_cache

from verification.claims.commitments.mention import Mention
from verification.claims.commitments.names import _ENTITY, _NOT_ENTITIES, _entity_key
from verification.claims.tokens import NEGATION_WORDS, TEXT_CACHE_SIZE, stem, words

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
    rf"(?P<obj>{_ENTITY.pattern})(?:\s+(?:was|were|is|are|has been|had been|will be)\s+|,\s+)"
    rf"(?P<neg>(?:not|never)\s+)?(?P<verb>{_RELATION_VERBS})\s+by\s+(?:the\s+)?(?P<subj>{_ENTITY.pattern})"
)
# The same acts named by a noun: "Corvane's acquisition of Tessaly", "Corvane completed its acquisition
# of Tessaly" ("its" is the subject's), "the acquisition of Tessaly by Corvane", "Tessaly's acquisition
# by Corvane", "Ada Lovelace, founder of Tessaly". Each noun maps to the stem of its verb.
_NOMINAL_ACTS = {
    "acquisition": "acquir", "purchase": "acquir", "takeover": "acquir", "buyout": "acquir",
    "defeat": "defeat", "founding": "found", "founder": "found", "co-founder": "found", "creation": "creat",
    "invention": "invent", "development": "develop", "publication": "publish", "sponsorship": "sponsor",
    "ownership": "own", "replacement": "replac",
}
_SAME_ACT = {"buy": "acquir", "purchas": "acquir"}
"""Verbs naming the act another verb names: buying a company is acquiring it."""
_NOUN = "|".join(sorted(_NOMINAL_ACTS, key=len, reverse=True))
_GAP = r"(?P<gap>(?:[\w$€£.,-]+\s+){0,2}?)"
_NOMINAL = (
    re.compile(rf"(?P<subj>{_ENTITY.pattern})['’]s\s+{_GAP}(?P<noun>{_NOUN})\s+of\s+(?:the\s+)?"
               rf"(?P<obj>{_ENTITY.pattern})"),
    # An aside between the subject and its verb ("Corvane, a maker of pumps, completed its ...").
    re.compile(rf"(?P<subj>{_ENTITY.pattern})(?:,[^,;.()]{{1,80}},)?\s+(?P<lead>(?:[a-z']+\s+){{1,3}}?)"
               rf"(?:its|their)\s+{_GAP}"
               rf"(?P<noun>{_NOUN})\s+of\s+(?:the\s+)?(?P<obj>{_ENTITY.pattern})"),
    re.compile(rf"\b{_GAP}(?P<noun>{_NOUN})\s+of\s+(?:the\s+)?(?P<obj>{_ENTITY.pattern})\s+by\s+(?:the\s+)?"
               rf"(?P<subj>{_ENTITY.pattern})"),
    re.compile(rf"(?P<obj>{_ENTITY.pattern})['’]s\s+{_GAP}(?P<noun>{_NOUN})\s+by\s+(?:the\s+)?"
               rf"(?P<subj>{_ENTITY.pattern})"),
    re.compile(rf"(?P<subj>{_ENTITY.pattern}),?\s+(?:the\s+|a\s+){_GAP}(?P<noun>co-founder|founder)\s+of\s+"
               rf"(?:the\s+)?(?P<obj>{_ENTITY.pattern})"),
)
# Every pattern above has one of the nouns, in lower case: a sentence without one is not read further.
_NOMINAL_HINT = re.compile(rf"\b(?:{_NOUN})\b")
_UNDONE = ("abandon", "cancel", "call", "block", "fail", "drop", "terminat", "scrap", "withdr", "reject",
           "halt")
"""Words before an act's noun that say it did not happen ("abandoned its acquisition of")."""
_UNSETTLED = ("plan", "propos", "pend", "potential", "possibl", "attempt", "intend", "rumo", "bid")
"""Words that say it has not happened yet ("its planned acquisition of"): neither stated nor denied."""


def find_relations(text: str) -> list[Mention]:
    """Who did what to whom, for a small set of verbs, active ("A acquired B") or passive."""
    return list(_find_relations(text))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _find_relations(text: str) -> tuple[Mention, ...]:
    relations = []
    for pattern in (_ACTIVE, _PASSIVE):
        for match in pattern.finditer(text):
            subj, obj = _entity_key(match.group("subj")), _entity_key(match.group("obj"))
            # "She replaced James Marshall": a pronoun names no one a source could be checked against.
            if not subj or not obj or subj == obj or {subj, obj} & _NOT_ENTITIES:
                continue
            verb = stem(match.group("verb").split()[0].lower())
            verb = _SAME_ACT.get(verb, verb)
            polarity = "neg" if match.group("neg") else "pos"
            relations.append(Mention("relation", match.group(), match.start(), match.end(), None, verb,
                                     (subj, obj, polarity)))
    for pattern in _NOMINAL if _NOMINAL_HINT.search(text) else ():
        for match in pattern.finditer(text):
            subj, obj = _entity_key(match.group("subj")), _entity_key(match.group("obj"))
            if not subj or not obj or subj == obj or {subj, obj} & _NOT_ENTITIES:
                continue
            between = (match.groupdict().get("lead") or "") + match.group("gap")
            leading = [word for word, _, _ in words(between)]
            polarity = (
                "neg" if any(word in NEGATION_WORDS or word.startswith(_UNDONE) for word in leading)
                else "open" if any(word.startswith(_UNSETTLED) for word in leading) else "pos"
            )
            act = _NOMINAL_ACTS[match.group("noun").lower()]
            relations.append(Mention("relation", match.group(), match.start(), match.end(), None, act,
                                     (subj, obj, polarity)))
    return tuple(relations)
