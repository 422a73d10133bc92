"""Building a candidate: its claims named across versions, verified as far as the budgets go, judged.

Every repair makes a new candidate (parent link, origin, sha256) that inherits no trust: its claims are
verified again, though only the ones the repair invalidated cost a verifier call, because verdicts are
cached by (claim hash, evidence snapshot hash, verifier version, verifier config). A claim keeps its id
across versions when it is unchanged, rewritten by the repair or close to the old one in words; a new
claim gets a new id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from verification.claims.extraction import ExtractedClaim, Extraction, extract
from verification.claims.tokens import content_stems
from verification.decision.verifier import Verdict, Verifier
from verification.llm.cascade import CascadeVerifier
from verification.llm.client import MAX_ATTEMPTS, ChatModel
from verification.llm.cove import ModelVerifier
from verification.llm.critic import critique
from verification.loop.cache import VerificationCache
from verification.loop.cohesion import claim_core
from verification.loop.judging import judge
from verification.loop.stop_policy import Budget, Outcome, exhausted, unverified
from verification.policy.constitution import Constitution, JudgedRule
from verification.types import AlignedWord, Candidate, Case, Claim, ModelCallRecord, Origin, Reason, sha256_text


class CandidateBuilder:
    """Builds the candidates of one run; the chain, the notes and the budget are the controller's own."""

    def __init__(
        self,
        case: Case,
        verifier: Verifier,
        constitution: Constitution,
        budget: Budget,
        *,
        chain: list[Candidate],
        notes: list[str],
        model: ChatModel | None,
        critic_rubric: str | None,
    ) -> None:
        self._case = case
        self._verifier = verifier
        self._constitution = constitution
        self._budget = budget
        self._chain = chain
        self._notes = notes
        self._model = model
        self._critic_rubric = critic_rubric
        self.cache_hits = 0
        """Claim verifications answered from the cache instead of the verifier."""
        self._cache = VerificationCache(verifier, case.sources)
        self._claim_numbers = 0
        # Cache keys of every claim text verified so far: the rest are misses that cost a verifier call.
        self._verified: set[tuple[str, str, str, str]] = set()
        self._sources_text = "\n\n".join(f"[{s.id}] {s.text}" for s in case.sources)

    def build(
        self,
        text: str,
        *,
        parent: Candidate | None,
        origin: Origin,
        operation: str | None,
        rewritten: Mapping[str, str] | None = None,
        fresh: bool = False,
        model_record: ModelCallRecord | None = None,
    ) -> tuple[Candidate, Outcome | None]:
        """The candidate for `text`, verified and judged, and the budget's stop when a budget cut that short."""
        disclosures = self._constitution.disclosures()
        extraction = extract(text, self._case.question, [source.text for source in self._case.sources])
        found = [c for c in extraction.claims if c.text.strip() not in disclosures]
        if parent is None:
            self._notes.extend(_claim_notes(extraction, found))
        named = self._name_claims(found, None if fresh else parent, rewritten or {})
        # A regenerated answer is verified from scratch: nothing of the failed chain is reused.
        verdicts, stop = self._verify(named, fresh=fresh, partial=parent is None)
        claims = [_claim_record(claim, verdict) for claim, verdict in zip(named, verdicts, strict=True)]
        earlier = [c for candidate in self._chain for c in candidate.claims]
        # Judged rules and the critic use the model only while the budgets can pay for it: once one has
        # run out, the run stops here and the rest is judged offline for the record.
        judged_rules = sum(isinstance(rule, JudgedRule) for rule in self._constitution.rules)
        stop = stop or self._budget.model_stop(MAX_ATTEMPTS * judged_rules if self._model is not None else 0)
        judgement = judge(
            self._constitution, text=text, claims=claims, earlier_claims=earlier,
            question=self._case.question, sources_text=self._sources_text, model=None if stop else self._model,
        )
        self._budget.model_calls += judgement.model_calls
        self._budget.model_tokens += sum(record.tokens for record in judgement.records)
        stop = stop or self._budget.model_stop(MAX_ATTEMPTS if self._model is not None else 0)
        review = critique(
            question=self._case.question, sources=self._case.sources, draft=text, claims=claims,
            rule_verdicts=judgement.verdicts, rule_problems=self._constitution.rule_problems(),
            model=None if stop else self._model, rubric=self._critic_rubric,
        )
        if review.model_record is not None:
            self._budget.model_calls += review.model_record.attempts
            self._budget.model_tokens += review.model_record.tokens
        if stop is not None and self._model is not None:
            self._notes.append(
                f"c{len(self._chain)}: {stop.budget_reason}; its rules and critic were judged without the model"
            )
        candidate = Candidate(
            id=f"c{len(self._chain)}",
            parent=parent.id if parent else None,
            origin=origin,
            text=text,
            sha256=sha256_text(text),
            claims=claims,
            rule_verdicts=list(judgement.verdicts),
            findings=list(review.findings),
            operation=operation,
            model_record=model_record,
            judge_records=[*judgement.records, *([review.model_record] if review.model_record else [])],
        )
        return candidate, stop

    def _verify(
        self, claims: Sequence[ExtractedClaim], *, fresh: bool, partial: bool
    ) -> tuple[list[Verdict], Outcome | None]:
        """One verdict per claim, and the budget's stop if one ran out; cache misses reach the verifier only
        as far as the budgets go, and a claim they could not cover is UNRESOLVED.

        `partial` verifies what the budgets allow (the first candidate: a reviewer sees what was checked);
        without it nothing is verified unless every miss fits, since a repair verified in part is discarded.
        """
        budget = self._budget
        verdicts: list[Verdict | None] = [None] * len(claims)
        pending = [i for i, c in enumerate(claims) if fresh or self._cache.key(c) not in self._verified]
        hits = sorted(set(range(len(claims))) - set(pending))
        if hits:
            cached, _ = self._cache.verify([claims[i] for i in hits])
            verdicts = _placed(verdicts, hits, cached)
            self.cache_hits += len(hits)
        stop = None
        left = budget.policy.max_verifier_calls - budget.verifier_calls
        if not partial and len(pending) > left:
            stop = exhausted(Reason.VERIFIER_BUDGET_EXHAUSTED,
                             f"{len(pending)} claims to verify, {max(0, left)} of {budget.policy.max_verifier_calls} "
                             "verifier calls left")
        while pending and stop is None:
            affordable, stop = budget.affordable(len(pending), _model_calls_per_claim(self._verifier))
            if stop is not None:
                break
            batch, pending = pending[:affordable], pending[affordable:]
            done, fresh_verdicts = self._cache.verify([claims[i] for i in batch], use_cache=not fresh)
            verdicts = _placed(verdicts, batch, done)
            budget.verifier_calls += len(fresh_verdicts)
            self.cache_hits += len(batch) - len(fresh_verdicts)
            budget.model_calls += sum(_model_calls(verdict) for verdict in fresh_verdicts)
            budget.model_tokens += sum(_model_tokens(verdict) for verdict in fresh_verdicts)
            self._verified.update(self._cache.key(claims[i]) for i in batch)
        if pending and stop is not None:
            verdicts = _placed(verdicts, pending, [unverified(stop)] * len(pending))
        return [verdict for verdict in verdicts if verdict is not None], stop

    def _name_claims(
        self, extracted: Sequence[ExtractedClaim], parent: Candidate | None, rewritten: Mapping[str, str]
    ) -> list[ExtractedClaim]:
        """Give each claim its id across versions: unchanged keeps it, rewritten keeps it, new gets a new one."""
        if parent is None and not self._chain:
            self._claim_numbers = max([self._claim_numbers, *(_number(c.id) for c in extracted)])
            return list(extracted)
        available = {c.id: c for c in parent.claims} if parent else {}
        by_rewrite = {" ".join(text.split()): claim_id for claim_id, text in rewritten.items()}
        names: list[str | None] = [None] * len(extracted)
        matchers = (
            lambda claim, old: claim.text == old.text,
            lambda claim, old: claim_core(claim.text) == claim_core(old.text),
            lambda claim, old: by_rewrite.get(" ".join(claim.text.split())) == old.id,
            lambda claim, old: _overlap(claim.text, old.text) >= 0.6,
        )
        for matches in matchers:
            for index, claim in enumerate(extracted):
                if names[index] is not None:
                    continue
                found = next((old for old in available.values() if matches(claim, old)), None)
                if found is not None:
                    names[index] = found.id
                    del available[found.id]
        named = []
        for claim, name in zip(extracted, names, strict=True):
            if name is None:
                self._claim_numbers += 1
                name = f"k{self._claim_numbers}"
            named.append(replace(claim, id=name))
        return named


