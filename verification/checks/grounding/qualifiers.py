"""Quantifiers and absolute qualifiers: "both plans" where "only the Enterprise plan" does.

A qualifier in a claim ("all", "both", "only", "never", "lifetime", "unlimited", "any time", "full")
is grounded by a sentence that says it, or something equivalent, of the same word; it is contradicted
by one that restricts it ("only", "some", "a 2-year warranty") while saying the rest of its clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verification.checks.grounding.clauses import by_first_word, phrase_at
from verification.checks.grounding.conjuncts import MISSES_PER_WORD, each_conjunct
from verification.checks.grounding.finding import Finding
from verification.claims.clauses import (
    BE,
    CONDITIONS,
    NEGATORS,
    Token,
    clause_tokens,
    content_keys,
    covered_keys,
    same_key,
)
from verification.claims.commitments import WORD_NUMBERS
from verification.claims.tokens import NEGATION_WORDS, stem
from verification.claims.view import ClaimView
from verification.retrieval.index import Hit, Passage, SourceIndex
from verification.types import State


@dataclass(frozen=True)
class Qualifier:
    """An absolute word in a claim, and what in a source states or restricts it."""

    grounds: tuple[str, ...]
    """Words or phrases that state the same thing of the same word ("every" grounds "all")."""
    restricts: tuple[str, ...] = ()
    """Words or phrases that, said of the same thing, contradict it ("only the Enterprise plan")."""
    bounded_by_values: frozenset[str] = frozenset()
    """Kinds of value that, said of the same thing, bound it ("a 2-year warranty" is not lifetime)."""
    imperative: bool = False
    """Whether a source's instruction states it: "Keep your receipt" says you must keep it."""


_UNIVERSAL = ("all", "every", "each", "entire", "whole", "any", "everyone", "everything", "everybody")
_SOME_ONLY = ("only", "some", "certain", "selected", "except", "excluding", "not all", "not every", "one of")
_WHOLE = ("full", "fully", "in full", "complete", "completely", "entire", "entirely", "whole", "wholly",
          "total", "totally")
_PART = ("partial", "partially", "partly", "pro rata", "pro rated", "prorated", "half", "portion")
_LIMITS = ("limit", "limited", "up to", "maximum", "max", "cap", "capped")
_OBLIGED = ("must", "required", "require", "requires", "requirement", "mandatory", "obligatory", "compulsory",
            "obliged", "shall", "have to", "has to", "had to", "need to", "needs to", "needed to", "only")
_PERMITTED = ("may", "can", "could", "might", "optional", "optionally", "voluntary", "voluntarily", "choose",
              "chooses", "allowed", "permitted", "free to", "not required", "not need", "do not need",
              "does not need", "not have to")

QUALIFIERS: dict[str, Qualifier] = {
    "all": Qualifier(_UNIVERSAL, _SOME_ONLY),
    "both": Qualifier(("both", "the two", "each of the two"), ("only", "one of", "neither")),
    "only": Qualifier(("only", "sole", "solely", "exclusively", "alone", "no other"), ("one of", "among")),
    "never": Qualifier(("never", "not", "n't", "no", "cannot", "at no time", "nothing", "none"),
                       ("once", "sometimes", "occasionally", "rarely", "twice")),
    "always": Qualifier(("always", "at all times", "every time", "constantly", "invariably", "forever"),
                        ("sometimes", "usually", "often", "occasionally", "rarely", "generally", "typically")),
    "none": Qualifier(("none", "no one", "nobody", "no", "neither", "nothing", "not")),
    "lifetime": Qualifier(("lifetime", "life", "lifelong", "permanent", "permanently", "forever"),
                          ("limited",), frozenset({"duration", "date"})),
    "unlimited": Qualifier(("unlimited", "no limit", "no limits", "limitless", "without limit", "uncapped"),
                           _LIMITS, frozenset({"number", "money", "duration"})),
    "any time": Qualifier(("any time", "anytime", "at all times", "whenever", "around the clock", "24 7"),
                          ("within", "until", "before", "during", "between", "only"),
                          frozenset({"duration", "date", "time"})),
    "full": Qualifier(_WHOLE + ("100",), _PART),
    "entire": Qualifier(_WHOLE + ("all",), _PART + ("mostly", "largely")),
    "guaranteed": Qualifier(("guarantee", "guaranteed", "guarantees", "assured", "promise", "promised",
                             "warranted")),
    # An obligation: "you must cancel online" is not what "you may cancel online" says.
    "must": Qualifier(_OBLIGED, _PERMITTED, imperative=True),
}
"""The claim's qualifier (by name) and what grounds or restricts it."""

