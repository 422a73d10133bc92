"""Reviewers' claim labels as the engine's calibration input: labelled answers, their scores, per constitution.

A labelled answer is a stored candidate every claim of which carries a human label. It is consistent
when every claim is labelled SUPPORTED, inconsistent otherwise; its score is the engine's `answer_score`
of its claims as stored, so a claim the engine did not find SUPPORTED scores 0, as it does in the gate.

Two reviewers may label one claim (double review, a lead adjudicating). Each reviewer has one label per
claim, the latest they gave (the row is updated in place). A claim counts as supported only when every
reviewer who labelled it said SUPPORTED: the budget bounds unsafe releases, so an answer one reviewer
found fault with is counted among those that must not be released rather than dropped, which would
remove exactly the hard cases from the sample, or settled by whoever labelled last. Such answers are
counted as disputed so the page can say how many there are.

Scores are only comparable under one verifier, so only answers whose run was scored by the verifier in
use count; the others are counted by verifier and excluded. A run record names its verifier with its
version ("offline/7") but not its configuration fingerprint, so a configuration change that keeps the
version cannot be told apart here.

With a model endpoint the verifier in use is the cascade's model path, calibrated on what the model
decides: an answer a cascade ran ("cascade/1") counts with the score of its claims the model decided
(`Claim.decided_by`), and not at all when the offline verifier settled every claim; an answer the model
verified claim by claim counts whole. Its label is still the whole answer's.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q

from reviewconsole.intake.models import Candidate, Case, Claim
from reviewconsole.review.models import ClaimLabel, ClaimLabelKind
from verification import DEFAULT_CONSTITUTION as DEFAULT
from verification import LabelledScores, State, Terminal, answer_score


@dataclass(frozen=True)
class LabelledAnswer:
    """One candidate whose every claim a person labelled."""

    case_id: int
    candidate: str
    """The candidate's id within its run, such as "c0"."""
    consistent: bool
    """Every claim labelled SUPPORTED by everyone who labelled it."""
    score: float
    """The engine's answer score: the weakest SUPPORTED claim's release score, 0 when a claim was not SUPPORTED."""
    disputed: bool
    """Reviewers disagreed on at least one claim (one said SUPPORTED, another did not)."""
    labelled_at: datetime | None = None
    """When its last claim got its label: when the answer joined the calibration data."""


@dataclass(frozen=True)
class ReviewerLabels:
    """The labelled answers of one constitution's cases, and what was left out and why."""

    constitution: str
    verifier: str
    """The verifier in use, by name and version as run records carry it; only its answers count."""
    answers: tuple[LabelledAnswer, ...]
    """The labelled answers scored by `verifier`: the calibration data."""
    excluded: tuple[tuple[str, int], ...]
    """(verifier, labelled answers) for the answers another verifier scored, most first."""
    partly_labelled: int
    """Candidates with some claims labelled but not all: not answers yet."""

    @property
    def group_name(self) -> str:
        """The name the calibration's provenance gives these labels."""
        return f"{self.constitution}/reviewer-labels"

    @property
    def consistent(self) -> int:
        return sum(answer.consistent for answer in self.answers)

    @property
    def inconsistent(self) -> int:
        return len(self.answers) - self.consistent

    @property
    def disputed(self) -> int:
        return sum(answer.disputed for answer in self.answers)

    @property
    def excluded_total(self) -> int:
        return sum(count for _, count in self.excluded)

    def scores(self) -> LabelledScores:
        """The engine's calibration input: one group, these labels."""
        return LabelledScores(
            name=self.group_name,
            consistent=[answer.score for answer in self.answers if answer.consistent],
            inconsistent=[answer.score for answer in self.answers if not answer.consistent],
        )


@dataclass(frozen=True)
class _StoredClaim:
    """A stored claim as the engine's `answer_score` reads it."""

    state: State
    release_score: float | None
    decided_by: str = ""