def _placed(verdicts: list[Verdict | None], positions: Sequence[int], found: Sequence[Verdict]) -> list[Verdict | None]:
    placed = list(verdicts)
    for position, verdict in zip(positions, found, strict=True):
        placed[position] = verdict
    return placed


def _model_calls_per_claim(verifier: Verifier) -> int:
    """The most model calls verifying one claim can take: each role call may be retried."""
    if isinstance(verifier, CascadeVerifier):
        return _model_calls_per_claim(verifier.model)  # at worst every claim is in the uncertain band
    if isinstance(verifier, ModelVerifier):
        return MAX_ATTEMPTS * (2 if verifier.write_questions else 1)
    return 0


def _overlap(a: str, b: str) -> float:
    left, right = set(content_stems(a)), set(content_stems(b))
    return len(left & right) / len(left | right) if left | right else 0.0


def _number(claim_id: str) -> int:
    digits = claim_id.lstrip("k")
    return int(digits) if digits.isdigit() else 0


def _claim_record(claim: ExtractedClaim, verdict: Verdict) -> Claim:
    source = verdict.extra.get("question_source")
    return Claim(
        id=claim.id,
        text=claim.text,
        start=claim.start,
        end=claim.end,
        state=verdict.state,
        severity=claim.severity,
        question=verdict.question,
        evidence=list(verdict.evidence),
        method=verdict.method,
        confidence=verdict.confidence,
        release_score=None if verdict.release_score is None else min(1.0, max(0.0, verdict.release_score)),
        commitments=list(claim.commitments),
        rationale=verdict.rationale,
        model_record=verdict.model_record,
        question_source=str(source) if source is not None else None,
        decided_by=verdict.decided_by,
        escalation=verdict.escalation,
        stratum=verdict.stratum,
        alignment=_alignment(verdict),
        language=claim.language,
    )


