"""The offline verifier as a pipeline: stages that import downwards only, one claim view per claim, and
checks that are registered objects."""

from __future__ import annotations

import functools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from verification.checks import registry
from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.view import ClaimView
from verification.decision.methods import offline_methods
from verification.decision.offline import OfflineVerifier, switchable
from verification.engine import check_case
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.scorers import make_scorer
from verification.types import Case, Source, State

ROOT = Path(__file__).resolve().parents[2]

_PLANS = ["Starter", "Team", "Business", "Enterprise"]
_FEATURES = ["single sign-on", "audit logs", "priority support", "custom domains", "data export"]


def _cases(count: int, seed: int = 5) -> list[Case]:
    """Handbook cases with answers that are right, wrong in a number, unsupported or negated."""
    rng = random.Random(seed)
    cases = []
    for number in range(count):
        prices = {plan: rng.randint(5, 90) for plan in _PLANS}
        included = {plan: rng.sample(_FEATURES, 2) for plan in _PLANS}
        handbook = " ".join(
            f"The {plan} plan costs ${price} per user per month. The {plan} plan includes "
            f"{included[plan][0]} and {included[plan][1]}."
            for plan, price in prices.items()
        ) + f" Refunds are available within {rng.choice([14, 30, 60])} days of purchase."
        plan = rng.choice(_PLANS)
        answers = [
            f"The {plan} plan costs ${prices[plan]} per user per month.",
            f"The {plan} plan costs ${prices[plan] + 7} per user per month.",
            f"The {plan} plan includes {included[plan][0]}.",
            f"The {plan} plan does not include {included[plan][1]}.",
            f"The {plan} plan comes with a dedicated account manager.",
        ]
        answer = " ".join(rng.sample(answers, 3))
        cases.append(Case(external_id=f"c{number}", question="Which plan fits us?", answer=answer,
                          sources=[Source(id="handbook", text=handbook)]))
    return cases


def test_the_runtime_imports_nothing_under_training() -> None:
    # A worker that checks cases never loads fitting, fine-tuning or the data sets: with the training
    # package made unimportable, the whole runtime still imports and checks a case.
    script = """
import importlib.abc, json, sys

class BlockTraining(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "verification.training" or name.startswith("verification.training."):
            raise ImportError("training is blocked: " + name)
        return None

sys.meta_path.insert(0, BlockTraining())
import verification
import verification.cli, verification.engine
from verification.types import Case, Source
record = verification.check_case(Case(question="Price?", answer="The Team plan costs $20 per month.",
                                      sources=[Source(id="s", text="The Team plan costs $20 per month.")]))
print(json.dumps({"state": str(record.candidates[0].claims[0].state),
                  "training": sorted(m for m in sys.modules if m.startswith("verification.training"))}))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "VERIFICATION_SCORER": "rules"})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"state": "SUPPORTED", "training": []}


def test_the_claim_view_is_built_once_per_claim_on_a_50_case_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each claim the verifier checks is read into its view once, and nothing after the view reads the
    # claim's text into words again: every text cache is emptied once the views are built, so a stage that
    # tokenised the claim again would show here instead of being hidden by a cache.
    from verification.claims import tokens
    from verification.decision import offline

    caches = {id(value): value for name, module in list(sys.modules.items()) if name.startswith("verification.")
              for value in vars(module).values() if isinstance(value, functools._lru_cache_wrapper)}.values()
    built: list[str] = []
    verified: list[str] = []
    read_again: list[str] = []
    watched: set[str] = set()
    reading = [False]
    original_init, original_verify = ClaimView.__init__, OfflineVerifier.verify_claims
    original_read, original_words, original_gather = offline.read_claim, tokens._read_words, offline.gather

    def counting_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original_init(self, *args, **kwargs)
        built.append(self.text)

    def counting_verify(self, claims, index):  # type: ignore[no-untyped-def]
        checked = [claim.text for claim in claims if claim.checkable]
        verified.extend(checked)
        # A claim that is word for word a source sentence is read as that sentence too: not counted.
        watched.clear()
        watched.update(set(checked) - {passage.text for passage in index.passages})
        try:
            return original_verify(self, claims, index)
        finally:
            watched.clear()  # the recovery loop around the verifier reads candidates as it must

    def read_claim(*args, **kwargs):  # type: ignore[no-untyped-def]
        reading[0] = True
        try:
            return original_read(*args, **kwargs)
        finally:
            reading[0] = False

    def gather(claim, index):  # type: ignore[no-untyped-def]
        for cache in caches:
            cache.cache_clear()
        return original_gather(claim, index)

    def read_words(text):  # type: ignore[no-untyped-def]
        if text in watched and not reading[0]:
            read_again.append(text)
        return original_words(text)

    monkeypatch.setattr(ClaimView, "__init__", counting_init)
    monkeypatch.setattr(OfflineVerifier, "verify_claims", counting_verify)
    monkeypatch.setattr(offline, "read_claim", read_claim)
    monkeypatch.setattr(offline, "gather", gather)
    monkeypatch.setattr(tokens, "_read_words", read_words)
    verifier = OfflineVerifier(make_scorer("rules"))
    records = [check_case(case, verifier=verifier) for case in _cases(50)]

    assert len(records) == 50 and {str(record.terminal) for record in records} >= {"PERMIT", "REVIEW"}
    assert len(verified) >= 150
    assert built == verified
    assert read_again == []


class _MentionsCompetitor(Check):
    """A claim that names the competitor is refuted, whatever the sources say (a test's own check)."""

    name = "mentions-competitor"
    version = 1
    role = Role.CONTRADICTION

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        if "Contoso" not in claim.text or not evidence.hits:
            return None
        passage = evidence.hits[0].passage
        return CheckFinding(state=State.REFUTED, method=PREFIX + self.name,
                            evidence=(citations.span(passage, claim, evidence, ["Contoso"]),),
                            confidence=0.9, rationale="The claim names a competitor.")


def test_a_check_registered_in_one_line_joins_the_fingerprint_the_switchable_set_and_the_run_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scorer = make_scorer("rules")
    before = OfflineVerifier(scorer).config_fingerprint()
    case = Case(question="Which plan?", answer="The Team plan costs $20 per month, like Contoso's.",
                sources=[Source(id="s", text="The Team plan costs $20 per month, like Contoso's.")])
    assert check_case(case, verifier=OfflineVerifier(scorer)).candidates[0].claims[0].state is State.SUPPORTED

    monkeypatch.setattr(registry, "CHECKS", (*registry.CHECKS, _MentionsCompetitor()))

    verifier = OfflineVerifier(scorer)
    assert verifier.config_fingerprint() != before
    assert "mentions-competitor" in switchable()
    assert "offline:mentions-competitor" in offline_methods()
    [claim] = check_case(case, verifier=verifier).candidates[0].claims
    assert (claim.state, claim.method, claim.rationale) == (
        State.REFUTED, "offline:mentions-competitor", "The claim names a competitor.")
    assert claim.evidence[0].covers[0] == "Contoso"
    # Switched off by its name, like every other check: a setting, not an edit.
    assert OfflineVerifier(scorer, off=frozenset({"mentions-competitor"})).config_fingerprint() == before


def test_every_check_has_a_name_a_version_and_a_role_and_the_names_are_unique() -> None:
    names = [check.name for check in registry.CHECKS]
    assert len(names) == len(set(names))
    assert all(check.version >= 1 and isinstance(check.role, Role) for check in registry.CHECKS)
    methods = offline_methods()
    assert len(methods) == len(set(methods))
