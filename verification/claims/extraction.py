"""Splitting an answer into atomic, self-contained claims with exact spans.

No sentence goes out unchecked: every sentence is a claim, or it is non-factual by one short list
(greetings, acknowledgements, thanks, sign-offs, offers of further help, questions, and lines ending in a
colon that introduce a list). Opinion, advice, imperatives, hedges and conditionals are claims like any
other: "Contact support to get a full refund at any time" promises a refund, and "I think refunds take
5 days" is the same claim as "refunds take 5 days". A sentence that only opens with a courtesy ("Thanks,
the refund takes 5 days.") keeps its assertion as a claim.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from verification.claims import language as languages
from verification.claims.commitments import find_mentions
from verification.claims.commitments.localized import find_localized_values
from verification.claims.coordination import Part, split_parts
from verification.claims.copies import copied, source_breaks, spelled
from verification.claims.polar import asserted, polar
from verification.claims.segmentation import sentence_spans
from verification.claims.sentences import split_sentences
from verification.claims.severity import classify
from verification.claims.verbs import has_verb
from verification.types import Commitment, Severity


@dataclass(frozen=True)
class ExtractedClaim:
    """One atomic assertion found in a candidate's text, before verification."""

    id: str
    """Stable id ("k1", "k2", ...) assigned in text order."""
    text: str
    """The claim; equals the candidate's text[start:end]."""
    start: int
    """Character offset in the candidate's text."""
    end: int
    """End offset (exclusive)."""
    commitments: tuple[Commitment, ...] = ()
    """What the claim commits to."""
    severity: Severity = Severity.MINOR
    """CRITICAL for money, dosage, legal, safety and policy promises."""
    checkable: bool = True
    """Whether a verifier should check it against the sources. `extract_claims` makes every claim
    checkable; False (judged NOT_VERIFIABLE without a look) is only for claims built by hand."""
    context: str = ""
    """The question, when the claim is a bare answer to it: "Delhi" (no verb) says nothing on its own, so
    the scorer reads the question beside it. Never the rest of the draft."""
    subject: str = ""
    """The subject a coordinated predicate shares with the part before it ("The museum" for "closes at 5"
    of "The museum opens at 9 and closes at 5"); never inside the claim's span."""
    language: str = languages.ENGLISH
    """The language the claim is written in (`language.detect`, of the whole answer)."""
    asserts: str = ""
    """For a bare yes or no, its question as the statement it asserts (`polar.asserted`): "you can cancel at
    any time" for "Yes." to "Can I cancel at any time?"; empty where the question is no yes-or-no one (the
    claim then has the question as its context). The statement reads on its own: it needs no context."""

    @property
    def statement(self) -> str:
        """The claim as it reads on its own, and as a verifier checks it: its subject, then its text; for a
        bare yes or no, the statement it asserts."""
        if self.asserts:
            return self.asserts
        return f"{self.subject} {self.text}" if self.subject else self.text

    @property
    def read_alone(self) -> str:
        """The claim as a model reads it on its own: its statement, and for a bare answer the question it
        answers ("Yes." asserts nothing without "Can I cancel at any time?")."""
        return f"{self.statement} (the answer to: {self.context})" if self.context else self.statement


@dataclass(frozen=True)
class LeftOut:
    """A sentence that is not a claim, with the entry of the non-factual list it matched."""

    text: str
    """The sentence; equals the candidate's text[start:end]."""
    start: int
    """Character offset in the candidate's text."""
    end: int
    """End offset (exclusive)."""
    kind: str
    """"greeting", "acknowledgement", "thanks", "sign-off", "offer of help", "question" or "list heading"."""


@dataclass(frozen=True)
class Extraction:
    """An answer split into its claims and the non-factual sentences left out of them."""

    claims: tuple[ExtractedClaim, ...]
    """Every claim, in text order."""
    left_out: tuple[LeftOut, ...]
    """Every sentence that matched the non-factual list, in text order."""


