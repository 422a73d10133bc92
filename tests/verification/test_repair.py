"""Repair operators and the contract invariants checked in code."""

from __future__ import annotations

import pytest

from verification.engine import check_case
from verification.loop.contract import (
    RepairContext,
    RepairContract,
    contract_violations,
    new_unsourced_values,
    surface_blast_radius,
)
from verification.loop.repair import (
    REPAIR_MODES,
    NarrowToSupportedScope,
    OmitClaim,
    ReplaceWithEvidence,
    UnknownRepairMode,
    operations_for,
    repair_plan,
)
from verification.loop.reviser import hedges_added
from verification.policy.constitution import DEFAULT
from verification.types import (
    Candidate,
    Case,
    Claim,
    EvidenceSpan,
    Origin,
    Reason,
    Severity,
    Source,
    State,
    Terminal,
    sha256_text,
)

SOURCES = [Source(id="s", text="Acme was founded in 1999 by Jane Roe. Acme has 40 staff in Oslo.")]
CONTEXT = RepairContext(question="Tell me about Acme.", sources=SOURCES, constitution=DEFAULT)


def _candidate(text: str, states: dict[str, State], candidate_id: str = "c0") -> Candidate:
    from verification.claims.extraction import extract_claims

    claims = []
    for extracted, (claim_id, state) in zip(extract_claims(text), states.items(), strict=True):
        evidence = [EvidenceSpan(source_id="s", start=0, end=37, quote=SOURCES[0].text[:37])]
        claims.append(Claim(id=claim_id, text=extracted.text, start=extracted.start, end=extracted.end, state=state,
                            severity=Severity.MODERATE, evidence=evidence, method="t", confidence=1.0))
    return Candidate(id=candidate_id, parent=None, origin=Origin.CLIENT, text=text, sha256=sha256_text(text),
                     claims=claims)


def _contract(targets: tuple[str, ...], protected: tuple[str, ...], radius: float = 0.5) -> RepairContract:
    return RepairContract(target_claim_ids=targets, protected_claim_ids=protected,
                          allowed_operations=("OMIT_CLAIM",), max_blast_radius=radius)


def test_omission_removes_the_claim_and_the_connective_it_leaves_dangling() -> None:
    text = "Acme was founded in 1999. Acme sells anvils in Peru. Therefore, Acme has 40 staff in Oslo."
    candidate = _candidate(text, {"k1": State.SUPPORTED, "k2": State.INSUFFICIENT_EVIDENCE, "k3": State.SUPPORTED})

    proposal = OmitClaim().propose(candidate, _contract(("k2",), ("k1", "k3")), CONTEXT)

    assert proposal is not None
    assert proposal.text == "Acme was founded in 1999. Acme has 40 staff in Oslo."
    assert proposal.removed == ("k2",) and "removed the dangling 'Therefore,'" in proposal.notes[0]


def test_omission_of_one_clause_keeps_the_rest_of_its_sentence() -> None:
    text = "Acme was founded in 1999 and it sells anvils in Peru."
    candidate = _candidate(text, {"k1": State.SUPPORTED, "k2": State.INSUFFICIENT_EVIDENCE})

    proposal = OmitClaim().propose(candidate, _contract(("k2",), ("k1",)), CONTEXT)

    assert proposal is not None and proposal.text == "Acme was founded in 1999."


def test_omission_that_would_orphan_a_pronoun_is_refused_with_the_reason() -> None:
    text = "Acme sells anvils in Peru. It was founded in 1999 by Jane Roe."
    candidate = _candidate(text, {"k1": State.INSUFFICIENT_EVIDENCE, "k2": State.SUPPORTED})

    proposal = OmitClaim().propose(candidate, _contract(("k1",), ("k2",)), CONTEXT)

    assert proposal is not None and proposal.text == "" and proposal.failure.startswith("cohesion:")


def test_replace_with_evidence_swaps_only_the_disagreeing_value() -> None:
    candidate = _candidate("Acme was founded in 1997 by Jane Roe.", {"k1": State.REFUTED})

    proposal = ReplaceWithEvidence().propose(candidate, _contract(("k1",), ()), CONTEXT)

    assert proposal is not None and proposal.text == "Acme was founded in 1999 by Jane Roe."
    assert proposal.rewritten == {"k1": "Acme was founded in 1999 by Jane Roe."}


def test_replace_with_evidence_refuses_a_span_about_something_else() -> None:
    # The span is about 1999 and Jane Roe; "Q3" appears nowhere in it, so its year is not a correction.
    candidate = _candidate("Acme Q3 results came in 1997 by Jane Roe.", {"k1": State.REFUTED})

    assert ReplaceWithEvidence().propose(candidate, _contract(("k1",), ()), CONTEXT) is None


def _refuted_by(text: str, quote: str) -> Candidate:
    """A one-sentence answer whose claim the sentence `quote` of its source refutes."""
    claim = Claim(id="k1", text=text, start=0, end=len(text), state=State.REFUTED, severity=Severity.MODERATE,
                  evidence=[EvidenceSpan(source_id="s", start=0, end=len(quote), quote=quote)], method="t",
                  confidence=1.0)
    return Candidate(id="c0", parent=None, origin=Origin.CLIENT, text=text, sha256=sha256_text(text), claims=[claim])


def test_replace_with_evidence_never_puts_in_a_sentence_whose_pronoun_points_outside_it() -> None:
    # In its source "She" is Jane Roe, named in the sentence before; in the answer it would name no one.
    candidate = _refuted_by("Jane Roe was born in Bergen.", "She was born in Oslo and moved to Acme.")

    assert ReplaceWithEvidence().propose(candidate, _contract(("k1",), ()), CONTEXT) is None


