"""The claim view: one claim read once, for every later stage to read.

Retrieval, the checks, the features and the decider all read the same view of a claim: its words with
their offsets, its content stems, what it negates, the names and values it commits to, its relations
and the question it answers. The view is built once per claim (`read_claim`), frozen, and passed down;
a stage asks the view rather than tokenising the claim's text again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from verification.claims.antonyms import opposites_of
from verification.claims.clauses import Token, clause_tokens
from verification.claims.commitments import VALUE_KINDS, Mention, find_mentions, find_relations
from verification.claims.commitments.localized import find_localized_values
from verification.claims.commitments.names import subject_names
from verification.claims.language import ENGLISH
from verification.claims.segmentation import keys, stem_of
from verification.claims.segmentation import words as words_in
from verification.claims.tokens import STOP_WORDS, content_stems, negated_stems, stem, words


@dataclass(frozen=True, eq=False)
class ClaimView:
    """A claim as every stage of the offline verifier reads it."""

    text: str
    """The claim as written."""
    context: str
    """The question the claim answers on its own (`ExtractedClaim.context`); only the scorer reads it."""
    language: str
    """The language the claim is read in (an ISO 639-1 code)."""
    words: tuple[tuple[str, int, int], ...]
    """Every word with its offsets in `text`."""
    word_stems: tuple[tuple[str, str], ...]
    """Every word with its stem, in order, stop words included (what the opposite-word check compares)."""
    opposite_stems: frozenset[str]
    """The stems that reverse one of its words ("fall" for "rose"): a sentence with none of them flips none."""
    stems: tuple[str, ...]
    """The content stems in order, repeats kept (bigrams read them in order)."""
    unique_stems: tuple[str, ...]
    """The content stems, each once, in order."""
    negated_stems: frozenset[str]
    """The stems a negation in the claim reaches."""
    name_stems: frozenset[str]
    """Stems of the words that name something: capitalised past the first word, or numeric."""
    mentions: tuple[Mention, ...]
    """Everything the claim commits to: values with units, dates, durations, names and relations."""
    relations: tuple[Mention, ...]
    """Who did what to whom, with the order of its arguments."""
    clause_tokens: tuple[Token, ...]
    """The words with their matching keys and clause numbers, as the grounding checks read them."""
    value_stems: frozenset[str]
    """The stems of the words inside the claim's typed values ("week" of "4 weeks")."""
    duration_stems: frozenset[str]
    """The stems of the words inside its durations ("months" of "18 months")."""
    entity_stems: frozenset[str]
    """The stems of the words of the names it commits to."""
    subject_names: tuple[tuple[tuple[str, str], ...], tuple[tuple[str, ...], ...]]
    """Each name with the stem of the word after it ("basic", "plan"), and the words of each name."""

    @property
    def stem_set(self) -> frozenset[str]:
        """The content stems as a set."""
        return frozenset(self.unique_stems)

    @cached_property
    def content_keys(self) -> tuple[str, ...]:
        """The matching keys of its content words (`clause_tokens`): what a sentence must say to restate it."""
        return tuple(token.key for token in self.clause_tokens if token.content)

    @cached_property
    def opening_stem(self) -> str | None:
        """The stem of the word the claim opens with where that word may be a name: capitalised and carrying
        content ("Vogue is ...", a bare "Portugal"). `name_stems` leaves it out: every sentence opens with a
        capital, so it may as well be "Refunds" or "Later,"."""
        if self.language != ENGLISH or not self.words:
            return None
        word, start, end = self.words[0]
        if not _capitalised_content(self.text, word, start):
            return None
        # A word set apart by a comma opens the sentence without being what it is about ("Later, ...").
        return None if self.text[end:].lstrip().startswith(",") else stem(word)


def read_claim(text: str, context: str = "", language: str = ENGLISH) -> ClaimView:
    """The claim read once into its view, in its language (`language.detect`)."""
    if language != ENGLISH:
        return _read_other(text, context, language)
    tokens = tuple(words(text))
    word_stems = tuple((word, stem(word)) for word, _, _ in tokens)
    stems = tuple(content_stems(text))
    mentions = tuple(find_mentions(text))
    return ClaimView(
        text=text,
        context=context,
        language=language,
        words=tokens,
        word_stems=word_stems,
        opposite_stems=opposites_of(key for _, key in word_stems),
        stems=stems,
        unique_stems=tuple(dict.fromkeys(stems)),
        negated_stems=negated_stems(text),
        name_stems=_name_stems(text, tokens),
        mentions=mentions,
        relations=tuple(find_relations(text)),
        clause_tokens=clause_tokens(text),
        value_stems=_stems_of(mention for mention in mentions if mention.kind in VALUE_KINDS),
        duration_stems=_stems_of(mention for mention in mentions if mention.kind == "duration"),
        entity_stems=_stems_of(mention for mention in mentions if mention.kind == "entity"),
        subject_names=subject_names(text),
    )


def _read_other(text: str, context: str, language: str) -> ClaimView:
    """A claim in a language other than English: its words and keys as ICU segments them, its values as
    `localized` reads them; what only the English checks read (relations, names, clauses) is left empty."""
    tokens = tuple(words_in(text, language))
    stems = tuple(keys(text, language))
    mentions = tuple(find_localized_values(text, language))
    return ClaimView(
        text=text, context=context, language=language, words=tokens,
        word_stems=tuple((word, stem_of(word, language)) for word, _, _ in tokens), opposite_stems=frozenset(),
        stems=stems, unique_stems=tuple(dict.fromkeys(stems)), negated_stems=frozenset(), name_stems=frozenset(),
        mentions=mentions, relations=(), clause_tokens=(),
        value_stems=frozenset(key for mention in mentions for key in keys(mention.text, language)),
        duration_stems=frozenset(), entity_stems=frozenset(), subject_names=((), ()),
    )


def _stems_of(mentions: Iterable[Mention]) -> frozenset[str]:
    return frozenset(word for mention in mentions for word in content_stems(mention.text))


def _name_stems(text: str, tokens: tuple[tuple[str, int, int], ...]) -> frozenset[str]:
    return frozenset(
        stem(word) for word, start, _ in tokens
        if word[:1].isdigit() or (start > 0 and _capitalised_content(text, word, start))
    )


def _capitalised_content(text: str, word: str, start: int) -> bool:
    """Whether the word at `start` is written with a capital and may name something: not a function word, not
    a lone initial ("J." in "Michael J. Fox"), not a number."""
    return text[start].isupper() and word not in STOP_WORDS and len(word) > 1 and not word[:1].isdigit()