# The non-factual list. Each entry must match a whole sentence (less its closing punctuation), so a
# sentence that only starts like one ("Feel free to return it within 90 days for a full refund") stays a
# claim. Names after a greeting or sign-off are case-sensitive: a capital word is a name, a lower-case
# one starts an assertion.
_NAME = r"(?:\s*,?\s*(?-i:[A-Z][\w'’.-]*)(?:\s+(?-i:[A-Z][\w'’.-]*)){0,2})"
_GREETING = (
    r"(?:hi|hello|hey|dear|greetings|good\s+(?:morning|afternoon|evening|day))"
    rf"(?:\s+(?:there|all|everyone|team|folks))?{_NAME}?"
)
# Courtesies that take no side. "Sure!", "Absolutely!" or "Yes." on their own can answer the question
# ("Can I get a refund after 60 days?"), so they are claims: checked, and omitted when nothing grounds them.
_ACKNOWLEDGEMENT = (
    r"(?:great|perfect|okay|ok|got\s+it|no\s+problem|no\s+worries|(?:great|good)\s+question|"
    r"(?:happy|glad)\s+to\s+help|my\s+pleasure|you(?:'re|’re|\s+are)\s+welcome)"
)
_ANSWER_WORD = r"(?:yes|no|indeed|sure(?:\s+thing)?|certainly|of\s+course|absolutely|good\s+news)"
_THANKS = (
    r"(?:(?:many\s+|big\s+)?thanks|thank\s+you)(?:\s+(?:so\s+much|very\s+much|a\s+lot|again))?"
    r"(?:\s+for\s+(?:reaching\s+out|getting\s+in\s+touch|contacting\s+(?:us|me|support)|writing(?:\s+in)?|"
    r"asking|waiting|choosing\s+us|being\s+a\s+(?:loyal\s+|valued\s+)?customer|the\s+question|your\s+"
    r"(?:question|message|email|e-mail|note|patience|understanding|interest|feedback|time|inquiry|enquiry|"
    r"request|order|purchase|business|kind\s+words))(?:\s+(?:to\s+us|with\s+us|today)){0,2})?"
    rf"{_NAME}?"
)
_SIGN_OFF = (
    r"(?:(?:(?:best|kind|warm|warmest|many)\s+)?regards|sincerely|yours\s+(?:truly|sincerely|faithfully)|"
    r"cheers|best|all\s+the\s+best|best\s+wishes|take\s+care|talk\s+soon|good\s+luck|enjoy|safe\s+travels|"
    r"have\s+a\s+(?:great|good|nice|wonderful|lovely|safe|pleasant)\s+"
    r"(?:day|week|weekend|evening|one|trip|flight|journey|stay|holiday|time))"
    rf"{_NAME}?"
)
# What a reader may still want help with: "any other questions", "anything else", "further help".
_NEED = (
    r"(?:any(?:thing)?\s+(?:else|other|more|further|additional)(?:\s+(?:questions?|concerns?|help|"
    r"assistance|information))?|any\s+(?:questions?|concerns?|help|assistance|issues?|problems?|trouble)|"
    r"(?:more|further|additional|other)\s+(?:questions?|help|assistance|information|details)|"
    r"questions?|concerns?|help|assistance|anything)"
)
_IF_NEED = (
    rf"(?:if|whenever|should)\s+(?:you\s+(?:have|need|want|run\s+into)\s+{_NEED}|"
    r"there(?:'s|’s|\s+is)\s+anything\s+else(?:\s+(?:i|we)\s+can\s+(?:do|help(?:\s+you)?\s+with))?)"
)
_OFFER_HEAD = (
    r"(?:please\s+)?(?:let\s+(?:me|us)\s+know|feel\s+free\s+to\s+(?:ask|reach\s+out|get\s+in\s+touch|"
    r"contact\s+(?:me|us)|write|(?:e-?mail|message)\s+(?:me|us))|(?:do\s+not|don't|don’t)\s+hesitate\s+to\s+"
    r"(?:ask|reach\s+out|get\s+in\s+touch|contact\s+(?:me|us)))(?:\s+(?:again|anytime|any\s+time))?"
)
_OFFER = (
    rf"{_OFFER_HEAD}(?:\s*,?\s*(?:{_IF_NEED}|(?:with|for|about)\s+{_NEED}))?"
    rf"|{_IF_NEED}\s*,?\s*{_OFFER_HEAD}"
    r"|(?:i\s+|we\s+)?hope\s+(?:this|that|it)\s+(?:helps|answers\s+your\s+question|clears\s+(?:it|things)\s+up)"
    r"|(?:(?:i'm|i’m|i\s+am|we're|we’re|we\s+are)\s+)?(?:always\s+)?(?:happy|glad|here)\s+to\s+help"
    r"(?:\s+(?:further|anytime|any\s+time|with\s+anything\s+else))?"
    r"|glad\s+(?:i|we)\s+could\s+help"
    r"|(?:is\s+there\s+)?anything\s+else\s+(?:i|we)\s+can\s+(?:do|help(?:\s+you)?\s+with)(?:\s+for\s+you)?"
)
_NON_FACTUAL = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("greeting", _GREETING),
        ("acknowledgement", _ACKNOWLEDGEMENT),
        ("thanks", _THANKS),
        ("sign-off", _SIGN_OFF),
        ("offer of help", _OFFER),
    )
)
# "Thanks, the refund takes 5 days." and "Yes, both bands are American." open with a courtesy or an
# answer word and then assert: the assertion after the comma or dash is the claim.
_LEAD_IN = re.compile(
    rf"(?:{_GREETING}|{_ACKNOWLEDGEMENT}|{_THANKS}|{_ANSWER_WORD})\s*(?:,|—|–|\s-)\s*", re.IGNORECASE
)
_ANSWER_OPENING = re.compile(rf"{_ANSWER_WORD}\b", re.IGNORECASE)
# The name line under a sign-off ("Best regards,\nAnna from the Larkspur team").
_SIGNATURE = re.compile(r"(?-i:[A-Z][\w'’.&-]*)(?:\s+(?:(?-i:[A-Z][\w'’.&-]*)|from|at|of|the|team|support)){0,5}")
_COURTESY_JOINT = re.compile(r"\s*(?:[,;!.]|\s(?:and|&)\s)\s*", re.IGNORECASE)
_BULLET = re.compile(r"(?:[-*•]|\d+[.)])\s+")  # used with match() at the sentence start
_EDGE = re.compile(r"^\W+|\W+$")  # quotes, emoji and punctuation around a sentence


