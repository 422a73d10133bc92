"""Old model against new on held-out labels, and a constitution's pinned scorer model."""

from __future__ import annotations

import pytest

from verification import Case, Constitution, OfflineVerifier, Source, check_case, make_scorer
from verification.decision.calibration import upper_bound
from verification.engine import ScorerModelMismatch
from verification.policy.constitution import DEFAULT
from verification.training import LabelledClaim, auroc_gap_bound, held_out_figures, not_worse, release_scores

LAPTOP = Source(id="spec", text="The Arden 14 weighs 1.2 kg. Its battery lasts up to 18 hours. It ships with a "
                                "65 W charger. The warranty covers two years of repairs.")


def _claim(answer: str, text: str, supported: bool) -> LabelledClaim:
    return LabelledClaim(answer=answer, text=text, context="", sources=(LAPTOP,), supported=supported)


def test_each_claim_is_verified_again_and_a_contradiction_scores_0():
    claims = [
        _claim("a", "The Arden 14 weighs 1.2 kg.", True),
        _claim("b", "The Arden 14 weighs 3.5 kg.", False),
        _claim("c", "The Arden 14 is made of recycled aluminium.", False),
    ]
    scores = release_scores(OfflineVerifier(make_scorer("learned")), claims)

    assert scores[0] > 0.5
    assert scores[1] == 0.0  # the typed check refutes it: the model has no say
    assert scores[2] < scores[0]


def test_an_answer_scores_by_its_weakest_claim_and_counts_as_its_labels_say():
    claims = [_claim("a", "x", True), _claim("a", "y", True), _claim("b", "z", True), _claim("b", "w", False)]
    figures = held_out_figures(claims, [0.9, 0.7, 0.95, 0.2], budget=0.5, verifier="v")

    assert (figures.answers, figures.consistent, figures.inconsistent) == (2, 1, 1)
    assert figures.scores == {"consistent": [0.7], "inconsistent": [0.2]}
    assert figures.claims == 4 and figures.supported_claims == 3
    assert figures.auroc == 1.0


def test_the_threshold_is_the_engines_calibration_with_its_exact_bound():
    # Ten inconsistent answers at 0.1, ten consistent at 0.8: any threshold above 0.1 releases none of the
    # inconsistent ones, and with n = 10 the 95% bound for 0 of 10 is 25.9%, within a 30% budget.
    claims = [_claim(f"ok{i}", "x", True) for i in range(10)] + [_claim(f"bad{i}", "y", False) for i in range(10)]
    figures = held_out_figures(claims, [0.8] * 10 + [0.1] * 10, budget=0.3, verifier="v")

    assert figures.met and figures.threshold == 0.8
    assert figures.automation == 1.0 and figures.consistent_released == 10
    assert figures.unsafe_released == 0 and figures.unsafe_rate == 0.0
    assert figures.unsafe_bound == pytest.approx(upper_bound(0, 10, 0.95), abs=1e-4)

    tight = held_out_figures(claims, [0.8] * 10 + [0.1] * 10, budget=0.05, verifier="v")
    assert not tight.met and tight.threshold is None and tight.automation == 0.0


def _figures(automation_scores: list[float], auroc_scores: list[float]) -> object:
    consistent = [_claim(f"ok{i}", "x", True) for i in range(len(automation_scores))]
    inconsistent = [_claim(f"bad{i}", "y", False) for i in range(len(auroc_scores))]
    return held_out_figures(consistent + inconsistent, automation_scores + auroc_scores, budget=0.3, verifier="v")


def test_a_new_model_is_not_worse_only_when_it_releases_as_much_and_ranks_as_well():
    # The threshold is the lowest score that keeps the bound within the budget: here, the lowest above 0.1.
    old = _figures([0.8, 0.8, 0.05, 0.05], [0.1] * 10)
    better = _figures([0.8, 0.8, 0.8, 0.05], [0.1] * 10)
    worse = _figures([0.8, 0.05, 0.05, 0.05], [0.1] * 10)
    unbounded = _figures([0.8] * 4, [1.0] * 10)  # the highest score there is: nothing holds them back

    assert not_worse(old, better)[0]  # type: ignore[arg-type]
    assert not_worse(old, old)[0]  # type: ignore[arg-type]
    ok, why = not_worse(old, worse)  # type: ignore[arg-type]
    assert not ok and "fewer consistent answers: 25.0% against 50.0%" in why
    ok, why = not_worse(old, unbounded)  # type: ignore[arg-type]
    assert not ok and "within the budget" in why


def _pinned(sha256: str) -> Constitution:
    return DEFAULT.model_copy(update={"policy": DEFAULT.policy.model_copy(update={"scorer_model": sha256})})


CASE = Case(question="How heavy is it?", answer="The Arden 14 weighs 1.2 kg.", sources=[LAPTOP])


def test_the_run_record_names_the_scorer_model_and_a_pin_on_another_model_is_refused():
    verifier = OfflineVerifier(make_scorer("learned"))
    shipped = verifier.scorer.model.sha256  # type: ignore[attr-defined]

    assert check_case(CASE, verifier=verifier).scorer_model == shipped
    assert check_case(CASE, verifier=verifier, constitution=_pinned(shipped)).scorer_model == shipped
    with pytest.raises(ScorerModelMismatch, match="pins the scorer model 000000000000"):
        check_case(CASE, verifier=verifier, constitution=_pinned("0" * 64))
    assert check_case(CASE, verifier=OfflineVerifier(make_scorer("rules"))).scorer_model is None


def test_a_pin_must_be_a_sha256():
    with pytest.raises(ValueError, match="scorer_model"):
        _pinned("not-a-hash").model_validate(_pinned("not-a-hash").model_dump())


def test_a_lower_auroc_within_chance_is_not_worse_and_one_beyond_it_is():
    # Forty answers of one claim each: twenty supported, twenty not. The old model ranks them perfectly;
    # one new model swaps a single pair (a lower AUROC the sample cannot tell from chance), another ranks
    # half the unsupported claims above every supported one.
    claims = [_claim(f"ok{i}", "x", True) for i in range(20)] + [_claim(f"bad{i}", "y", False) for i in range(20)]
    old = [0.6 + i / 100 for i in range(20)] + [0.1 + i / 100 for i in range(20)]
    swapped = list(old)
    swapped[0], swapped[39] = old[39], old[0]
    mixed = old[:20] + [0.95] * 10 + old[30:]

    def figures(scores: list[float]):
        return held_out_figures(claims, scores, budget=0.3, verifier="v")

    near = auroc_gap_bound(claims, old, swapped)
    assert near is not None and near >= 0
    ok, why = not_worse(figures(old), figures(swapped), near)
    assert figures(swapped).auroc < figures(old).auroc
    assert ok and "within chance" in why

    far = auroc_gap_bound(claims, old, mixed)
    assert far is not None and far < 0
    ok, why = not_worse(figures(old), figures(mixed), far)
    assert not ok

    assert auroc_gap_bound(claims[:20], old[:20], swapped[:20]) is None  # one label only: nothing to rank