def _alignment(verdict: Verdict) -> list[AlignedWord]:
    """The words a proof aligned (`checks/proof/` keeps them in the verdict's details); none otherwise."""
    found = verdict.extra.get("alignment")
    return [word for word in found if isinstance(word, AlignedWord)] if isinstance(found, list) else []


def _model_calls(verdict: Verdict) -> int:
    # A verifier that makes more than one call per claim (a question writer, then the verifier)
    # reports the total in `extra`; otherwise the record of the deciding call says it.
    calls = verdict.extra.get("model_calls")
    if isinstance(calls, int):
        return calls
    return verdict.model_record.attempts if verdict.model_record else 0


def _model_tokens(verdict: Verdict) -> int:
    # As `_model_calls`: the question writer's tokens beside the verifier's, where a verifier reports them.
    tokens = verdict.extra.get("model_tokens")
    if isinstance(tokens, int):
        return tokens
    return verdict.model_record.tokens if verdict.model_record else 0


def _claim_notes(extraction: Extraction, claims: Sequence[ExtractedClaim]) -> list[str]:
    notes = []
    if not claims:
        notes.append("the answer has no checkable claim: nothing in it can be checked against the sources")
    if extraction.left_out:
        listed = "; ".join(f"{sentence.text!r} ({sentence.kind})" for sentence in extraction.left_out)
        notes.append(f"not factual, left out of the claims: {listed}")
    return notes