def extract_claims(text: str, question: str = "", sources: Sequence[str] = ()) -> list[ExtractedClaim]:
    """Every claim of `text` in order, with exact spans; only non-factual sentences are left out."""
    return list(extract(text, question, sources).claims)


def extract(text: str, question: str = "", sources: Sequence[str] = ()) -> Extraction:
    """The claims of `text` and the sentences left out of them as non-factual, both in text order.

    A claim with no finite verb carries the question as its context: a bare answer ("Delhi", "President
    Richard Nixon") leans on the question for what it asserts, where a sentence states it itself. The
    answer is read in its language (`_answer_language`; `sources`, their texts, tell it when neither the
    answer nor the question does); one in a language other than English is split by `_other_claims`.
    """
    language = _answer_language(text, question, sources)
    if language != languages.ENGLISH:
        return Extraction(tuple(_other_claims(text, language)), ())
    claims: list[ExtractedClaim] = []
    left_out: list[LeftOut] = []
    signed_off = False
    copied_from = [" ".join(source.split()) for source in sources]
    spelled_from = [spelled(source) for source in copied_from] if copied_from else []
    clauses: set[str] = set()  # the claims that are clauses of a sentence split in parts
    for sentence_start, sentence_end in _as_sources_split(text, sources):
        start = sentence_start
        bullet = _BULLET.match(text, start, sentence_end)
        if bullet:
            start = bullet.end()
        opening, answered = start, False
        while lead_in := _LEAD_IN.match(text, start, sentence_end):
            answered = answered or bool(_ANSWER_OPENING.match(lead_in.group()))
            start = lead_in.end()
        sentence = text[start:sentence_end]
        kind = _non_factual_kind(sentence, after_sign_off=signed_off)
        if answered and (kind is not None or not any(ch.isalnum() for ch in sentence)):
            # "Absolutely, happy to help!" still says yes; with nothing after it to carry the answer, the
            # whole sentence is the claim.
            start, kind = opening, None
            sentence = text[start:sentence_end]
        if kind is not None:
            signed_off = kind == "sign-off"
            left_out.append(LeftOut(text[sentence_start:sentence_end], sentence_start, sentence_end, kind))
            continue
        if not any(ch.isalnum() for ch in sentence):
            continue  # punctuation or an emoji on its own: there are no words to release
        signed_off = False
        # A sentence copied word for word from a source is one claim: its parts are the source's, joined as
        # the source joins them, and a part cut from it can lose the condition the other part states. So is
        # a source's sentence copied whole with its first letter's case changed ("for a limited period ...")
        # or a contraction written out or made ("and are not rich now" for "and aren't rich now").
        whole = copied(sentence, copied_from) or copied(sentence, copied_from, whole=True) \
            or copied(spelled(sentence), spelled_from, whole=True)
        parts = [Part(0, len(sentence))] if whole else split_parts(sentence)
        for part in parts:
            span_start, span_end = start + part.start, start + part.end
            claims.append(_make_claim(f"k{len(claims) + 1}", text[span_start:span_end], span_start, span_end,
                                      part.subject))
            if len(parts) > 1:
                clauses.add(claims[-1].id)  # split where a clause with its own verb begins (`coordination`)
    context = " ".join(question.split())
    if context:
        # A yes or no, or words that only echo one ("Yes, you can."), asserts its question: a yes-or-no
        # question makes that claim a statement of its own (`polar.asserted`), checked as any other. A
        # source's whole sentence copied states what the sentence does, with a verb or without ("And the
        # EPS, $3.50, a rise versus 2020"): no bare answer is a source's sentence from end to end.
        claims = [claim if (claim.id in clauses or has_verb(claim.statement)
                            or copied(claim.text, copied_from, whole=True)) and not polar(claim.statement)
                  else dataclasses.replace(claim, asserts=statement) if polar(claim.statement)
                  and (statement := asserted(question, claim.text))
                  else dataclasses.replace(claim, context=context) for claim in claims]
    return Extraction(tuple(claims), tuple(left_out))


