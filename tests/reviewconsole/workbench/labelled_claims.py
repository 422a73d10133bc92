"""Labelled claims written as the engine and reviewers would have left them, without running the engine: a
case pinned to a constitution, its sources as submitted, the client's answer with its claims as the engine
extracts them, and reviewers' labels of those claims."""

from __future__ import annotations

import hashlib

from django.contrib.auth.models import User

from reviewconsole.intake.models import Candidate, Case, CaseStatus, Claim, Client, Source
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.review.models import ClaimLabel
from verification.training import extract_claims

S, R, N = "SUPPORTED", "REFUTED", "NOT_IN_SOURCES"
QUESTION = "What should I know about the Arden 14?"
SOURCES = (
    ("spec", "The Arden 14 weighs 1.2 kg. The Arden 14's battery lasts up to 9 hours. "
             "The Arden 14 ships with a 65 W charger."),
    ("faq", "Birchwood Laptops makes the Arden 14. The warranty of the Arden 14 covers two years of repairs. "
            "Shipping within the EU is free."),
)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def labelled_case(
    client: Client, answer: str, *, question: str = QUESTION, constitution: str = "customer-support",
    sources: tuple[tuple[str, str], ...] = SOURCES,
) -> Case:
    """A case of `constitution` (pinned to its version in force) with `sources` and `answer`, whose claims are
    the engine's extraction of the answer; nobody has labelled them yet."""
    pin = constitution_in_force(constitution)
    assert pin is not None, constitution
    case = Case.objects.create(
        client=client, question=question, answer=answer, status=CaseStatus.ESCALATED, constitution_name=constitution,
        constitution_pin=pin, constitution_version=pin.short_sha, verifier="offline/test",
        run_record={"verifier": "offline/test"},
    )
    for position, (source_id, text) in enumerate(sources):
        Source.objects.create(case=case, position=position, source_id=source_id, text=text, sha256=_sha(text))
    candidate = Candidate.objects.create(case=case, position=0, candidate_id="c0", origin="CLIENT", text=answer,
                                         sha256=_sha(answer))
    for position, claim in enumerate(extract_claims(answer, question)):
        Claim.objects.create(candidate=candidate, position=position, claim_id=claim.id, text=claim.text,
                             start=claim.start, end=claim.end, state="SUPPORTED", severity="MINOR", method="offline",
                             confidence=0.9, release_score=0.9)
    return case


def claims_of(case: Case) -> list[Claim]:
    return list(Claim.objects.filter(candidate__case=case, candidate__position=0).order_by("position"))


def label(claim: Claim, *given: tuple[User, str]) -> None:
    """Each (reviewer, label) as the case page saves it."""
    for reviewer, kind in given:
        ClaimLabel.objects.create(claim=claim, case=claim.candidate.case, reviewer=reviewer, label=kind)


PRODUCTS = ["Arden", "Birch", "Cedar", "Dune", "Elm", "Fern", "Grove", "Heath", "Iris", "Juniper", "Kestrel", "Larch",
            "Maple", "Nettle", "Oak", "Pine", "Quill", "Rowan", "Sage", "Thistle", "Umber", "Vale", "Willow",
            "Yarrow", "Zinnia", "Alder", "Bracken", "Clover", "Dahlia", "Ember", "Flint", "Garnet", "Hazel",
            "Indigo", "Jasper", "Kelp", "Lupin", "Myrtle", "Nutmeg", "Olive"]


def labelled_corpus(client: Client, reviewer: User, *, constitution: str = "customer-support") -> list[Case]:
    """Enough labelled cases for a retraining run: one per product, two claims each, the second refuted in
    every other answer."""
    cases = []
    for index, name in enumerate(PRODUCTS):
        hours = 8 + index % 6
        source = f"The {name} 14 weighs 1.{index % 9} kg. The {name} 14's battery lasts up to {hours} hours."
        wrong = index % 2 == 1
        answer = (f"The {name} 14 weighs 1.{index % 9} kg. "
                  f"The {name} 14's battery lasts up to {hours + 5 if wrong else hours} hours.")
        case = labelled_case(client, answer, question=f"What should I know about the {name} 14?",
                             constitution=constitution, sources=(("spec", source),))
        first, second = claims_of(case)
        label(first, (reviewer, S))
        label(second, (reviewer, R if wrong else S))
        cases.append(case)
    return cases


LAPTOPS = ["Arden 14", "Birch 13", "Cedar 15", "Dune 16", "Elm 12", "Fern 14", "Grove 13", "Heath 15", "Iris 16",
            "Juniper 12", "Kestrel 14", "Larch 13", "Maple 15", "Nettle 16", "Oak 12", "Pine 14", "Quill 13",
            "Rowan 15", "Sage 16", "Thistle 12", "Umber 14", "Vale 13", "Willow 15", "Yarrow 16", "Zinnia 12",
            "Alder 14", "Bracken 13", "Clover 15", "Dahlia 16", "Ember 12", "Flint 14", "Garnet 13", "Hazel 15",
            "Indigo 16", "Jasper 12", "Kelp 14", "Lupin 13", "Myrtle 15", "Nutmeg 16", "Olive 12", "Poppy 14",
            "Quartz 13", "Raven 14", "Spruce 13", "Tansy 15", "Ursa 16", "Violet 12"]


def _laptop(index: int, name: str) -> tuple[str, str, list[tuple[str, str]]]:
    """(source, answer, [(claim, label)]): two of three answers carry a claim the source refutes or lacks."""
    weight, hours, watts = 1.0 + index / 10, 8 + index % 12, 45 + 5 * (index % 5)
    source = (f"The {name} weighs {weight:.1f} kg. The {name}'s battery lasts up to {hours} hours. "
              f"The {name} ships with a {watts} W charger. The warranty of the {name} covers two years of repairs.")
    first = (f"The {name} weighs {weight:.1f} kg.", S)
    kind = index % 3
    if kind == 0:
        second = (f"The {name} ships with a {watts} W charger.", S)
    elif kind == 1:
        second = (f"The {name}'s battery lasts up to {hours + 7} hours.", R)
    else:
        second = (f"The {name} is waterproof to a depth of ten metres.", N)
    return source, f"{first[0]} {second[0]}", [first, second]


CORPUS = [_laptop(index, name) for index, name in enumerate(LAPTOPS)]
"""(source, answer, [(claim, label)]) per laptop: enough for a retraining run that can be compared and calibrated
at a budget of 50% (five inconsistent answers and more in the held-out slice)."""
QUESTION_ABOUT_LAPTOPS = "What should I know about this laptop?"


def laptop_cases(client: Client, reviewer: User, *, constitution: str, count: int | None = None) -> list[Case]:
    """The first `count` laptops of CORPUS as cases of `constitution`, every claim labelled by `reviewer`."""
    cases = []
    for source, answer, truth in CORPUS[:count]:
        case = labelled_case(client, answer, question=QUESTION_ABOUT_LAPTOPS, constitution=constitution,
                             sources=(("spec", source),))
        labels = dict(truth)
        for claim in claims_of(case):
            label(claim, (reviewer, labels[claim.text]))
        cases.append(case)
    return cases
