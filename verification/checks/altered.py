"""A claim that restates one source sentence with a name, a number or the polarity changed.

An answer that copies a sentence and swaps one name for another the source mentions elsewhere ("Valiant
consumed four titles other than Deciphering") covers every word of the claim, so word overlap and the
scorer read it as support. A word-level diff against the sentence it restates shows what changed: where
the claim follows the sentence for most of its words and, in a stretch it replaces, says a name or a
number the sentence does not say there, or adds or drops a negation, the claim is not what the sentence
says. A phrase moved ("in 2010" from the front to the back) is no change: its words are on both sides of
the diff. Values the value checks find stated in the sentence ("$20" / "20 dollars") compare as equal.

Whom a claim names is an argument however many words name it: a name written as several words counts as
one word toward the share a restatement must follow ("Margaret Hale had been given the Arctic Rescue
Service" restates "... Margaret Hale had been given the Royal Geographical Medal"), and a name put for a
name is a swap whatever their lengths ("our Quick Start" for "our Northwind Cloud Backup Service"). Whom a
line is said by is one too: a transcript line restated under another speaker ("Finance Officer: the
budget is approved ." for "Project Lead: the budget is approved .") is a swap, however few words the line
has. A negation matches the sentence's only where it reaches the same words: "there are not real dogs" is
not restated by "Who doesn't want to see two real dogs".

A clause split from its sentence is often too short to diff by the words that carry content ("I knew I
could give up"): it restates a sentence that says all its words, stop words too, in one stretch, and
differs from it where the stretch has a negation it lacks. A value is keyed by the sentence's mention
that states it, so "between 2021 and 2021" says the sentence's 2021 twice, once where it says 2018. A
name the claim ends with is compared with the sentence's name just after the stretch it restates,
however far the sentence goes on; and the capital that opens a line opens a name where a name goes on
from it ("Tabula Rasa among others.").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import lru_cache

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.clauses import CLAUSE_JOIN
from verification.claims.commitments import VALUE_KINDS
from verification.claims.commitments.value_patterns import WORD_NUMBERS
from verification.claims.tokens import NEGATION_WORDS, STOP_WORDS, is_negating, prefix_negated, stem, words
from verification.claims.view import ClaimView
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage
from verification.types import State

_RESTATES = 0.6
"""Share of the claim's words that must follow the sentence, in order, before it counts as restating it."""
_MIN_WORDS = 3
"""A claim shorter than this is too short to tell a restatement from a chance overlap."""
_MIN_RUN = 4
"""Fewest words, stop words counted, of a shorter claim that a sentence must say in one stretch to restate it."""
_SWAP = 3
"""Most words on either side of a substitution ("Ravens" for "Falcons", "New York" for "Boston")."""
_NAME = 6
"""Most words of a name put for another name ("Quick Start" for "Northwind Cloud Backup Service")."""
_NEGATION = "<not>"
_NON = "non"
"""The "non" of "non-refundable": read as one word with the word after the hyphen, which it negates."""
_VALUE = "<value "
_SPEAKER = re.compile(r"\s*([A-Za-z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s")
"""A line that opens with whom it is said by ("Project Lead: ...", "Client: ...")."""


@dataclass(frozen=True)
class _Token:
    key: str
    surface: str
    named: bool
    """A name or a number: capitalised past the first word, or a digit."""
    joined: bool = False
    """Written right after the token before it, a space between: one name with it where both are names."""
    start: int = 0
    """Where it starts in its text."""


class Altered(Check):
    """Never SUPPORTED: the claim restates a sentence but changes a name, a number or its polarity."""

    name = "altered"
    version = 9
    role = Role.RESEMBLANCE

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        return altered(claim, evidence)


