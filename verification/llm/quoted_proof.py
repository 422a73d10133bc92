"""A model's SUPPORTED verdict confirmed by proof.

The model's quotes are found verbatim in the sources before its verdict is accepted (`cove._QuoteAligner`).
Where the sentences it quotes prove the claim word for word, by the offline verifier's own proof checks
(`checks/proof/`, `checks/verbatim.py`), the verdict is proven: release score 1 and stratum `proven`,
with the alignment a reviewer reads. A proof is not a probability, so such a claim needs no calibration
of the model path: with an LLM endpoint the gate releases what is proven from the first day, and holds
everything else until the model path is calibrated on the team's labels.

Only SUPPORTED verdicts are confirmed: a proof can raise a verdict the model already gave, never overturn
one, and the model's REFUTED or INSUFFICIENT_EVIDENCE stays what it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from verification.checks.check import CheckFinding, Role, first_finding
from verification.checks.registry import CHECKS
from verification.claims.extraction import ExtractedClaim
from verification.claims.language import ENGLISH
from verification.claims.view import ClaimView, read_claim
from verification.decision.strata import PROVEN
from verification.decision.verifier import Verdict
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Hit, Passage, SourceIndex
from verification.retrieval.values import check_values
from verification.types import EvidenceSpan, State


def confirmed(claim: ExtractedClaim, verdict: Verdict, quoted: Sequence[EvidenceSpan], index: SourceIndex) -> Verdict:
    """`verdict` proven where the sentences the model quoted prove the claim; otherwise unchanged."""
    if verdict.state is not State.SUPPORTED or not claim.checkable or not quoted:
        return verdict
    view = read_claim(claim.statement, claim.context, claim.language)
    finding = _prove_quoted(view, quoted, index)
    if finding is None:
        return verdict
    return replace(
        verdict,
        release_score=1.0,
        stratum=PROVEN,
        evidence=finding.evidence,
        rationale=f"{verdict.rationale} {finding.rationale}".strip(),
        extra={**verdict.extra, **finding.extra, "proof": finding.method},
    )


def _prove_quoted(view: ClaimView, quoted: Sequence[EvidenceSpan], index: SourceIndex) -> CheckFinding | None:
    """The proof of the claim by the sentences that hold the quotes, or None.

    The evidence is those sentences alone: the values are compared with them and nothing else, so the
    proof rests on what the model cited (a sentence after a quoted one may complete it, as offline)."""
    passages = _holding(quoted, index)
    if not passages:
        return None
    values = check_values(view, passages, index) if view.language == ENGLISH and view.unique_stems else []
    evidence = Evidence(index=index, hits=[Hit(passage, 0.0) for passage in passages], candidates=passages,
                        values=values)
    return first_finding(CHECKS, Role.PROVEN, view, evidence)


def proof_checks() -> list[tuple[str, int]]:
    """The proof checks' names and versions: part of the model verifier's fingerprint, as they change its
    verdicts."""
    return [(check.name, check.version) for check in CHECKS if check.role is Role.PROVEN]


def _holding(quoted: Sequence[EvidenceSpan], index: SourceIndex) -> list[Passage]:
    """The sentences each quote overlaps, in the order quoted, once each."""
    found: dict[int, Passage] = {}
    for span in quoted:
        for passage in index.passages:
            if passage.source_id == span.source_id and passage.start < span.end and span.start < passage.end:
                found.setdefault(passage.position, passage)
    return list(found.values())
