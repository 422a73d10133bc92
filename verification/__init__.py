"""The verification engine: from a case (an answer and its sources) to a run record.

Plain Python and pydantic; it never imports Django, Celery or the console. Its public surface is the
names in `__all__` below and two modules whose names are the contract itself: `verification.types` (the
case contract: what a client submits and the run record it gets back) and `verification.constitution`
(constitutions as data, and the built-in ones). Everything else is the engine's own and may change.
"""

from __future__ import annotations

from verification.cache import VerificationCache
from verification.cascade import Cascade, CascadeVerifier
from verification.claims import extract_claims
from verification.cohesion import CohesionResult, restore_cohesion, strip_connective
from verification.constitution import DEFAULT as DEFAULT_CONSTITUTION
from verification.constitution import (
    Constitution,
    ForbiddenPhrases,
    JudgedRule,
    MinorTier,
    NoPromiseOutsideSources,
    Policy,
    RequiredDisclosure,
    Route,
    WordLimit,
    builtin,
    builtin_names,
)
from verification.contract import (
    Operation,
    Operator,
    Proposal,
    RepairContext,
    RepairContract,
    contract_violations,
)
from verification.controller import Controller
from verification.cove import ModelVerifier
from verification.critic import (
    DEFAULT_RUBRIC,
    Calibration,
    CalibrationFixture,
    CriticResult,
    CriticRun,
    calibrate,
    critique,
)
from verification.engine import (
    MissingFieldError,
    ScorerModelMismatch,
    UnknownConstitution,
    calibration_critic,
    check_case,
    default_verifier,
    scorer_model,
)
from verification.errors import PermanentError, TransientError, VerificationError
from verification.evidence import SourceIndex
from verification.heap import settle as settle_heap
from verification.judging import judge
from verification.model import (
    ChatModel,
    ModelReply,
    OpenAIChatModel,
    PromptTemplate,
    RoleResult,
    ScriptedModel,
    run_role,
)
from verification.offline import OfflineVerifier
from verification.regeneration import FailureRecord, failure_record, regenerate
from verification.release import (
    LabelledScores,
    ReleaseCalibration,
    answer_score,
    builtin_calibration,
    release_threshold,
)
from verification.release import calibrate as calibrate_release
from verification.release import describe as describe_release
from verification.repair import (
    REPAIR_MODES,
    NarrowToSupportedScope,
    OmitClaim,
    RepairPlan,
    ReplaceWithEvidence,
    RuleRevision,
    UnknownRepairMode,
    repair_plan,
)
from verification.reviser import ModelRevision
from verification.scorer import SCORERS, learned_scorer, make_scorer
from verification.scorer.comparison import (
    HeldOutFigures,
    LabelledClaim,
    auroc_gap_bound,
    held_out_figures,
    not_worse,
    release_scores,
)
from verification.scorer.cross_encoder import MODEL_DIR as SHIPPED_MODEL_DIR
from verification.scorer.cross_encoder import MODEL_FILE as SCORER_MODEL_FILE
from verification.scorer.cross_encoder import TOKENIZER_FILE as SCORER_TOKENIZER_FILE
from verification.scorer.cross_encoder import ModelUnavailable
from verification.scorer.pairs import Pair
from verification.scorer.retraining import RetrainSettings, fine_tune
from verification.scorer.slices import slice_of
from verification.scorer.stack import refit as refit_stack
from verification.scorer.training import NEEDS as TRAINING_NEEDS
from verification.scorer.window import hypothesis, window_text
from verification.stop_policy import Outcome
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
from verification.verifier import Verifier, fingerprint, identity

__all__ = [
    "Calibration",
    "CalibrationFixture",
    "Candidate",
    "Cascade",
    "CascadeVerifier",
    "Case",
    "ChatModel",
    "Claim",
    "CohesionResult",
    "Commitment",
    "Constitution",
    "Controller",
    "CriticResult",
    "CriticRun",
    "DEFAULT_CONSTITUTION",
    "DEFAULT_RUBRIC",
    "EvidenceSpan",
    "FailureRecord",
    "Finding",
    "ForbiddenPhrases",
    "JudgedRule",
    "LabelledScores",
    "Metrics",
    "MissingFieldError",
    "ScorerModelMismatch",
    "scorer_model",
    "HeldOutFigures",
    "LabelledClaim",
    "OfflineVerifier",
    "Pair",
    "SourceIndex",
    "extract_claims",
    "held_out_figures",
    "hypothesis",
    "not_worse",
    "release_scores",
    "auroc_gap_bound",
    "RetrainSettings",
    "SCORER_MODEL_FILE",
    "SCORER_TOKENIZER_FILE",
    "SHIPPED_MODEL_DIR",
    "fine_tune",
    "TRAINING_NEEDS",
    "refit_stack",
    "slice_of",
    "window_text",
    "ModelCallRecord",
    "MinorTier",
    "ModelFailure",
    "ModelReply",
    "ModelRevision",
    "ModelUnavailable",
    "ModelVerifier",
    "NarrowToSupportedScope",
    "NoPromiseOutsideSources",
    "OmitClaim",
    "OpenAIChatModel",
    "Operation",
    "Operator",
    "Origin",
    "Outcome",
    "PermanentError",
    "Policy",
    "PromptTemplate",
    "Proposal",
    "REPAIR_MODES",
    "Reason",
    "ReleaseCalibration",
    "Repair",
    "RepairContext",
    "RepairContract",
    "RepairPlan",
    "ReplaceWithEvidence",
    "RequiredDisclosure",
    "ReviewPackage",
    "RoleResult",
    "Route",
    "RuleRevision",
    "RuleVerdict",
    "RunRecord",
    "SCORERS",
    "ScriptedModel",
    "Severity",
    "Source",
    "State",
    "Terminal",
    "TransientError",
    "UnknownConstitution",
    "UnknownRepairMode",
    "VerificationCache",
    "VerificationError",
    "Verifier",
    "WordLimit",
    "answer_score",
    "builtin",
    "builtin_calibration",
    "builtin_names",
    "calibrate",
    "calibrate_release",
    "calibration_critic",
    "check_case",
    "contract_violations",
    "critique",
    "default_verifier",
    "describe_release",
    "failure_record",
    "fingerprint",
    "identity",
    "judge",
    "make_scorer",
    "learned_scorer",
    "regenerate",
    "release_threshold",
    "repair_plan",
    "restore_cohesion",
    "run_role",
    "settle_heap",
    "sha256_text",
    "strip_connective",
]
