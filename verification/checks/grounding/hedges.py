"""What a source only expects, plans or allows for: "the update rolled out in May" where the source says
it "is expected to roll out in May".

A sentence that puts the claim's words under a hedge or a plan ("is expected to", "plans to", "may")
does not state that it happened. A claim that asserts it, in words that otherwise restate the sentence,
says more than the source; so does a claim in the past tense where the source says it "will" happen.
What is planned may since have happened, so this is unsaid, never contradicted.

"May" is also the voice of a policy: "You may cancel your subscription at any time" grants a permission.
A claim that states the permission ("you can cancel at any time") says what the source says, so a
source's "may" is no hedge against a claim that itself grants or allows. A claim that asserts the thing
as done ("the refund takes 30 days" against "may take 30 days") still says more than the source.
"""

from __future__ import annotations

from verification.checks.grounding.clauses import any_says, by_first_word, first_words, phrase_at, says, unsaid_in_every
from verification.checks.grounding.finding import Finding
from verification.claims.clauses import Token, clause_tokens, same_key
from verification.claims.view import ClaimView
from verification.retrieval.index import Passage

HEDGES = (
    "expected to", "expects to", "is set to", "are set to", "was set to", "scheduled to", "plans to", "plan to",
    "planned to", "planning to", "aims to", "aim to", "intends to", "intend to", "hopes to", "hope to",
    "proposed to", "likely to", "may", "might", "could", "would",
)
"""Words that put what follows under a hedge or a plan."""
PERMISSIONS = (
    "can", "may", "is allowed to", "are allowed to", "be allowed to", "is able to", "are able to", "be able to",
    "is permitted to", "are permitted to", "be permitted to", "is entitled to", "are entitled to",
)
"""Words that grant or allow what follows; "can" and "may" grant in a policy's voice."""
GRANTS = ("may",)
"""Hedges a source also writes to grant a permission: no hedge against a claim that states one."""
FUTURE = ("will", "shall", "going to")
"""Words that put what follows in the future: not yet done, but promised."""
_HINT = first_words(HEDGES + FUTURE)
_PERMISSION_HINT = first_words(PERMISSIONS)
_REACH = 3
"""How many words after a hedge the word it bears on may be."""


def may_apply(near: list[Passage]) -> bool:
    """Whether any sentence near the evidence hedges or promises at all: a cheap look first."""
    return any_says(near, _HINT)


def check_hedges(claim_view: ClaimView, restating: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when every sentence the claim restates (`clauses.restated`) only expects or
    plans what the claim asserts."""
    claim = claim_view.clause_tokens
    if not restating or (_HINT.search(claim_view.text) and _hedged(claim, HEDGES + FUTURE)):
        return None  # the claim hedges or promises too; coverage judges it
    claim_keys = [token.key for token in claim if token.content]
    past = [token.key for token in claim if token.content and token.word.endswith("ed")]
    permits = bool(_PERMISSION_HINT.search(claim_view.text)) and _hedged(claim, PERMISSIONS)
    hedges = tuple(hedge for hedge in HEDGES if hedge not in GRANTS) if permits else HEDGES

    def hedged(passage: Passage) -> str | None:
        if not says(passage.text, _HINT):
            return None  # the sentence restates the claim with no hedge at all
        tokens = clause_tokens(passage.text)
        return _hedge_on(tokens, claim_keys, hedges) or (_hedge_on(tokens, past, FUTURE) if past else None)

    return unsaid_in_every(restating, hedged, "unasserted",
                           lambda hedge: f"The source only says \"{hedge}\": it does not say that it happened.")


def _hedged(tokens: tuple[Token, ...], phrases: tuple[str, ...]) -> bool:
    starting = by_first_word(phrases)
    return any(_at(tokens, i, phrase) for i, token in enumerate(tokens) for phrase in starting.get(token.word, ()))


def _at(tokens: tuple[Token, ...], i: int, phrase: str) -> bool:
    """Whether `phrase` is said at `i`; "May" inside a sentence is the month, not the hedge."""
    if tokens[i].word != phrase.split()[0] or (phrase == "may" and tokens[i].capitalised and i > 0):
        return False
    return phrase_at(tokens, i, phrase)


def _hedge_on(tokens: tuple[Token, ...], keys: list[str], phrases: tuple[str, ...]) -> str:
    """The hedge and the words it bears on, where it bears on one of the claim's `keys`; else ""."""
    starting = by_first_word(phrases)
    for i, token in enumerate(tokens):
        for phrase in starting.get(token.word, ()):
            if not _at(tokens, i, phrase):
                continue
            after = i + len(phrase.split())
            for j in range(after, min(len(tokens), after + _REACH)):
                if tokens[j].clause != token.clause:
                    break
                if tokens[j].content and any(same_key(tokens[j].key, key) for key in keys):
                    return " ".join(t.word for t in tokens[i : j + 1])
    return ""