QUALIFIER_WORDS: dict[str, str] = {
    "all": "all", "every": "all", "each": "all", "any": "all", "everyone": "all", "everybody": "all",
    "whole": "entire", "both": "both", "only": "only",
    "solely": "only", "exclusively": "only", "never": "never", "always": "always", "none": "none",
    "nobody": "none", "lifetime": "lifetime", "unlimited": "unlimited", "anytime": "any time",
    "full": "full", "fully": "full", "entire": "entire", "entirely": "entire", "completely": "entire",
    "wholly": "entire", "guaranteed": "guaranteed", "must": "must", "mandatory": "must",
    "compulsory": "must", "obligatory": "must",
}
"""A claim's word and the qualifier it is ("each" and "every" commit to what "all" does)."""
# A look at the first letter of every word (as in `clauses.first_words`) passes over most positions at once.
QUALIFIER_HINT = re.compile(
    "(?=[" + "".join(sorted({word[0] for word in QUALIFIER_WORDS} | {"a", "n"})) + "])"
    r"\b(?:" + "|".join(sorted(QUALIFIER_WORDS)) + r"|any time|no one)\b", re.IGNORECASE
)

IDIOMS = (
    "not only", "if only", "only just", "at all", "first of all", "most of all", "best of all",
    "above all", "after all", "all but", "all in all", "all along", "all the same", "all the more",
    "once and for all", "of all time", "each other", "every other", "as always", "none other",
    "any more", "any longer", "in any case", "in any event", "full of",
)
"""Phrases in which the word quantifies nothing ("not only ... but also", "at all")."""

_TIME_UNITS = frozenset(
    "second minute hour day night week weekend month year decade morning afternoon evening season "
    "quarter time".split()
)
"""After "every" or "each" these make a rate ("every 6 hours", "each week"), a value of its own."""
_NPI_LICENSORS = frozenset({"fail", "fails", "failed", "refuse", "refuses", "refused", "hardly", "before", "than"})
"""Words after which "any" means "some" as it does after a negation ("fails to provide any details")."""
_AUXILIARIES = frozenset({"have", "has", "had", "do", "does", "did", "can", "could", "will", "would", "may",
                          "might", "must", "should"})
_PLURALS = frozenset({"people", "children", "men", "women", "sexes", "feet", "teeth", "mice", "data"})

_SAID_AFTER = frozenset({"mandatory", "compulsory", "obligatory"})
"""Qualifiers said after what they bear on ("a receipt is mandatory")."""
_INSTRUCTION_OPENERS = frozenset({"please", "always", "never", "do", "don't", "not", "first", "then", "simply",
                                  "just", "also", "and"})
"""Words an instruction may open with before its verb: "Please keep", "Do not share", "Always check"."""

_SCOPE_REACH = 4
"""How many words from its qualifier the word it qualifies may be, in the claim and in a source."""


@dataclass(frozen=True)
class Use:
    """One qualifier in the claim and the word it bears on."""

    name: str
    """Its entry in QUALIFIERS."""
    index: int
    """Position of its (first) word among the claim's tokens."""
    text: str
    """Its words as the claim has them."""
    scope: tuple[int, ...]
    """Positions of the words it qualifies ("each insurance plan": insurance, plan); may be empty."""
    conjuncts: tuple[tuple[int, ...], ...] = ()
    """For "both A and B": the positions of A's and B's words."""


