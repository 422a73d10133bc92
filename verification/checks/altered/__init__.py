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

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from verification.checks.altered.denials import (
    denial_dropped_at_end,
    denial_moved,
    denies_an_earlier_predicate,
    negated_by_prefix,
    negations_reach_alike,
    same_denial,
)
from verification.checks.altered.names import (
    last_name,
    name_for_name,
    name_put,
    opens_with_another_name,
    skips_into_another_clause,
    unread_name,
    without_conjunct,
)
from verification.checks.altered.tokens import (
    NEGATION,
    Opcode,
    Token,
    digits,
    is_name,
    is_value,
    read_tokens,
    same_gap,
    sentence_tokens,
    sort_of,
)
from verification.checks.altered.values import value_put_for_another
from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.commitments import VALUE_KINDS
from verification.claims.polar import AUXILIARIES
from verification.claims.speaker import SPEAKER, said_words, speaker
from verification.claims.tokens import NEGATION_WORDS, answering, spelled_out, words
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


class Altered(Check):
    """Never SUPPORTED: the claim restates a sentence but changes a name, a number or its polarity."""

    name = "altered"
    version = 20
    role = Role.RESEMBLANCE

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        return altered(claim, evidence)


def altered(claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
    """The change against the retrieved sentence the claim restates most closely, or None: a claim that
    restates one sentence with a change and another word for word is the other's."""
    # The claim's tokens for each set of its values a sentence states (most sentences state none): read
    # once for all the retrieved sentences, not again for each.
    claim_tokens: dict[tuple[tuple[int, int, int], ...], list[Token]] = {}
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
          claim_tokens: dict[tuple[tuple[int, int, int], ...], list[Token]]) -> _Diff | None:
    """How the claim differs from a sentence it restates; None when it does not restate it. `claim_tokens`:
    the claim's tokens read so far, by the values stated."""
    spans, theirs_values = _stated(claim, evidence, passage)
    ours = claim_tokens.get(spans)
    if ours is None:
        ours = claim_tokens[spans] = read_tokens(claim.text, claim.words, spans)
    said_by = _said_by(claim, passage, spans, theirs_values)
    if said_by is not None:
        return said_by
    if len(ours) < _MIN_WORDS:
        return _across_clauses(ours, passage) or _word_for_word(claim, passage, len(ours))
    # Most retrieved sentences share too few of the claim's words to restate it: ruled out before the diff.
    stems = passage.stem_set  # the index's stems of the sentence: numbers spelled out aside, the diff's keys
    if not _restates(ours, [token.key in stems or token.key[:1] in "<0123456789" for token in ours]):
        # A name of several words put for another leaves few words that carry content to restate by ("It was
        # published by Charles Fort"): the claim may still say the sentence's stretch word for word but that name.
        return _one_name_put(claim, passage, len(ours))
    theirs = (read_tokens(passage.text, words(passage.text), theirs_values) if theirs_values
              else sentence_tokens(passage.text))
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
    cut = [_edge(op, first, theirs, passage.text) if op[3] < first else _tail(op, last, theirs)
           for op in matcher.get_opcodes() if op[0] != "equal" and (first <= op[3] or op[4] == first)
           and (op[4] <= last or op[0] == "replace" and op[3] <= last)]
    whole = matched == len(ours) and negations_reach_alike(ours, blocks)
    denied = denial_moved(ours, theirs, blocks, passage.text) or denial_dropped_at_end(
        ours, theirs, blocks, claim.text, passage.text)
    if denied is not None:
        return _Diff(matched, False, denied)
    opcodes = [without_conjunct(op, ours, claim.text, theirs, passage.text) for op in cut if op]
    return _Diff(matched, whole, _first_change(ours, theirs, opcodes, last, passage.text, claim.text))


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


def _across_clauses(ours: list[Token], passage: Passage) -> _Diff | None:
    """A claim of two words that carry content apart, a name among them, that the sentence says in two
    clauses with another name between: "Alice is the CTO" against "Alice is the CFO and Bob is the CTO"
    (`_skips_into_another_clause`). Two words in one sentence are too few to restate it otherwise."""
    if len(ours) != 2 or not any(map(is_name, ours)) or ours[1].joined:
        return None  # two words written together are one name ("Target Corporation"), said as one
    theirs = sentence_tokens(passage.text)
    keys = [token.key for token in theirs]
    if ours[0].key not in keys or ours[1].key not in keys:
        return None
    first, second = keys.index(ours[0].key), keys.index(ours[1].key)
    skipped = theirs[first + 1:second]
    if not skipped or second < first:
        return None
    text = passage.text[skipped[0].start:theirs[second].start]
    if not skips_into_another_clause(ours, 1, skipped, text, skipped[0].start):
        return None
    return _Diff(2, False, (ours[1].surface, skipped[0].surface))


