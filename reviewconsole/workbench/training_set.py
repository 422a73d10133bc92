"""Reviewers' claim labels as training pairs for the learned scorer: (window, claim, label), per constitution.

Each labelled claim becomes one pair: the claim (with the question it answers, where it is a bare answer)
against the window the engine's retrieval selects for it from the case's sources as they were submitted,
the very pair the scorer read when it judged the claim. Its label is settled thus:
- one reviewer, or several who agree: their label;
- reviewers who disagree: the label of the review lead who adjudicated the case, when that lead labelled the
  claim; else the pair is left out (counted as disputed), never settled by whoever labelled last.
SUPPORTED is 1; refuted and not in the sources are 0.

Tenants: a pair from one client's case trains a model for a constitution only when that client is the
only one whose cases the constitution judges, or when a team admin let the client share its labels
(`Client.labels_shared`). The other pairs are counted as kept to their client.

The cases fall in three slices by what the client submitted (`verification.training.slice_of`): held out (30%: no
run trains on them; old and new models are compared on them), the stack's (a quarter of the rest: they fit
the new model's stack, not its network) and the network's.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from reviewconsole.intake.models import Candidate, Case, Claim, Client, Source
from reviewconsole.review.models import ClaimLabel, ClaimLabelKind, Decision, ErrorTag
from reviewconsole.workbench.labelled_answers import cases_of
from verification import types as contract
from verification.training import LabelledClaim, Pair, SourceIndex, extract_claims, hypothesis, slice_of, window_text

WINDOW_SENTENCES = 3
"""Sentences retrieval selects for a claim: as many as the verifier selects (and the trainer's own pairs)."""


def held_out(question: str, answer: str | None) -> bool:
    """Whether a case's labels are in the held-out slice, by what the client submitted."""
    return slice_of(question, answer or "") == "held_out"


@dataclass(frozen=True)
class TrainingPair:
    """One labelled claim, ready to train on or to compare models on."""

    case_id: int
    client: str
    candidate: str
    """The candidate's id within its run ("c0")."""
    claim_id: str
    claim: str
    context: str
    """The question, where the claim is a bare answer to it."""
    window: str
    """What the scorer reads the claim against: the sentences retrieval selects from the sources."""
    label: str
    """The settled label (SUPPORTED, REFUTED, NOT_IN_SOURCES)."""
    settled_by: str
    """"one reviewer", "reviewers agreed" or "adjudicated"."""
    sources: tuple[contract.Source, ...]
    """The sources as submitted: the snapshot the claim was judged against."""
    held_out: bool
    stack: bool = False
    """Fits the retrained model's stack, not its network."""
    error_kinds: tuple[str, ...] = ()
    """The kinds of error reviewers tagged on the claim (codes of the constitution's taxonomy), sorted."""

    @property
    def supported(self) -> bool:
        return self.label == ClaimLabelKind.SUPPORTED

    @property
    def sources_sha256(self) -> str:
        canonical = json.dumps([[source.id, source.text] for source in self.sources], ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def pair(self, origin: str) -> Pair:
        """The trainer's pair."""
        return Pair(self.window, hypothesis(self.claim, self.context), int(self.supported), origin)

    def labelled_claim(self) -> LabelledClaim:
        """The comparison's claim: verified again under each model."""
        return LabelledClaim(answer=f"case {self.case_id} {self.candidate}", text=self.claim, context=self.context,
                             sources=self.sources, supported=self.supported)

    def as_json(self) -> dict[str, object]:
        return {
            "case": self.case_id, "client": self.client, "candidate": self.candidate, "claim_id": self.claim_id,
            "claim": self.claim, "question": self.context, "window": self.window, "label": int(self.supported),
            "label_kind": self.label, "settled_by": self.settled_by, "held_out": self.held_out, "stack": self.stack,
            "sources_sha256": self.sources_sha256, "error_kinds": list(self.error_kinds),
            "sources": [{"id": source.id, "text": source.text} for source in self.sources],
        }


@dataclass(frozen=True)
class TrainingSet:
    """One constitution's training pairs, and what was left out and why."""

    constitution: str
    pairs: tuple[TrainingPair, ...]
    disputed: int
    """Claims reviewers disagree on that no adjudicating lead labelled."""
    kept_to_client: dict[str, int] = field(default_factory=dict)
    """Per client: labelled claims left out because the client does not share its labels and the
    constitution judges other clients' cases too."""
    clients: tuple[int, ...] = ()
    """The clients whose pairs are in."""

    @property
    def training(self) -> list[TrainingPair]:
        """What a run learns from: the network's pairs and the stack's."""
        return [pair for pair in self.pairs if not pair.held_out]

    @property
    def network(self) -> list[TrainingPair]:
        return [pair for pair in self.pairs if not pair.held_out and not pair.stack]

    @property
    def stack(self) -> list[TrainingPair]:
        return [pair for pair in self.pairs if pair.stack]

    @property
    def held_out(self) -> list[TrainingPair]:
        return [pair for pair in self.pairs if pair.held_out]

    def counts(self) -> dict[str, object]:
        """Pairs by slice and label, and what was left out: for the page and the run's record."""
        def by_label(pairs: Iterable[TrainingPair]) -> dict[str, int]:
            found = Counter("supported" if pair.supported else "not_supported" for pair in pairs)
            return {"supported": found["supported"], "not_supported": found["not_supported"]}

        return {"pairs": len(self.pairs), "training": by_label(self.training), "held_out": by_label(self.held_out),
                "stack": by_label(self.stack),
                "disputed": self.disputed, "kept_to_client": dict(self.kept_to_client),
                "adjudicated": sum(pair.settled_by == "adjudicated" for pair in self.pairs)}


def clients_of(constitution: str) -> set[int]:
    """The clients whose cases the constitution has judged."""
    return set(Case.objects.filter(cases_of(constitution)).values_list("client_id", flat=True).distinct())


def may_train_for(client_ids: Iterable[int], constitution: str) -> list[str]:
    """The clients among `client_ids` whose labels may not train a model for `constitution` (by name): they
    do not share their labels, and the constitution judges other clients' cases too. Empty: all may."""
    serving = clients_of(constitution)
    refused = []
    for client in Client.objects.filter(pk__in=list(client_ids)).order_by("name"):
        if not client.labels_shared and serving - {client.pk}:
            refused.append(client.name)
    return refused


def training_set(*, constitution: str) -> TrainingSet:
    """Every settled claim label of the constitution's cases, as training pairs."""
    cases = Case.objects.filter(cases_of(constitution))
    given: dict[int, dict[int, str]] = defaultdict(dict)
    for claim_pk, reviewer_id, given_label in ClaimLabel.objects.filter(case__in=cases).values_list(
        "claim_id", "reviewer_id", "label"
    ):
        given[claim_pk][reviewer_id] = given_label
    adjudicators: dict[int, int] = {}
    for case_id, reviewer_id in Decision.objects.filter(case__in=cases, adjudicated=True).order_by(
        "created_at", "pk"
    ).values_list("case_id", "reviewer_id"):
        adjudicators[case_id] = reviewer_id  # the latest adjudication stands
    kinds_of: dict[int, set[str]] = defaultdict(set)
    for claim_pk, kind in ErrorTag.objects.filter(claim_id__in=given.keys()).values_list("claim_id", "kind"):
        kinds_of[claim_pk].add(kind)
    rows = (
        Claim.objects.filter(pk__in=given.keys())
        .order_by("candidate__case_id", "candidate_id", "position")
        .values_list("pk", "claim_id", "text", "candidate_id")
    )
    claims_of: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
    for pk, claim_id, text, candidate_pk in rows:
        claims_of[candidate_pk].append((pk, claim_id, text))
    candidates = Candidate.objects.filter(pk__in=claims_of.keys()).select_related("case", "case__client")
    serving = clients_of(constitution)
    sources_of = _sources(candidates.values_list("case_id", flat=True))
    pairs: list[TrainingPair] = []
    disputed = 0
    kept: Counter[str] = Counter()
    clients: set[int] = set()
    for candidate in candidates.order_by("case_id", "position"):
        case = candidate.case
        client = case.client
        sources = sources_of.get(case.pk, ())
        if not sources:
            continue
        shared = client.labels_shared or not (serving - {client.pk})
        contexts = {claim.text: claim.context for claim in extract_claims(candidate.text, case.question)}
        index: SourceIndex | None = None
        for pk, claim_id, text in claims_of[candidate.pk]:
            settled, settled_by = _settled(given[pk], adjudicators.get(case.pk))
            if settled is None:
                disputed += 1
                continue
            if not shared:
                kept[client.name] += 1
                continue
            index = index or SourceIndex(sources)
            part = slice_of(case.question, case.answer or "")
            context = contexts.get(text, "")
            hits = index.select(text, WINDOW_SENTENCES)
            pairs.append(TrainingPair(
                case_id=case.pk, client=client.name, candidate=candidate.candidate_id, claim_id=claim_id, claim=text,
                context=context, window=window_text(hits) if hits else "", label=settled, settled_by=settled_by,
                sources=sources, held_out=part == "held_out", stack=part == "stack",
                error_kinds=tuple(sorted(kinds_of.get(pk, ()))),
            ))
            clients.add(client.pk)
    return TrainingSet(constitution=constitution, pairs=tuple(pairs), disputed=disputed,
                       kept_to_client=dict(sorted(kept.items())), clients=tuple(sorted(clients)))


def _settled(labels: dict[int, str], adjudicator: int | None) -> tuple[str | None, str]:
    distinct = set(labels.values())
    if len(distinct) == 1:
        return next(iter(distinct)), "one reviewer" if len(labels) == 1 else "reviewers agreed"
    if adjudicator is not None and adjudicator in labels:
        return labels[adjudicator], "adjudicated"
    return None, "disputed"


def _sources(case_ids: Iterable[int]) -> dict[int, tuple[contract.Source, ...]]:
    found: dict[int, list[contract.Source]] = defaultdict(list)
    for case_id, source_id, text in Source.objects.filter(case_id__in=list(set(case_ids))).order_by(
        "case_id", "position"
    ).values_list("case_id", "source_id", "text"):
        found[case_id].append(contract.Source(id=source_id, text=text))
    return {case_id: tuple(sources) for case_id, sources in found.items()}


def jsonl_lines(pairs: Iterable[TrainingPair]) -> Iterator[str]:
    """The export: one JSON object a line (`python -m verification retrain-scorer --pairs` reads the same)."""
    for pair in pairs:
        yield json.dumps(pair.as_json(), ensure_ascii=False) + "\n"