def cases_of(constitution: str) -> Q:
    """Cases judged under the named constitution: by the version they pinned, or by name for cases older
    than pinning (an unnamed one ran under the default)."""
    names = [constitution, ""] if constitution == DEFAULT.name else [constitution]
    return Q(constitution_pin__document__name=constitution) | Q(
        constitution_pin__isnull=True, constitution_name__in=names
    )


def released_by_stratum(constitution: str) -> dict[str, int]:
    """How many of the constitution's cases the engine released as written, by the stratum of the answer
    (`RunRecord.release_stratum`, what its evidence was)."""
    rows = (Case.objects.filter(cases_of(constitution), terminal=Terminal.PERMIT.value)
            .values_list("run_record__release_stratum").annotate(count=Count("pk")).order_by())
    return {str(stratum): count for stratum, count in rows if stratum}


def reviewer_labels(*, constitution: str, verifier: str, model_path: str | None = None,
                    scorer_model: str | None = None) -> ReviewerLabels:
    """The labelled answers of `constitution`'s cases; those scored by another verifier than `verifier` are
    counted and left out, as are those whose run names a scorer model other than `scorer_model` (the sha256
    of the learned scorer's model file in force: a promoted version scores differently from the model before
    it). `model_path` ("name fingerprint" of the model verifier) adds the answers a cascade ran, scored by the
    claims that model decided."""
    cases = Case.objects.filter(cases_of(constitution))
    labels: dict[int, list[str]] = defaultdict(list)
    labelled_at: dict[int, datetime] = {}
    for claim_id, label, at in ClaimLabel.objects.filter(case__in=cases).values_list("claim_id", "label",
                                                                                      "updated_at"):
        labels[claim_id].append(label)
        labelled_at[claim_id] = max(at, labelled_at.get(claim_id, at))
    labelled_candidates = Candidate.objects.filter(claims__labels__case__in=cases)
    claims: dict[int, list[tuple[int, _StoredClaim]]] = defaultdict(list)
    for pk, candidate_pk, state, release_score, decided_by in (
        Claim.objects.filter(candidate__in=labelled_candidates)
        .order_by("candidate_id", "position")
        .values_list("pk", "candidate_id", "state", "release_score", "decided_by")
    ):
        claims[candidate_pk].append((pk, _StoredClaim(State(state), release_score, decided_by)))
    candidates = (
        Candidate.objects.filter(pk__in=claims.keys())
        .order_by("case_id", "position")
        .values_list("pk", "case_id", "candidate_id", "case__verifier", "case__run_record__scorer_model")
    )
    answers: list[LabelledAnswer] = []
    excluded: Counter[str] = Counter()
    partly = 0
    for pk, case_id, candidate_id, scored_by, scored_with in candidates:
        its_claims = claims[pk]
        if not all(labels[claim_pk] for claim_pk, _ in its_claims):
            partly += 1
            continue
        scored = [claim for _, claim in its_claims]
        if model_path is not None and (scored_by or "").startswith("cascade/"):
            scored = [claim for claim in scored if claim.decided_by == model_path]
            if not scored:
                continue  # the offline verifier settled it all: nothing the model's scores can be told from
        elif scored_by != verifier:
            excluded[scored_by or "no verifier recorded"] += 1
            continue
        elif scored_with and scored_with != scorer_model:
            # Runs from before a record named its model scored with the deployment's: they count.
            excluded[f"{scored_by} with scorer model {scored_with[:12]}"] += 1
            continue
        verdicts = [labels[claim_pk] for claim_pk, _ in its_claims]
        answers.append(LabelledAnswer(
            case_id=case_id,
            candidate=candidate_id,
            consistent=all(label == ClaimLabelKind.SUPPORTED for given in verdicts for label in given),
            score=answer_score(scored),
            disputed=any(len(set(given)) > 1 and ClaimLabelKind.SUPPORTED in given for given in verdicts),
            labelled_at=max(labelled_at[claim_pk] for claim_pk, _ in its_claims),
        ))
    return ReviewerLabels(
        constitution=constitution, verifier=verifier, answers=tuple(answers),
        excluded=tuple(excluded.most_common()), partly_labelled=partly,
    )