def altered(claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
    """The change against the retrieved sentence the claim restates most closely, or None: a claim that
    restates one sentence with a change and another word for word is the other's."""
    # The claim's tokens for each set of its values a sentence states (most sentences state none): read
    # once for all the retrieved sentences, not again for each.
    claim_tokens: dict[tuple[tuple[int, int, int], ...], list[_Token]] = {}
    restated = [(diff, hit.passage) for hit in evidence.hits
                if (diff := _diff(claim, evidence, hit.passage, claim_tokens))]
    if any(diff.whole and diff.change is None for diff, _ in restated):
        return None
    changed = [(diff.matched, diff.change, passage) for diff, passage in restated if diff.change is not None]
    if not changed:
        return None
    _, (said, instead), passage = max(changed, key=lambda found: found[0])
    return CheckFinding(
        state=State.INSUFFICIENT_EVIDENCE,
        method=PREFIX + Altered.name,
        evidence=(citations.span(passage, claim, evidence, [said]),),
        confidence=0.8,
        rationale=f"The claim restates the cited sentence but says \"{said}\" where it says \"{instead}\".",
    )


@dataclass(frozen=True)
class _Diff:
    matched: int
    """How many of the claim's words follow the sentence, in order."""
    whole: bool
    """Every word of the claim follows the sentence."""
    change: tuple[str, str] | None
    """(what the claim says, what the sentence says there) for the first change that matters."""


def _diff(claim: ClaimView, evidence: Evidence, passage: Passage,
          claim_tokens: dict[tuple[tuple[int, int, int], ...], list[_Token]]) -> _Diff | None:
    """How the claim differs from a sentence it restates; None when it does not restate it. `claim_tokens`:
    the claim's tokens read so far, by the values stated."""
    spans, theirs_values = _stated(claim, evidence, passage)
    ours = claim_tokens.get(spans)
    if ours is None:
        ours = claim_tokens[spans] = _tokens(claim.text, claim.words, spans)
    said_by = _said_by(claim, passage, spans, theirs_values)
    if said_by is not None:
        return said_by
    if len(ours) < _MIN_WORDS:
        return _across_clauses(ours, passage) or _word_for_word(claim, passage, len(ours))
    # Most retrieved sentences share too few of the claim's words to restate it: ruled out before the diff.
    stems = passage.stem_set  # the index's stems of the sentence: numbers spelled out aside, the diff's keys
    if not _restates(ours, [token.key in stems or token.key[:1] in "<0123456789" for token in ours]):
        return None
    theirs = (_tokens(passage.text, words(passage.text), theirs_values) if theirs_values
              else _sentence_tokens(passage.text))
    matcher = SequenceMatcher(None, [token.key for token in ours], [token.key for token in theirs], autojunk=False)
    blocks = [block for block in matcher.get_matching_blocks() if block.size]
    matched = sum(block.size for block in blocks)
    found = [False] * len(ours)
    for block in blocks:
        found[block.a:block.a + block.size] = [True] * block.size
    if not _restates(ours, found):
        return None
    # Only the stretch of the sentence the claim restates counts, and what the claim puts in place of the
    # words just before and just after it: the rest of the sentence the claim may leave out.
    first, last = blocks[0].b, blocks[-1].b + blocks[-1].size
    cut = [_edge(op, first, theirs) if op[3] < first else _tail(op, last, theirs) for op in matcher.get_opcodes()
           if op[0] != "equal" and (first <= op[3] or op[4] == first)
           and (op[4] <= last or op[0] == "replace" and op[3] <= last)]
    whole = matched == len(ours) and _negations_reach_alike(ours, blocks)
    opcodes = [_without_conjunct(op, ours, claim.text) for op in cut if op]
    return _Diff(matched, whole, _first_change(ours, theirs, opcodes, last, passage.text))


def _stated(claim: ClaimView, evidence: Evidence, passage: Passage) -> tuple[
        tuple[tuple[int, int, int], ...], list[tuple[int, int, int]]]:
    """The claim's values the sentence states, (start, end, key) in the claim, and the sentence's mentions
    that state them, (start, end, key) in the sentence. A value is one token on each side, keyed by the
    sentence's mention that states it: a claim that says one value twice ("between 2021 and 2021") has two
    tokens of one key where the sentence has one ("between 2018 and 2021")."""
    mentions: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for check in evidence.values:
        if check.claim_value.kind in VALUE_KINDS:
            for found, mention in check.grounding:
                if found is passage:
                    mentions.setdefault((check.claim_value.start, check.claim_value.end), []).append(
                        (mention.start, mention.end))
    keys = {value: min(start for start, _ in stating) for value, stating in mentions.items()}
    theirs: dict[tuple[int, int], int] = {}
    for value, stating in mentions.items():
        for said in stating:
            theirs[said] = min(theirs.get(said, keys[value]), keys[value])
    return (tuple((start, end, keys[(start, end)]) for start, end in mentions),
            sorted((start, end, key) for (start, end), key in theirs.items()))


def _across_clauses(ours: list[_Token], passage: Passage) -> _Diff | None:
    """A claim of two words that carry content apart, a name among them, that the sentence says in two
    clauses with another name between: "Alice is the CTO" against "Alice is the CFO and Bob is the CTO"
    (`_skips_into_another_clause`). Two words in one sentence are too few to restate it otherwise."""
    if len(ours) != 2 or not any(map(_is_name, ours)) or ours[1].joined:
        return None  # two words written together are one name ("Target Corporation"), said as one
    theirs = _sentence_tokens(passage.text)
    keys = [token.key for token in theirs]
    if ours[0].key not in keys or ours[1].key not in keys:
        return None
    first, second = keys.index(ours[0].key), keys.index(ours[1].key)
    skipped = theirs[first + 1:second]
    if not skipped or second < first:
        return None
    text = passage.text[skipped[0].start:theirs[second].start]
    if not _skips_into_another_clause(ours, 1, skipped, text, skipped[0].start):
        return None
    return _Diff(2, False, (ours[1].surface, skipped[0].surface))


def _word_for_word(claim: ClaimView, passage: Passage, tokens: int) -> _Diff | None:
    """A claim too short for the diff ("I knew I could give up") against a sentence that says all its
    words, stop words too, in one stretch: a restatement, or a change where the stretch and the claim
    differ in a negation ("..., but I knew I couldn't give up"). None where the sentence has no such
    stretch: two or three words in common are no restatement by chance alone."""
    ours = [word for word, _, _ in claim.words]
    plain = [word for word in ours if word not in NEGATION_WORDS]
    if len(plain) < _MIN_RUN:
        return None
    read = [word for word, _, _ in words(passage.text)]
    theirs = [(at, word) for at, word in enumerate(read) if word not in NEGATION_WORDS]
    keys = [word for _, word in theirs]
    said = [word for word in ours if word in NEGATION_WORDS]
    changes = []
    for at in range(len(keys) - len(plain) + 1):
        if keys[at:at + len(plain)] != plain:
            continue
        instead = [word for word in read[theirs[at][0]:theirs[at + len(plain) - 1][0]] if word in NEGATION_WORDS]
        if len(instead) == len(said):
            return _Diff(tokens, True, None)
        changes.append((" ".join(said) or "no negation", " ".join(instead) or "nothing"))
    return _Diff(tokens, False, changes[0]) if changes else None


def _restates(ours: list[_Token], found: list[bool]) -> bool:
    """Whether the sentence has enough of the claim's words to restate it: counted word by word, or with
    each name written as several words counted once (a swapped name of three words in a claim of five
    leaves two of five words, and two of three)."""
    if sum(found) >= _RESTATES * len(ours):
        return True
    weights = _weights(ours)
    return sum(weight for weight, here in zip(weights, found, strict=True) if here) >= _RESTATES * sum(weights)


def _weights(tokens: list[_Token]) -> list[float]:
    """Each token's share of one word: 1, or 1/k for each of a name written as k words ("Arctic Rescue
    Service"); names apart ("Leeds, the Pennines") count one each."""
    weights: list[float] = []
    start = 0
    while start < len(tokens):
        end = start + 1
        while _is_name(tokens[start]) and end < len(tokens) and _is_name(tokens[end]) and tokens[end].joined:
            end += 1
        weights.extend([1 / (end - start)] * (end - start))
        start = end
    return weights


def _is_name(token: _Token) -> bool:
    return token.named and not token.key[:1].isdigit()


def _negations_reach_alike(ours: list[_Token], blocks: Sequence[tuple[int, int, int]]) -> bool:
    """Whether each negation of the claim that the sentence matches reaches the same words there: a matched
    stretch that ends on a negation the claim goes on from means the sentence negates other words first
    ("there are not real dogs" / "Who doesn't want to see two real dogs")."""
    return not any(ours[a + size - 1].key == _NEGATION and a + size < len(ours) for a, _, size in blocks)


def _said_by(claim: ClaimView, passage: Passage, values: Sequence[tuple[int, int, int]],
             theirs_values: Sequence[tuple[int, int, int]]) -> _Diff | None:
    """Where the claim and the sentence are both lines said by someone ("Client: ..."): a change when the
    claim's line is the sentence's said by another, a restatement when it is the same line by the same
    speaker; else None, and the words are compared as any others."""
    ours_by, theirs_by = _SPEAKER.match(claim.text), _SPEAKER.match(passage.text)
    if ours_by is None or theirs_by is None:
        return None
    ours = _tokens(claim.text, [word for word in claim.words if word[1] >= ours_by.end()], values)
    theirs = _tokens(passage.text, [word for word in words(passage.text) if word[1] >= theirs_by.end()],
                     theirs_values)
    keys, their_keys = [token.key for token in ours], [token.key for token in theirs]
    if not keys:
        return None
    if _speaker(ours_by[1]) == _speaker(theirs_by[1]):
        # The same line by the same speaker, however short, is no change; any other is compared word by word.
        return _Diff(len(keys), True, None) if keys == their_keys else None
    blocks = [block for block in SequenceMatcher(None, keys, their_keys, autojunk=False).get_matching_blocks()
              if block.size]
    if sum(block.size for block in blocks) < len(keys) or not _negations_reach_alike(ours, blocks):
        return None
    return _Diff(len(keys), False, (ours_by[1], theirs_by[1]))


def _speaker(label: str) -> tuple[str, ...]:
    return tuple(stem(word) for word in label.lower().split())


_Opcode = tuple[str, int, int, int, int]

_CONJUNCT_GAP = re.compile(r"\s*(?:,\s*)?(?:and|or|&|as well as)?\s*", re.IGNORECASE)
"""What joins a name to the name before it in a coordination: "Jane and Elle", "Jane, Elle", "Jane & Elle"."""


def _without_conjunct(op: _Opcode, ours: list[_Token], claim_text: str) -> _Opcode:
    """An edit that opens with a name the claim coordinates with the name just before it, the name left out:
    "Jane and Elle are women's magazines" against "Jane is an American women's magazine" adds a conjunct,
    which says nothing in the place of "American"; whether the sources say it of Elle too is what the other
    checks and the scorer read. A name put for a name is a swap still: "Elle is ..." for "Jane is ..."."""
    kind, i1, i2, j1, j2 = op
    if kind not in ("replace", "insert") or i1 == 0 or not _is_name(ours[i1]):
        return op
    before = ours[i1 - 1]
    if not (_is_name(before) or before.start == 0 and before.surface[:1].isupper()):
        return op  # (the name a claim opens with is capitalised as any first word is: not `named`)
    gap = claim_text[before.start + len(before.surface):ours[i1].start]
    if not gap.strip() or not _CONJUNCT_GAP.fullmatch(gap):
        return op  # "Jane Elle" is one name, and a name said apart from the one before is no conjunct
    end = i1
    while end < i2 and _is_name(ours[end]):
        end += 1
    return kind, end, i2, j1, j2


def _edge(op: _Opcode, first: int, theirs: list[_Token]) -> _Opcode | None:
    """An edit that ends where the restated stretch begins, cut to the sentence's words just before it:
    the name the claim opens with in place of the sentence's ("Rob Jenkins (born 1975) is" / "Peter
    Spierig (born 1975) is"), or a negation the claim drops just before its first word ("is not a
    problem" / "is a problem"). What the sentence says further back the claim may leave out."""
    kind, i1, i2, _, j2 = op
    if kind == "replace":
        return kind, i1, i2, max(op[3], j2 - _SWAP), j2
    # Nothing of the claim in its place: only a negation right before the stretch changes what it says.
    return (kind, i1, i2, j2 - 1, j2) if theirs[first - 1].key == _NEGATION else None


def _tail(op: _Opcode, last: int, theirs: list[_Token]) -> _Opcode:
    """An edit that goes on past the restated stretch, cut to the sentence's words just after it: the name
    there, or a few words where none is ("... directed by Polar Sound" / "... directed by Maria Lopez and
    stars an ensemble cast featuring ..."). What the sentence says further on the claim may leave out."""
    kind, i1, i2, j1, j2 = op
    if j2 <= last:
        return op
    end = j1 + 1 if _is_name(theirs[j1]) else min(j2, j1 + _SWAP)
    while end < min(j2, j1 + _NAME) and _is_name(theirs[end - 1]) and _is_name(theirs[end]) and theirs[end].joined:
        end += 1
    return kind, i1, i2, j1, end


def _first_change(ours: list[_Token], theirs: list[_Token], opcodes: Sequence[_Opcode],
                  last: int, text: str) -> tuple[str, str] | None:
    """(what the claim says, what the sentence says there) for the first change that matters, or None."""
    added = Counter(ours[i].key for op in opcodes for i in range(op[1], op[2]))
    dropped = Counter(theirs[j].key for op in opcodes for j in range(op[3], op[4]))
    moved = added & dropped  # a phrase moved is on both sides of the diff
    everywhere = {token.key for token in theirs}
    said_times, stated_times = Counter(token.key for token in ours), Counter(token.key for token in theirs)
    for kind, i1, i2, j1, j2 in opcodes:
        said = [ours[i] for i in range(i1, i2) if not moved[ours[i].key]]
        instead = [theirs[j] for j in range(j1, j2) if not moved[theirs[j].key]]
        names = kind == "replace" and all(map(_is_name, said + instead)) and max(len(said), len(instead)) <= _NAME
        if (len(said) > _SWAP or len(instead) > _SWAP) and not names:
            continue  # a longer stretch is the claim saying other things, which is the scorer's to weigh
        there = " ".join(token.surface for token in instead) or "nothing"
        if kind == "replace" and _same_denial(said, instead):
            continue
        if any(token.key == _NEGATION for token in said + instead) and j2 <= last:
            return (" ".join(token.surface for token in said) or "no negation", there)
        # A substitution is a name for a name or a number for a number the sentence does not say at all.
        # A stated value is new where the claim says it more often than the sentence, in place of another
        # number: "between 2021 and 2021" says the sentence's 2021 where it says 2018.
        numbers = {_digits(token.surface) for token in instead}
        new = {_sort(token) for token in said
               if (said_times[token.key] > stated_times[token.key] and _digits(token.surface) not in numbers
                   if _is_value(token) else token.named and token.key not in everywhere)}
        if kind == "replace" and new & {_sort(token) for token in instead if token.named}:
            return " ".join(token.surface for token in said), there
        if kind == "replace" and _negated_by_prefix(said, instead, everywhere):
            return said[0].surface, there
        skipped = text[theirs[j1].start:theirs[j2].start] if kind == "insert" and j2 < last else ""
        if skipped and instead and _skips_into_another_clause(ours, i1, instead, skipped, theirs[j1].start):
            return ours[i1].surface, instead[0].surface
    return None


def _skips_into_another_clause(ours: list[_Token], at: int, skipped: list[_Token], skipped_text: str,
                               skipped_from: int) -> bool:
    """Whether the claim leaves out, inside the restated stretch, the end of one clause and the start of
    the next, and goes on with the next one's words: "The company was founded in Paris" restates "The
    company was founded in Berlin and moved to Paris" without "Berlin and moved to", and "The landlord
    pays for electricity" restates "The landlord pays for water and the tenant pays for electricity"
    without "water and the tenant pays for". What ends at the "and" is a whole conjunct left out ("The
    company moved to Paris", "offices in London, Paris and Berlin" / "offices in Berlin"); words left out
    with no clause joined are a modifier ("the premium for our Standard plan" / "the premium")."""
    breaks = list(CLAUSE_JOIN.finditer(skipped_text))
    if at >= len(ours) or not breaks:
        return False
    cut = skipped_from + breaks[-1].end()
    joined = [token for token in skipped if token.start >= cut and token.key != _NEGATION]
    if not joined:
        return False
    # The next clause says again a word the claim takes from the first ("pays"), or the claim puts the next
    # clause's name where the first has one ("in Paris" for "in Berlin"). An adverb alone is no new clause:
    # "born in Warsaw and later worked in Paris" / "worked in Paris".
    said = {token.key for token in ours}
    return any(token.key in said for token in joined) or (
        _is_name(ours[at]) and any(_is_name(token) for token in skipped if token.start < cut))


def _negated_by_prefix(said: list[_Token], instead: list[_Token], everywhere: set[str]) -> bool:
    """A word put for its negation inside the restated stretch, the claim's word nowhere in the sentence:
    "Support is available on public holidays" for "Support is unavailable on public holidays". Other
    words put for words are paraphrase as often as change ("plunged" for "fell"): the scorer's to weigh."""
    if len(said) != 1 or len(instead) != 1 or said[0].key in everywhere or said[0].named or instead[0].named:
        return False
    return _negates(instead[0], said[0]) or _negates(said[0], instead[0])


def _same_denial(said: list[_Token], instead: list[_Token]) -> bool:
    """A "not" and a word on one side, that word negated by a prefix on the other: "not available" for
    "unavailable", "not refundable" for "non-refundable"."""
    for one, other in ((said, instead), (instead, said)):
        if len(one) == 2 and len(other) == 1 and one[0].key == _NEGATION and _negates(other[0], one[1]):
            return True
    return False


def _negates(prefixed: _Token, word: _Token) -> bool:
    """Whether `prefixed` is `word` negated by a prefix ("unavailable", "non-refundable" / "available")."""
    base = prefix_negated(prefixed.surface.lower().replace("-", ""))
    return base is not None and stem(base) == word.key


def _sort(token: _Token) -> str:
    return "number" if token.key[:1].isdigit() or _is_value(token) else "name"


def _digits(text: str) -> str:
    return "".join(character for character in text if character.isdigit())


def _is_value(token: _Token) -> bool:
    return token.key.startswith(_VALUE)


@lru_cache(maxsize=8192)
def _sentence_tokens(text: str) -> list[_Token]:
    """A sentence's tokens where it states none of the claim's values: read once per sentence."""
    return _tokens(text, words(text), [])


def _tokens(text: str, read: Sequence[tuple[str, int, int]], values: Sequence[tuple[int, int, int]]) -> list[_Token]:
    """The words that carry content, and negations, keyed to compare alike; each stated value (start, end,
    key) is one token."""
    tokens: list[_Token] = []
    last = 0  # where the last token ends
    non: int | None = None  # where a "non-" just read starts
    for index, (word, start, end) in enumerate(read):
        value = next(((low, high, key) for low, high, key in values if low <= start < high), None) if values else None
        if value is not None:
            key = f"{_VALUE}{value[2]}>"
            if last != value[1]:  # a value's first word: the value's other words are the same token
                tokens.append(_Token(key, text[value[0]:value[1]], False, start=value[0]))
            last = value[1]
        elif word == _NON and text[end:end + 1] == "-":
            if text[end + 1:end + 2].islower():
                non = start  # read with the word after the hyphen, as one word: "non-refundable"
                continue
            tokens.append(_Token(_NON, text[start:end], False, start=start))  # "non-GAAP" names a measure
            last = end
        elif is_negating(word):
            tokens.append(_Token(_NEGATION, text[start:end], False, start=start))
            last = end
        elif (word not in STOP_WORDS and len(word) > 1) or word[:1].isdigit():
            number = WORD_NUMBERS.get(word)
            named = word[:1].isdigit() or (text[start].isupper() and not _opens_line(text, index, start))
            joined = bool(tokens) and text[last:start].isspace()
            if named and joined and not word[:1].isdigit() and _opens_name(tokens[-1]):
                # The capital that opens a line opens a name where a name goes on from it ("Blank Slate
                # among others."): the line's first word is read as a name then, not as a word.
                tokens[-1] = replace(tokens[-1], named=True)
            key = str(number) if number is not None else stem(word)
            if non is not None and non + len(_NON) + 1 == start:
                key, start = _NON + key, non
            tokens.append(_Token(key, text[start:end], named, joined, start))
            last = end
        non = None
    return tokens


def _opens_name(token: _Token) -> bool:
    return not token.named and token.surface[:1].isupper() and token.key not in (_NEGATION,) and not _is_value(token)


def _opens_line(text: str, index: int, start: int) -> bool:
    """Whether the word at `start` opens a line: a capital after a colon or a quote ("Ann: Darling, ...")
    opens one rather than names. The character before it is found by stepping back over spaces, not by
    copying the text before every capitalised word."""
    if index == 0:
        return True
    before = start
    while before > 0 and text[before - 1].isspace():
        before -= 1
    # Nothing but spaces before it opens the text, as the first word does.
    return before == 0 or text[before - 1] in ":;\"“(["

