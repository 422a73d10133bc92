"""Proof in the languages read by rules only: the claim's words, every one, in order in one cited sentence
(or two adjacent ones of a source), with nothing left out that changes what the sentence says.

"キリンが木の中から首を出しています" proves "キリンが首を出しています": the words left out ("木の中から")
only narrow where. Left out, a negation ("ない", "不", "nicht") or a value would change what is claimed, so
the clause the claim is found in may leave out neither; a condition, a limit or an attribution ("如果",
"場合", "nur", "によると") left out anywhere in the sentence forbids the proof. Words are ICU's, folded and,
in German, stemmed (`segmentation.py`); particles count, so "猫が犬を" is not found in "犬が猫を".
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.language import READ, SCORED
from verification.claims.segmentation import STOP_WORDS, stem_of, words
from verification.claims.view import ClaimView
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage
from verification.types import AlignedWord, State

_NEGATIONS = {
    "zh": frozenset("不 没 没有 未 无 非 别 勿 否 不是 不会 不能 不可 无法".split()),
    "ja": frozenset("ない なかっ なく ず ぬ ませ ん 無い 無し 無 非 未 不".split()),
    "de": frozenset("nicht kein keine keinen keinem keiner keines nie niemals ohne nichts weder".split()),
}
# Conditions, limits, quantity restrictions and attributions: left out, the rest is claimed too widely.
_QUALIFIERS = {
    "zh": frozenset("如果 若 除非 只要 只有 仅 只 才 以内 之内 以上 以下 之前 之后 据 据说 可能 也许 大概 "
                    "或许 估计 除了 一般 通常 有时".split()),
    "ja": frozenset("場合 なら れ ば たら 限り のみ だけ しか 以内 以上 以下 まで によると によれば そう らしい "
                    "かも 可能 たぶん おそらく 時々 除".split()),
    "de": frozenset("wenn falls sofern außer nur bis ausschließlich mindestens höchstens laut zufolge angeblich "
                    "vielleicht möglicherweise wahrscheinlich meist manchmal".split()),
}
_CLAUSE_ENDS = frozenset("，,；;：:、。！？!?")
_MIN_WORDS = 2
_TRAILING = "。．.！!？?"


class Verbatim(Check):
    name = "verbatim"
    version = 1
    role = Role.PROVEN
    languages = READ - SCORED

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        wanted = [key for _, key in claim.word_stems]
        if len(claim.unique_stems) < _MIN_WORDS:
            return None
        for passages in _spans(evidence):
            found = _proof(claim.text, wanted, passages, claim.language)
            if found is not None:
                aligned = [AlignedWord(word=word, source_id=source_id, start=start, end=end)
                           for (word, _, _), (source_id, start, end) in zip(claim.words, found, strict=False)
                           if word not in STOP_WORDS.get(claim.language, ())]
                cited = tuple(citations.span(passage, claim, evidence) for passage in passages)
                return CheckFinding(
                    state=State.SUPPORTED, method=PREFIX + Verbatim.name, evidence=cited, confidence=0.99,
                    rationale="Proven word for word: the cited sentence states every word of the claim, in order.",
                    extra={"alignment": aligned},
                )
        return None


def _spans(evidence: Evidence) -> list[tuple[Passage, ...]]:
    """Each retrieved sentence, then each with the sentence after it in the same source."""
    found: list[tuple[Passage, ...]] = [(hit.passage,) for hit in evidence.hits]
    for hit in evidence.hits:
        found.extend((hit.passage, after) for after in evidence.index.neighbours(hit.passage)
                     if after.source_id == hit.passage.source_id and after.position == hit.passage.position + 1)
    return found


def _proof(claim_text: str, wanted: Sequence[str], passages: Sequence[Passage],
           language: str) -> list[tuple[str, int, int]] | None:
    """Where each wanted word is stated (source id and offsets in the source), or None when they are not
    all stated in order with nothing that changes them left out."""
    text = ""
    source: list[tuple[str, int, int]] = []
    places: list[tuple[str, int, int]] = []
    for passage in passages:
        base = len(text)
        for word, start, end in words(passage.text, language):
            source.append((stem_of(word, language), base + start, base + end))
            places.append((passage.source_id, passage.start + start, passage.start + end))
        text += passage.text + " "
    keys = [key for key, _, _ in source]
    copied = _copied(claim_text, text, source, language)
    if copied is not None:
        return [places[i] for i in copied]
    for first in (i for i, key in enumerate(keys) if key == wanted[0]):
        matched = _in_order(wanted, keys, first)
        if matched is not None and _nothing_changed(text, source, matched, language):
            return [places[i] for i in matched]
    return None


def _copied(claim_text: str, text: str, source: Sequence[tuple[str, int, int]], language: str) -> list[int] | None:
    """The source words of a claim copied as one piece of the sentence, or None. A word segmenter may cut the
    same characters differently in a shorter context ("人がいます" alone, "人が4人います" in the sentence), so a
    copy is found as characters before it is looked for word by word."""
    core = claim_text.strip().rstrip(_TRAILING).strip()
    at = text.find(core) if core else -1
    if at < 0:
        return None
    end = at + len(core)
    inside = [i for i, (_, start, stop) in enumerate(source) if at <= start and stop <= end]
    if not inside or not _nothing_changed(text, source, inside, language):
        return None
    # Each claim word is aligned to the source word it lies in, as the claim cuts them.
    return [next((i for i in inside if source[i][1] <= at + start < source[i][2]), inside[0])
            for _, start, _ in words(core, language)]


def _in_order(wanted: Sequence[str], keys: Sequence[str], first: int) -> list[int] | None:
    """Positions of the wanted keys found in order from `first`, each at its earliest; None if one is missing."""
    positions = [first]
    at = first + 1
    for key in wanted[1:]:
        while at < len(keys) and keys[at] != key:
            at += 1
        if at == len(keys):
            return None
        positions.append(at)
        at += 1
    return positions


def _nothing_changed(text: str, source: Sequence[tuple[str, int, int]], matched: Sequence[int], language: str) -> bool:
    """No qualifier left out anywhere in the sentence; no negation or number left out of the clauses the
    claim was found in."""
    chosen = set(matched)
    left_out = [i for i in range(len(source)) if i not in chosen]
    if any(source[i][0] in _QUALIFIERS[language] for i in left_out):
        return False
    begin, end = _clause_of(text, source[matched[0]][1], before=True), _clause_of(text, source[matched[-1]][2])
    for i in left_out:
        key, start, _ = source[i]
        if begin <= start < end and (key in _NEGATIONS[language] or key[:1].isdigit()):
            return False
    return True


def _clause_of(text: str, offset: int, before: bool = False) -> int:
    """Where the clause around `offset` begins (`before`) or ends, at punctuation that ends a clause."""
    if before:
        while offset > 0 and text[offset - 1] not in _CLAUSE_ENDS:
            offset -= 1
        return offset
    while offset < len(text) and text[offset] not in _CLAUSE_ENDS:
        offset += 1
    return offset