def test_replace_with_evidence_keeps_a_pronoun_the_claim_opens_with_too() -> None:
    candidate = _refuted_by("She was born in Bergen.", "She was born in Oslo and moved to Acme.")

    proposal = ReplaceWithEvidence().propose(candidate, _contract(("k1",), ()), CONTEXT)

    assert proposal is not None and proposal.text == "She was born in Oslo and moved to Acme."


def test_narrowing_drops_the_detail_no_source_has_and_never_hedges() -> None:
    candidate = _candidate("Jane Roe founded Acme in Lisbon in 2003.", {"k1": State.INSUFFICIENT_EVIDENCE})

    proposal = NarrowToSupportedScope().propose(candidate, _contract(("k1",), ()), CONTEXT)

    assert proposal is not None and proposal.text == "Jane Roe founded Acme."
    assert hedges_added(candidate.text, proposal.text) == []


def test_narrowing_a_claim_the_source_states_only_narrower_says_it_as_the_source_does() -> None:
    source = Source(id="terms", text="Shipping is free on orders over $50.")
    span = EvidenceSpan(source_id="terms", start=0, end=len(source.text), quote=source.text)
    claim = Claim(id="k1", text="Shipping is free.", start=0, end=17, state=State.INSUFFICIENT_EVIDENCE,
                  severity=Severity.MODERATE, evidence=[span], method="offline:limit-dropped", confidence=0.0)
    candidate = Candidate(id="c0", parent=None, origin=Origin.CLIENT, text=claim.text, sha256=sha256_text(claim.text),
                          claims=[claim])
    context = RepairContext(question="Is shipping free?", sources=[source], constitution=DEFAULT)

    proposal = NarrowToSupportedScope().propose(candidate, _contract(("k1",), ()), context)

    assert proposal is not None and proposal.text == "Shipping is free on orders over $50."
    assert hedges_added(candidate.text, proposal.text) == []


@pytest.mark.parametrize(
    ("answer", "statement"),
    [
        ("Shipping is free.", "Shipping is free on orders over $50."),
        ("Discounts apply.", "Discounts apply only to annual plans."),
        ("Members can book courts up to 7 days in advance.",
         "Members can book courts up to 7 days in advance, except on public holidays."),
        ("The store is open.", "The store is open on weekdays."),
    ],
)
def test_an_answer_the_source_states_only_narrower_is_released_as_the_source_says_it(answer, statement) -> None:
    record = check_case(Case(question="What applies?", answer=answer, sources=[Source(id="terms", text=statement)]))

    assert record.candidates[0].claims[0].state is State.INSUFFICIENT_EVIDENCE
    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.REPAIRED)
    assert record.final_answer == statement
    assert record.candidates[-1].claims[0].method == "offline:proof"


def test_contract_violations_name_each_broken_invariant() -> None:
    parent = _candidate("Acme was founded in 1999. Acme has 40 staff in Oslo.", {"k1": State.SUPPORTED,
                                                                                    "k2": State.REFUTED})
    child = _candidate("Acme was founded in 2001. Acme has 40 staff in Berlin.", {"k1": State.SUPPORTED,
                                                                                    "k2": State.SUPPORTED}, "c1")

    violations = contract_violations(parent, child, _contract(("k2",), ("k1",), radius=0.4), SOURCES)

    assert "protected claim k1 was changed: 'Acme was founded in 2001.'" in violations
    assert any(v.startswith("adds what no source contains: 2001, Berlin") for v in violations)
    # k2 was the target: k1, half of the claims, is the collateral.
    assert "changes 0.50 of the claims beyond its target, more than 0.40" in violations
    assert surface_blast_radius(parent, child) == 1.0


def test_the_one_claim_of_an_answer_may_be_repaired() -> None:
    parent = _candidate("Acme has 40 staff in Berlin.", {"k1": State.REFUTED})
    child = _candidate("Acme has 40 staff in Oslo.", {"k1": State.SUPPORTED}, "c1")

    assert contract_violations(parent, child, _contract(("k1",), (), radius=0.5), SOURCES) == []


def test_values_already_in_the_sources_are_not_new() -> None:
    assert new_unsourced_values("Acme has staff.", "Acme has 40 staff in Oslo since 1999.", SOURCES) == []
    assert new_unsourced_values("", "Acme has $5 million.", SOURCES) == ["$5 million"]


def test_hedges_added_sees_softening_not_existing_words() -> None:
    assert hedges_added("Q3 revenue was $46 million.", "Q3 revenue may have been about $46 million.") == [
        "about", "may"
    ]
    assert hedges_added("It may rain.", "It may rain.") == []


def test_repair_modes_and_the_state_to_operation_map() -> None:
    assert REPAIR_MODES == ("none", "auto", "omit")
    assert not repair_plan("none").repairs_anything and repair_plan("auto").regenerate
    assert operations_for(State.REFUTED) == ("REPLACE_WITH_EVIDENCE", "MODEL_REVISION", "OMIT_CLAIM")
    assert operations_for(State.INSUFFICIENT_EVIDENCE) == ("NARROW_TO_SUPPORTED_SCOPE", "OMIT_CLAIM")
    assert operations_for(State.CONFLICTING) == operations_for(State.UNRESOLVED) == ()
    with pytest.raises(UnknownRepairMode, match="choose one of none, auto, omit"):
        repair_plan("guess")