def find_qualifiers(claim: ClaimView) -> list[Use]:
    """The claim's quantifiers and absolute qualifiers, idioms and titles left out."""
    text, tokens = claim.text, claim.clause_tokens
    uses = []
    for i, token in enumerate(tokens):
        name = QUALIFIER_WORDS.get(token.word)
        width = 1
        if token.word == "any" and i + 1 < len(tokens) and tokens[i + 1].word == "time":
            name, width = "any time", 2
        elif token.word == "no" and i + 1 < len(tokens) and tokens[i + 1].word == "one":
            name, width = "none", 2
        # A hyphenated compound ("all-time", "full-length") is a word of its own, which coverage weighs.
        if name is None or _idiom(tokens, i) or _in_title(text, token) or text[token.end : token.end + 1] == "-":
            continue
        if _counted(text, tokens, i) or (token.word == "any" and _not_universal(text, tokens, i)):
            continue
        if name == "both" and (conjuncts := _conjuncts(text, tokens, i)):
            if all(tokens[j].capitalised for conjunct in conjuncts for j in conjunct):
                uses.append(Use(name, i, token.word, (), conjuncts))
            continue  # "both novice and advanced users": coverage asks for each of the common nouns
        if name == "both" and _coordination_left(tokens, i):
            continue
        # "cancel at any time", "a receipt is mandatory": what these bear on comes before them.
        backwards = name in {"any time", "guaranteed"} or token.word in _SAID_AFTER
        scope = _scope(tokens, i, width, backwards_first=backwards)
        uses.append(Use(name, i, text[token.start : tokens[i + width - 1].end], scope))
    return uses


def _idiom(tokens: tuple[Token, ...], i: int) -> bool:
    """Whether the word at `i` is part of one of IDIOMS ("at all", "each other")."""
    return any(
        i - offset >= 0 and phrase_at(tokens, i - offset, idiom)
        for idiom, offset in _IDIOM_PARTS.get(tokens[i].word, ())
    )


def _idiom_parts() -> dict[str, tuple[tuple[str, int], ...]]:
    """Each word of IDIOMS with the idioms it is part of and where in them: a word is asked only about those."""
    parts: dict[str, list[tuple[str, int]]] = {}
    for idiom in IDIOMS:
        for offset, part in enumerate(idiom.split()):
            parts.setdefault(part, []).append((idiom, offset))
    return {word: tuple(found) for word, found in parts.items()}


_IDIOM_PARTS = _idiom_parts()


def _in_title(text: str, token: Token) -> bool:
    """A capitalised word inside a sentence, or a word in quotes, is part of a name or a title."""
    before = text[: token.start].rstrip()
    starts_sentence = not before or before[-1] in ".!?:;\"“(-•*"
    opened = text[: token.start]
    quoted = opened.count('"') % 2 == 1 or opened.count("“") > opened.count("”")
    return (text[token.start].isupper() and not starts_sentence) or quoted


def _counted(text: str, tokens: tuple[Token, ...], i: int) -> bool:
    """"all three", "only 3 players", "every 6 hours", "$10 each": the number is the commitment."""
    word = tokens[i].word
    following = [t.word for t in tokens[i + 1 : i + 3] if t.clause == tokens[i].clause]
    following_text = text[tokens[i].end : tokens[min(i + 2, len(tokens) - 1)].end]
    if following and (following[0][:1].isdigit() or following[0] in WORD_NUMBERS) and word != "never":
        return True
    # "only costs $XXX a month", "only takes 5 minutes": "only" says the value is small, nothing more.
    if word == "only" and len(following) == 2 and any(c.isdigit() or c in "$€£¥₹" for c in following_text):
        return True
    if word in {"every", "each"} and any(f.rstrip("s") in _TIME_UNITS for f in following):
        return True
    return word == "each" and i > 0 and tokens[i - 1].word[:1].isdigit()


def _not_universal(text: str, tokens: tuple[Token, ...], i: int) -> bool:
    """"any" under a negation, in a condition or in a question means "some", not "every"."""
    before = {t.word for t in tokens[:i] if t.clause == tokens[i].clause}
    return bool(before & (NEGATION_WORDS | NEGATORS | CONDITIONS | _NPI_LICENSORS)) or text.rstrip().endswith("?")