def _word_for_word(claim: ClaimView, passage: Passage, tokens: int) -> _Diff | None:
    """A claim too short for the diff ("I knew I could give up") against a sentence that says all its
    words, stop words too, in one stretch: a restatement, or a change where the stretch and the claim
    differ in a negation ("..., but I knew I couldn't give up"). None where the sentence has no such
    stretch: two or three words in common are no restatement by chance alone."""
    # "cannot" is "can" and "not": "It cannot be a blur" is "It can be a blur" with a negation put in. The
    # change is told in the words as written ("n't").
    ours = spelled_out(claim.words)
    plain = [word for word, _, _ in ours if word not in NEGATION_WORDS]
    if len(plain) < _MIN_RUN:
        return None
    read = spelled_out(words(passage.text))
    theirs = [(at, word) for at, (word, _, _) in enumerate(read) if word not in NEGATION_WORDS]
    keys = [word for _, word in theirs]
    said = [claim.text[start:end] for word, start, end in ours if word in NEGATION_WORDS]
    changes = []
    for at in range(len(keys) - len(plain) + 1):
        if keys[at:at + len(plain)] != plain:
            continue
        # A negation just after a last word that is an auxiliary is that word's: "if they do" against "if
        # they don't" drops it, as a negation inside the stretch would.
        end = theirs[at + len(plain) - 1][0]
        if plain[-1] in AUXILIARIES:
            while end + 1 < len(read) and read[end + 1][0] in NEGATION_WORDS:
                end += 1
        instead = [passage.text[start:stop] for word, start, stop in read[theirs[at][0]:end + 1]
                   if word in NEGATION_WORDS]
        if len(instead) == len(said):
            return _Diff(tokens, True, None)
        changes.append((" ".join(said) or "no negation", " ".join(instead) or "nothing"))
    return _Diff(tokens, False, changes[0]) if changes else _one_name_put(claim, passage, tokens)


def _one_name_put(claim: ClaimView, passage: Passage, tokens: int) -> _Diff | None:
    """A short claim that says a sentence's stretch word for word but a name put for the sentence's name
    there (`names.name_put`): "My name is Money" for "My name is Mike"."""
    if len(claim.words) < _MIN_RUN:
        return None
    put = name_put(claim.text, list(claim.words), passage.text, words(passage.text), _MIN_RUN - 1)
    return None if put is None else _Diff(tokens, False, put)


def _restates(ours: list[Token], found: list[bool]) -> bool:
    """Whether the sentence has enough of the claim's words to restate it: counted word by word, or with
    each name written as several words counted once (a swapped name of three words in a claim of five
    leaves two of five words, and two of three)."""
    if sum(found) >= _RESTATES * len(ours):
        return True
    weights = _weights(ours)
    return sum(weight for weight, here in zip(weights, found, strict=True) if here) >= _RESTATES * sum(weights)


def _weights(tokens: list[Token]) -> list[float]:
    """Each token's share of one word: 1, or 1/k for each of a name written as k words ("Arctic Rescue
    Service"); names apart ("Leeds, the Pennines") count one each."""
    weights: list[float] = []
    start = 0
    while start < len(tokens):
        end = start + 1
        while is_name(tokens[start]) and end < len(tokens) and is_name(tokens[end]) and tokens[end].joined:
            end += 1
        weights.extend([1 / (end - start)] * (end - start))
        start = end
    return weights


def _said_by(claim: ClaimView, passage: Passage, values: Sequence[tuple[int, int, int]],
             theirs_values: Sequence[tuple[int, int, int]]) -> _Diff | None:
    """Where the claim and the sentence are both lines said by someone ("Client: ..."): a change when the
    claim's line is the sentence's said by another, a restatement when it is the same line by the same
    speaker; else None, and the words are compared as any others."""
    ours_by, theirs_by = SPEAKER.match(claim.text), SPEAKER.match(passage.text)
    if ours_by is None or theirs_by is None:
        return None
    ours_said, theirs_said = said_words(ours_by, claim.text, claim.words), said_words(theirs_by, passage.text)
    ours = read_tokens(claim.text, ours_said, values)
    theirs = read_tokens(passage.text, theirs_said,
                     theirs_values)
    keys, their_keys = [token.key for token in ours], [token.key for token in theirs]
    same = speaker(ours_by[1]) == speaker(theirs_by[1])
    if len(keys) <= 1:
        # A line that says next to nothing of its own ("and this one does ."): the same words, every one, or
        # another line, however many of its few words the other says ("this is the wrong one .").
        said, stated = [word for word, _, _ in ours_said], [word for word, _, _ in theirs_said]
        if said and said == stated[:len(said)] and len(stated) > len(said):
            return None  # the line goes on past the claim's words ("and this one does not ."): the diff reads on
        if not said or said != stated:
            return _Diff(0, False, None)
        return _Diff(len(said), same, None if same else (ours_by[1], theirs_by[1]))
    if same:
        # The same line by the same speaker, however short, is no change; any other is compared word by word.
        return _Diff(len(keys), True, None) if keys == their_keys else None
    blocks = [block for block in SequenceMatcher(None, keys, their_keys, autojunk=False).get_matching_blocks()
              if block.size]
    if sum(block.size for block in blocks) < len(keys) or not negations_reach_alike(ours, blocks):
        return None
    return _Diff(len(keys), False, (ours_by[1], theirs_by[1]))