def _as_sources_split(text: str, sources: Sequence[str]) -> list[tuple[int, int]]:
    """The answer's sentences (`split_sentences`), each cut again where a source it copies ends a sentence
    that the answer runs on from (`copies.source_breaks`)."""
    spans = []
    for start, end in split_sentences(text):
        for cut in source_breaks(text[start:end], sources) if sources else ():
            spans.append((start, start + cut))
            start += cut
        spans.append((start, end))
    return [(start, start + len(text[start:end].rstrip())) for start, end in spans]


def _answer_language(text: str, question: str = "", sources: Sequence[str] = ()) -> str:
    """The language an answer is read in: its own, else its question's ("2006" and "Steven Spielberg"
    answer in the question's language), else its first source's, else English."""
    for written in (text, question, *sources[:1]):
        found = languages.detect(written)
        if found != languages.UNDETERMINED:
            return found
    return languages.ENGLISH


# Where a Chinese sentence joins clauses that each assert something ("明天下午西湖会放晴，茶叶博物馆晚上 9 点关门"),
# unless the clause before it sets a condition or a cause the next one depends on.
_CLAUSE_JOINT = re.compile(r"[，；,;]")
_DEPENDENT = re.compile(r"如果|假如|要是|若|除非|只要|只有|虽然|尽管|因为|由于|一旦|当")
_MIN_CLAUSE = 4


def _other_claims(text: str, language: str) -> list[ExtractedClaim]:
    """The claims of an answer in a language other than English: its sentences, and in Chinese the clauses a
    comma joins. Values are read per language; one that is money or a period of time makes a claim CRITICAL."""
    claims: list[ExtractedClaim] = []
    for start, end in sentence_spans(text, language):
        for part_start, part_end in _clauses(text, start, end) if language == "zh" else [(start, end)]:
            if not any(char.isalnum() for char in text[part_start:part_end]):
                continue
            mentions = find_localized_values(text[part_start:part_end], language) if languages.reads(language) else []
            promise = any(mention.kind in ("money", "duration", "percentage") for mention in mentions)
            claims.append(ExtractedClaim(
                id=f"k{len(claims) + 1}", text=text[part_start:part_end], start=part_start, end=part_end,
                commitments=tuple(mention.to_commitment() for mention in mentions),
                severity=Severity.CRITICAL if promise else Severity.MODERATE, language=language,
            ))
    return claims


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The clauses of one Chinese sentence, each with enough words to assert something on its own."""
    clauses: list[tuple[int, int]] = []
    piece = start
    for joint in _CLAUSE_JOINT.finditer(text, start, end):
        before, after = text[piece:joint.start()], text[joint.end():end]
        if (_letters(before) >= _MIN_CLAUSE and _letters(after) >= _MIN_CLAUSE
                and not _DEPENDENT.search(before)):
            clauses.append((piece, joint.start()))
            piece = joint.end()
            while piece < end and text[piece].isspace():
                piece += 1
    clauses.append((piece, end))
    return clauses


def _letters(text: str) -> int:
    return sum(char.isalnum() for char in text)


def _make_claim(claim_id: str, text: str, start: int, end: int, subject: str = "") -> ExtractedClaim:
    mentions = find_mentions(text)
    statement = f"{subject} {text}" if subject else text
    return ExtractedClaim(
        id=claim_id,
        text=text,
        start=start,
        end=end,
        commitments=tuple(mention.to_commitment() for mention in mentions),
        # "includes 5 seats" is a promise of the Pro plan's: read with its subject.
        severity=classify(statement, find_mentions(statement)) if subject else classify(text, mentions),
        subject=subject,
    )


def _non_factual_kind(sentence: str, *, after_sign_off: bool) -> str | None:
    """Which entry of the non-factual list the whole sentence is, or None when it is a claim."""
    stripped = sentence.strip().strip("\"'“”‘’")
    if not stripped:
        return None
    if stripped.endswith("?"):
        return "question"
    if stripped.endswith(":"):
        return "list heading"
    core = _EDGE.sub("", stripped)
    if not core:
        return None
    kind = _entry(core)
    if kind is not None:
        return kind
    # "Hello and have a great trip!" is two entries of the list in one sentence. (Most sentences are no
    # entry: their first part ends the look.)
    first, *rest = _COURTESY_JOINT.split(core)
    kind = _entry(first)
    if kind is not None and all(_entry(part) for part in rest):
        return kind
    if after_sign_off and _SIGNATURE.fullmatch(core) and not any(ch.isdigit() for ch in core):
        return "sign-off"
    return None


def _entry(part: str) -> str | None:
    for kind, pattern in _NON_FACTUAL:
        if pattern.fullmatch(part):
            return kind
    return None