def _scope(tokens: tuple[Token, ...], i: int, width: int, *, backwards_first: bool) -> tuple[int, ...]:
    """The words the qualifier bears on: the next content word in its clause with the one right after it
    ("both plans", "each insurance plan", "always covers"), else the ones before ("three platforms
    only", "cancel at any time")."""
    clause = tokens[i].clause
    after = [j for j in range(i + width, min(len(tokens), i + width + _SCOPE_REACH))
             if tokens[j].clause == clause and tokens[j].content]
    before = [j for j in range(i - 1, max(-1, i - 1 - _SCOPE_REACH), -1)
              if tokens[j].clause == clause and tokens[j].content]
    order = (before, after) if backwards_first else (after, before)
    first = next((candidates[0] for candidates in order if candidates), None)
    if first is None:
        return ()
    step = -1 if first < i else 1
    second = first + step
    if 0 <= second < len(tokens) and tokens[second].content and tokens[second].clause == clause:
        return (first, second)
    return (first,)


def _conjuncts(text: str, tokens: tuple[Token, ...], i: int) -> tuple[tuple[int, ...], ...]:
    """For "both A and B ..." and "A and B are both ...": the positions of A's and of B's words."""
    clause = tokens[i].clause
    in_clause = [j for j in range(len(tokens)) if tokens[j].clause == clause]
    following = [j for j in in_clause if j > i]
    and_after = next((j for j in following[:8] if tokens[j].word == "and"), None)
    if and_after is not None and not any(tokens[j].word in BE for j in following if j < and_after):
        first = tuple(j for j in range(i + 1, and_after) if tokens[j].content)
        second = []
        for j in following:
            if j <= and_after:
                continue
            if tokens[j].word in BE | _AUXILIARIES:
                break
            if tokens[j].content:
                second.append(j)
                if not tokens[j].capitalised and tokens[second[0]].capitalised:
                    second.pop()
                    break
        if first and second:
            return first, tuple(second)
    preceding = [j for j in in_clause if j < i]
    and_before = next((j for j in reversed(preceding) if tokens[j].word == "and"), None)
    if and_before is None:
        return ()
    second_run = tuple(j for j in preceding if j > and_before and tokens[j].content)
    first_run: list[int] = []
    for j in reversed([j for j in preceding if j < and_before]):
        if tokens[j].word in BE or not (tokens[j].content or tokens[j].word in {"of", "the"}):
            break
        if tokens[j].content:
            first_run.insert(0, j)
    return (tuple(first_run), second_run) if first_run and second_run else ()


def _coordination_left(tokens: tuple[Token, ...], i: int) -> bool:
    """Whether "both" starts a coordination cut short ("on both a non-GAAP [and GAAP basis]").

    As a determiner "both" takes a plural ("both plans"); as a pronoun a verb follows ("both are").
    Anything else is one side of "both A and B" whose other side is not in the claim's text.
    """
    following = [t for t in tokens[i + 1 :] if t.clause == tokens[i].clause]
    if not following or following[0].word in BE | _AUXILIARIES:
        return False
    noun = next((t.word for t in following if t.content), "")
    return bool(noun) and not (noun.endswith("s") or noun in _PLURALS)