def _edge(op: Opcode, first: int, theirs: list[Token], text: str = "") -> Opcode | None:
    """An edit that ends where the restated stretch begins, cut to the sentence's words just before it:
    the name the claim opens with in place of the sentence's ("Rob Jenkins (born 1975) is" / "Peter
    Spierig (born 1975) is"), or a negation the claim drops just before its first word ("is not a
    problem" / "is a problem"). What the sentence says further back the claim may leave out."""
    kind, i1, i2, _, j2 = op
    if kind == "replace":
        return kind, i1, i2, max(op[3], j2 - _SWAP), j2
    # Nothing of the claim in its place: only a negation right before the stretch changes what it says, and
    # not a "No," that answers before it ("No, they are not getting back together").
    before = theirs[first - 1]
    answers = before.surface.lower() == "no" and answering(text, before.start)
    return (kind, i1, i2, j2 - 1, j2) if before.key == NEGATION and not answers else None


def _tail(op: Opcode, last: int, theirs: list[Token]) -> Opcode:
    """An edit that goes on past the restated stretch, cut to the sentence's words just after it: the name
    there, or a few words where none is ("... directed by Polar Sound" / "... directed by Maria Lopez and
    stars an ensemble cast featuring ..."). What the sentence says further on the claim may leave out."""
    kind, i1, i2, j1, j2 = op
    if j2 <= last:
        return op
    end = j1 + 1 if is_name(theirs[j1]) else min(j2, j1 + _SWAP)
    while end < min(j2, j1 + _NAME) and is_name(theirs[end - 1]) and is_name(theirs[end]) and theirs[end].joined:
        end += 1
    return kind, i1, i2, j1, end


def _first_change(ours: list[Token], theirs: list[Token], opcodes: Sequence[Opcode],
                  last: int, text: str, claim: str = "") -> tuple[str, str] | None:
    """(what the claim says, what the sentence says there) for the first change that matters, or None."""
    added = Counter(ours[i].key for op in opcodes for i in range(op[1], op[2]))
    dropped = Counter(theirs[j].key for op in opcodes for j in range(op[3], op[4]))
    moved = added & dropped  # a phrase moved is on both sides of the diff
    everywhere = {token.key for token in theirs}
    # A name is new where the sentence names nothing so: its "maintenance solutions" does not name the
    # "Maintenance" put for "AquaSonic".
    named_there = {token.key for token in theirs if token.named}
    said_times, stated_times = Counter(token.key for token in ours), Counter(token.key for token in theirs)
    for kind, i1, i2, j1, j2 in opcodes:
        said = [ours[i] for i in range(i1, i2) if not moved[ours[i].key]]
        instead = [theirs[j] for j in range(j1, j2) if not moved[theirs[j].key]]
        names = kind == "replace" and all(map(is_name, said + instead)) and max(len(said), len(instead)) <= _NAME
        if (len(said) > _SWAP or len(instead) > _SWAP) and not names:
            continue  # a longer stretch is the claim saying other things, which is the scorer's to weigh
        there = " ".join(token.surface for token in instead) or "nothing"
        if kind == "replace" and same_denial(said, instead):
            continue
        if any(token.key == NEGATION for token in said + instead) and j2 <= last:
            if not said and denies_an_earlier_predicate(instead, theirs, j2, text):
                continue
            return (" ".join(token.surface for token in said) or "no negation", there)
        # A substitution is a name for a name or a number for a number the sentence does not say at all.
        # A stated value is new where the claim says it more often than the sentence, in place of another
        # number: "between 2021 and 2021" says the sentence's 2021 where it says 2018.
        numbers = {digits(token.surface) for token in instead}
        new = {sort_of(token) for token in said
               if (said_times[token.key] > stated_times[token.key] and digits(token.surface) not in numbers
                   if is_value(token) else token.named and token.key not in named_there)}
        if kind == "replace" and new & {sort_of(token) for token in instead if token.named}:
            return " ".join(token.surface for token in said), there
        if kind == "replace" and opens_with_another_name(said, theirs[:j2], everywhere,
                                                         same_gap(ours, i2, claim, theirs, j2, text)):
            # Mid-line, the name just before the words the claim goes on with is what its opening replaces.
            return " ".join(token.surface for token in said), last_name(instead) or there
        if kind == "replace" and len(said) <= _NAME and name_for_name(said, instead, ours, theirs, (j1, j2)):
            return " ".join(token.surface for token in said), there
        unread = unread_name(theirs, j1, text) if kind == "delete" and "name" in new else None
        if unread is not None:
            return " ".join(token.surface for token in said), unread
        if kind == "replace" and negated_by_prefix(said, instead, everywhere):
            return said[0].surface, there
        skipped = text[theirs[j1].start:theirs[j2].start] if kind == "insert" and j2 < last else ""
        if skipped and instead and skips_into_another_clause(ours, i1, instead, skipped, theirs[j1].start):
            return ours[i1].surface, instead[0].surface
    return value_put_for_another(ours, theirs, opcodes, said_times)
