"""The verification engine: from a case (an answer and its sources) to a run record.

Plain Python and pydantic; it never imports Django, Celery or the console.
"""

from __future__ import annotations

from verification.errors import PermanentError, TransientError, VerificationError
from verification.types import (
    Candidate,
    Case,
    Claim,
    Commitment,
    EvidenceSpan,
    Finding,
    Metrics,
    ModelCallRecord,
    ModelFailure,
    Origin,
    Reason,
    Repair,
    ReviewPackage,
    RuleVerdict,
    RunRecord,
    Severity,
    Source,
    State,
    Terminal,
    sha256_text,
)

__all__ = [
    "Candidate",
    "Case",
    "Claim",
    "Commitment",
    "EvidenceSpan",
    "Finding",
    "Metrics",
    "ModelCallRecord",
    "ModelFailure",
    "Origin",
    "PermanentError",
    "Reason",
    "Repair",
    "ReviewPackage",
    "RuleVerdict",
    "RunRecord",
    "Severity",
    "Source",
    "State",
    "Terminal",
    "TransientError",
    "VerificationError",
    "sha256_text",
]