def check_qualifier(use: Use, claim: tuple[Token, ...], passages: list[Passage], hits: list[Hit],
               index: SourceIndex) -> Finding | None:
    if use.conjuncts:
        clause = claim[use.index].clause
        members = {j for conjunct in use.conjuncts for j in conjunct}
        predicate = [t.key for j, t in enumerate(claim) if t.clause == clause and t.content and j not in members
                     and t.word not in QUALIFIER_WORDS]
        return each_conjunct(use.text, use.conjuncts, predicate, claim, hits, index)
    qualifier = QUALIFIERS[use.name]
    scope_keys = [claim[j].key for j in use.scope]
    rest = [t.key for j, t in enumerate(claim) if t.content and t.clause == claim[use.index].clause
            and j != use.index and t.word not in QUALIFIER_WORDS]
    restricting = None
    for passage in passages:
        if scope_keys and not covered_keys(scope_keys, content_keys(passage.text)):
            continue  # the sentence never names what the qualifier bears on: there is no spot in it
        tokens = clause_tokens(passage.text)
        spots = [j for j, t in enumerate(tokens) if t.content and any(same_key(t.key, key) for key in scope_keys)]
        if not scope_keys:
            stated = covered_keys(rest, (t.key for t in tokens))
            spots = list(range(len(tokens))) if len(stated) >= 0.6 * len(rest) else []
        for spot in spots:
            if _said_near(tokens, spot, qualifier.grounds, use.name == "never"):
                return None
            if qualifier.imperative and scope_keys and _instruction(tokens, spot, scope_keys[0]):
                return None
            if restricting is None and (
                _said_near(tokens, spot, qualifier.restricts, False, after=1)
                or _bounded(passage, tokens, spot, qualifier.bounded_by_values)
            ) and _states_rest(rest, tokens, index):
                restricting = passage
    word = use.text
    if restricting is not None:
        return Finding(State.REFUTED, (restricting,), "qualifier-restricted",
                       f"The claim says \"{_phrase(use, claim)}\"; the source restricts it: "
                       f"\"{restricting.text.strip()}\"", word)
    cited = [hit.passage for hit in hits if not scope_keys or covered_keys(scope_keys, content_keys(hit.passage.text))]
    return Finding(State.INSUFFICIENT_EVIDENCE, tuple(cited[:2] or [hit.passage for hit in hits[:1]]),
                   "qualifier-unstated", f"Nothing the sources say states \"{word}\" "
                   f"(\"{_phrase(use, claim)}\"): the closest sentences leave it unsaid.", word)


def _instruction(tokens: tuple[Token, ...], spot: int, verb: str) -> bool:
    """Whether the word at `spot` is the claim's `verb` opening an instruction: "Keep your receipt",
    "Do not share your password". A source's instruction is an obligation."""
    return (
        same_key(tokens[spot].key, verb)
        and tokens[spot].clause == tokens[0].clause
        and all(token.word in _INSTRUCTION_OPENERS for token in tokens[:spot])
    )


def _phrase(use: Use, claim: tuple[Token, ...]) -> str:
    if not use.scope:
        return use.text
    low, high = min(use.index, *use.scope), max(use.index, *use.scope)
    return " ".join(token.word for token in claim[low : high + 1])


def _said_near(tokens: tuple[Token, ...], spot: int, phrases: tuple[str, ...], negation: bool,
               *, after: int = _SCOPE_REACH) -> bool:
    """Whether one of `phrases` is said within reach of the word at `spot`, in its clause."""
    clause = tokens[spot].clause
    low, high = max(0, spot - _SCOPE_REACH), min(len(tokens), spot + after + 1)
    for j in range(low, high):
        if tokens[j].clause != clause:
            continue
        if negation and tokens[j].word in NEGATORS | NEGATION_WORDS and j < spot:
            return True
        if any(phrase_at(tokens, j, phrase) for phrase in by_first_word(phrases).get(tokens[j].word, ())):
            return True
    return False


def _bounded(passage: Passage, tokens: tuple[Token, ...], spot: int, kinds: frozenset[str]) -> bool:
    """Whether a value of one of `kinds` is said of the word at `spot` ("a 2-year warranty")."""
    if not kinds:
        return False
    clause = tokens[spot].clause
    near = [t for t in tokens[max(0, spot - _SCOPE_REACH) : spot + _SCOPE_REACH + 1] if t.clause == clause]
    low, high = near[0].start, near[-1].end
    return any(m.kind in kinds and low <= m.start < high for m in passage.mentions)


def _states_rest(rest: list[str], tokens: tuple[Token, ...], index: SourceIndex) -> bool:
    """Whether a sentence states the rest of the qualifier's clause, so that it is about the same thing.

    Words the sources never use do not count against it: they are unsupported anyway, and the
    restriction still contradicts what the claim says of the qualified word.
    """
    keys = [t.key for t in tokens if t.content]
    misses = [key for key in rest if not covered_keys([key], keys) and stem(key) in index.vocabulary]
    return len(misses) <= len(rest) // MISSES_PER_WORD
