"""The offline verifier's checks, in the order the decider asks them. Adding a check is one module and
one line here: its name joins the verifier's fingerprint, the switchable set and the method names a
run record may carry."""

from __future__ import annotations

from verification.checks.altered import Altered
from verification.checks.check import Check
from verification.checks.denied import Denied
from verification.checks.grounded_support import GroundedSupport
from verification.checks.grounding import Grounding
from verification.checks.name_swap import NameSwap
from verification.checks.negation_mismatch import NegationMismatch
from verification.checks.opposite_word import OppositeWord
from verification.checks.polar_answer import PolarAnswer
from verification.checks.proof import Proof, Reordered
from verification.checks.relation_mismatch import RelationMismatch
from verification.checks.source_conflict import SourceConflict
from verification.checks.stated_values import StatedValues
from verification.checks.typed_mismatch import TypedMismatch
from verification.checks.ungrounded_value import UngroundedValue
from verification.checks.verbatim import Verbatim
from verification.checks.wordless import Wordless

CHECKS: tuple[Check, ...] = (
    PolarAnswer(),
    Wordless(),
    SourceConflict(),
    TypedMismatch(),
    RelationMismatch(),
    NameSwap(),
    OppositeWord(),
    NegationMismatch(),
    Denied(),
    Reordered(),
    Altered(),
    Proof(),
    Grounding(),
    GroundedSupport(),
    UngroundedValue(),
    StatedValues(),
    Verbatim(),
)
"""Every check, in verdict order within its role: the first contradiction found decides. Each reads the
claims of its `languages` only: the last two are those of the languages read by rules alone."""
