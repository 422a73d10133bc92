"""The verification engine: from a case (an answer and its sources) to a run record.

Plain Python and pydantic; it never imports Django, Celery or the console. Its public surface is the
names in `__all__` below and three modules: `verification.types` (the case contract: what a client
submits and the run record it gets back), `verification.policy.constitution` (constitutions as data, and
the built-in ones) and `verification.training` (fitting and comparing scorers, for a retraining job).
Everything else is the engine's own and may change.

A name is imported when it is first read, not with the package: a process that only reads run records
(a web worker) never loads the scorer's model runtime, and one that checks cases loads it on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verification.surface import lazy_names

if TYPE_CHECKING:
    from verification.cli import main
    from verification.decision.calibration import LabelledScores, ReleaseCalibration, release_threshold
    from verification.decision.calibration import calibrate as calibrate_release
    from verification.decision.calibration import describe as describe_release
    from verification.decision.offline import OfflineVerifier
    from verification.decision.strata import answer_score
    from verification.decision.verifier import Verifier, fingerprint
    from verification.engine import calibration_critic, check_case, default_verifier, scorer_model
    from verification.errors import PermanentError, TransientError, UnknownConstitution, VerificationError
    from verification.heap import settle as settle_heap
    from verification.llm.cascade import Cascade
    from verification.llm.client import OpenAIChatModel
    from verification.llm.critic import DEFAULT_RUBRIC, CalibrationFixture, CriticRun
    from verification.llm.critic import calibrate as calibrate_critic
    from verification.policy.constitution import DEFAULT as DEFAULT_CONSTITUTION
    from verification.policy.constitution import Constitution, MinorTier, Policy, Route, builtin, builtin_names
    from verification.scorers import SCORERS, learned_scorer, make_scorer
    from verification.scorers.cross_encoder import MODEL_DIR as SHIPPED_MODEL_DIR
    from verification.scorers.cross_encoder import MODEL_FILE as SCORER_MODEL_FILE
    from verification.scorers.cross_encoder import TOKENIZER_FILE as SCORER_TOKENIZER_FILE
    from verification.scorers.cross_encoder import ModelUnavailable
    from verification.types import (
        Candidate,
        Case,
        Claim,
        EvidenceSpan,
        Origin,
        Reason,
        RunRecord,
        Severity,
        Source,
        State,
        Terminal,
    )

__all__ = [
    # Checking a case, in code or from the command line (`python -m verification`).
    "check_case",
    "default_verifier",
    "main",
    # The case and the run record it gets back.
    "Candidate",
    "Case",
    "Claim",
    "EvidenceSpan",
    "Origin",
    "Reason",
    "RunRecord",
    "Severity",
    "Source",
    "State",
    "Terminal",
    # Constitutions.
    "DEFAULT_CONSTITUTION",
    "Constitution",
    "MinorTier",
    "Policy",
    "Route",
    "builtin",
    "builtin_names",
    # The verifier: offline with a scorer, or the cascade with a model endpoint.
    "SCORERS",
    "Cascade",
    "OfflineVerifier",
    "OpenAIChatModel",
    "Verifier",
    "fingerprint",
    "learned_scorer",
    "make_scorer",
    "scorer_model",
    # A scorer model version's folder: the files it holds, and the shipped one.
    "SCORER_MODEL_FILE",
    "SCORER_TOKENIZER_FILE",
    "SHIPPED_MODEL_DIR",
    "settle_heap",
    # Calibration: the release threshold, and the critic's rubric.
    "DEFAULT_RUBRIC",
    "CalibrationFixture",
    "CriticRun",
    "LabelledScores",
    "ReleaseCalibration",
    "answer_score",
    "calibrate_critic",
    "calibrate_release",
    "calibration_critic",
    "describe_release",
    "release_threshold",
    # Errors: retry a transient one; a permanent one will fail the same way again.
    "ModelUnavailable",
    "PermanentError",
    "TransientError",
    "UnknownConstitution",
    "VerificationError",
]

_HOMES = {
    "check_case": "verification.engine",
    "default_verifier": "verification.engine",
    "main": "verification.cli",
    "Candidate": "verification.types",
    "Case": "verification.types",
    "Claim": "verification.types",
    "EvidenceSpan": "verification.types",
    "Origin": "verification.types",
    "Reason": "verification.types",
    "RunRecord": "verification.types",
    "Severity": "verification.types",
    "Source": "verification.types",
    "State": "verification.types",
    "Terminal": "verification.types",
    "DEFAULT_CONSTITUTION": "verification.policy.constitution:DEFAULT",
    "Constitution": "verification.policy.constitution",
    "MinorTier": "verification.policy.constitution",
    "Policy": "verification.policy.constitution",
    "Route": "verification.policy.constitution",
    "builtin": "verification.policy.constitution",
    "builtin_names": "verification.policy.constitution",
    "SCORERS": "verification.scorers",
    "Cascade": "verification.llm.cascade",
    "OfflineVerifier": "verification.decision.offline",
    "OpenAIChatModel": "verification.llm.client",
    "Verifier": "verification.decision.verifier",
    "fingerprint": "verification.decision.verifier",
    "learned_scorer": "verification.scorers",
    "make_scorer": "verification.scorers",
    "scorer_model": "verification.engine",
    "SCORER_MODEL_FILE": "verification.scorers.cross_encoder:MODEL_FILE",
    "SCORER_TOKENIZER_FILE": "verification.scorers.cross_encoder:TOKENIZER_FILE",
    "SHIPPED_MODEL_DIR": "verification.scorers.cross_encoder:MODEL_DIR",
    "settle_heap": "verification.heap:settle",
    "DEFAULT_RUBRIC": "verification.llm.critic",
    "CalibrationFixture": "verification.llm.critic",
    "CriticRun": "verification.llm.critic",
    "LabelledScores": "verification.decision.calibration",
    "ReleaseCalibration": "verification.decision.calibration",
    "answer_score": "verification.decision.strata",
    "calibrate_critic": "verification.llm.critic:calibrate",
    "calibrate_release": "verification.decision.calibration:calibrate",
    "calibration_critic": "verification.engine",
    "describe_release": "verification.decision.calibration:describe",
    "release_threshold": "verification.decision.calibration",
    "ModelUnavailable": "verification.scorers.cross_encoder",
    "PermanentError": "verification.errors",
    "TransientError": "verification.errors",
    "UnknownConstitution": "verification.errors",
    "VerificationError": "verification.errors",
}
"""Where each public name is defined: "module" (the same name there) or "module:name"."""


# Hidden from type checkers, which read the imports above: with a visible `__getattr__` any misspelt
# name imported from the package would type-check.
if not TYPE_CHECKING:
    __getattr__ = lazy_names(__name__, _HOMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
