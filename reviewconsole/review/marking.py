"""The case page's marks: claims marked in the shown answer, evidence marked in the sources, each linked
to the other, and the release gate's verdict on every claim."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from django.utils.safestring import SafeString

from reviewconsole.intake.models import Candidate, Claim, Source
from reviewconsole.review.highlight import Span, highlight
from reviewconsole.review.states import FAILING_STATES, state_label
from verification import State


@dataclass(frozen=True)
class EvidenceLink:
    anchor: str
    source_id: str
    quote: str
    covers: list[str] = field(default_factory=list)
    """The claim's commitments this span grounds or contradicts, as the claim writes them."""


@dataclass(frozen=True)
class ReleaseGate:
    """The release gate a run applied: its threshold and what backs it (None: no calibrated threshold)."""

    threshold: float | None
    calibration: str
    digits: int = 2
    """Decimals that tell every score on the page from the threshold (2, or 4 where 2 would blur them)."""

    @property
    def threshold_text(self) -> str:
        return f"{self.threshold:.{self.digits}f}" if self.threshold is not None else ""

    def holds_back(self, claim: Claim) -> bool:
        """A supported claim scored below the threshold; unscored counts as 0, as in the engine's gate."""
        if self.threshold is None or claim.state != State.SUPPORTED.value:
            return False
        return (claim.release_score or 0.0) < self.threshold


@dataclass(frozen=True)
class ClaimRow:
    """A claim of the current candidate with its state in words and links to its evidence marks."""

    claim: Claim
    anchor: str
    label: str
    evidence: list[EvidenceLink]
    held_back: bool = False
    """Supported, but scored below the run's release threshold: a person decides whether it goes out."""
    score_text: str = ""
    """The release score as shown ("0.83"); empty when the verifier gave none."""
    proof: list[tuple[str, str]] = field(default_factory=list)
    """For a proven claim: each of its words with the evidence word that states it, as each side writes it."""

    @property
    def failing(self) -> bool:
        return self.claim.state in FAILING_STATES


@dataclass(frozen=True)
class CaseMarks:
    """The marked answer and sources, the claims' rows, and the gate with the digits its scores need."""

    candidate_html: SafeString
    marked_sources: list[tuple[Source, SafeString]]
    claim_rows: list[ClaimRow]
    release_gate: ReleaseGate | None


def claim_anchor(claim: Claim) -> str:
    return f"claim-{claim.position}"


def case_marks(shown: Candidate, sources: list[Source], gate: ReleaseGate | None) -> CaseMarks:
    """Claims marked in the shown answer, evidence marked in the sources, each linked to the other.

    Anchors use positions, never client-chosen ids, so they are always valid HTML ids.
    """
    source_positions = {source.source_id: source.position for source in sources}
    texts = {source.source_id: source.text for source in sources}
    claims = list(shown.claims.all())
    # One mark per stretch of source text, shared by every claim citing it. It takes the state of the
    # claim it is the best evidence for (listed first), so a refuted claim's span shows as refuted.
    citations = sorted(
        ((rank, claim, evidence) for claim in claims for rank, evidence in enumerate(claim.evidence)),
        key=lambda citation: citation[0],
    )
    evidence_spans: dict[int, dict[tuple[int, int], Span]] = {}
    links: dict[int, list[EvidenceLink]] = {claim.pk: [] for claim in claims}
    for _rank, claim, evidence in citations:
        position = source_positions.get(evidence.get("source_id"))
        if position is None:
            continue
        start, end = int(evidence.get("start", 0)), int(evidence.get("end", 0))
        spans = evidence_spans.setdefault(position, {})
        span = spans.setdefault(
            (start, end),
            Span(start, end, f"ev-{position}-{len(spans)}", claim.state, f"Evidence for: {claim.text}",
                 href=f"#{claim_anchor(claim)}"),
        )
        links[claim.pk].append(EvidenceLink(
            span.anchor, evidence.get("source_id", ""), evidence.get("quote", ""),
            [str(item) for item in evidence.get("covers") or []],
        ))
    if gate is not None and gate.threshold is not None:
        gate = replace(gate, digits=_score_digits(claims, gate.threshold))
    claim_spans = []
    claim_rows = []
    for claim in claims:
        label = state_label(claim.state)
        held_back = gate is not None and gate.holds_back(claim)
        claim_spans.append(Span(claim.start, claim.end, f"text-{claim_anchor(claim)}", claim.state,
                                f"{label}, held back" if held_back else label,
                                href=f"#{claim_anchor(claim)}", badge=True))
        score_text = f"{claim.release_score:.{gate.digits if gate else 2}f}" if claim.release_score is not None else ""
        claim_rows.append(ClaimRow(claim, claim_anchor(claim), label, links[claim.pk], held_back, score_text,
                                   _proof(claim, texts)))
    return CaseMarks(
        candidate_html=highlight(shown.text, claim_spans),
        marked_sources=[
            (source, highlight(source.text, list(evidence_spans.get(source.position, {}).values())))
            for source in sources
        ],
        claim_rows=claim_rows,
        release_gate=gate,
    )


def _proof(claim: Claim, texts: dict[str, str]) -> list[tuple[str, str]]:
    """The words of a proven claim beside the evidence words that state them (none for other claims)."""
    pairs = []
    for word in claim.alignment or []:
        text = texts.get(word.get("source_id", ""))
        if text is None:
            return []  # a source the run cited is gone from the case: show no half of a proof
        pairs.append((str(word.get("word", "")), text[word["start"]:word["end"]]))
    return pairs


def _score_digits(claims: list[Claim], threshold: float) -> int:
    """2 decimals, or 4 when a score below the threshold would read as equal or above it at 2 (or back)."""
    for claim in claims:
        score = claim.release_score
        if score is not None and (score < threshold) != (round(score, 2) < round(threshold, 2)):
            return 4
    return 2
