"""Reviewers' error tags: which kinds of error a case offers (the taxonomy of the constitution version it
pinned), and the tags on its claims and answer as one viewer sees them. Writes are services/error_tags.py.

While a case is open each reviewer sees only their own tags (another's would sway them, as labels would);
once it is decided everyone sees all of them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import User

from reviewconsole.intake.models import Case
from reviewconsole.review.models import ErrorTag, Escalation, EscalationStatus
from verification import DEFAULT_CONSTITUTION, Constitution
from verification.policy.constitution import ErrorKind

MAX_KEYED_KINDS = 9
"""Kinds past the ninth have no digit key: the page still offers them as buttons."""


def case_taxonomy(case: Case) -> tuple[ErrorKind, ...]:
    """The kinds a reviewer may tag this case with: its pinned version's, else the default constitution's."""
    pin = case.constitution_pin
    constitution = Constitution.model_validate(pin.content) if pin is not None else DEFAULT_CONSTITUTION
    return constitution.taxonomy


@dataclass(frozen=True)
class TagChoice:
    code: str
    label: str
    key: str
    """The digit that toggles it in the open menu ("" past the ninth kind)."""
    chosen: bool


@dataclass(frozen=True)
class TagCell:
    """The tags of one claim (or, with `claim_pk` None, of the answer) as the case page shows them."""

    case_id: int
    candidate_pk: int
    claim_pk: int | None
    anchor: str
    mine: list[ErrorTag]
    others: list[ErrorTag]
    choices: list[TagChoice]
    can_tag: bool
    error: str = ""


def tags_of(case_id: int) -> list[ErrorTag]:
    return list(ErrorTag.objects.filter(case_id=case_id).select_related("reviewer"))


def tag_cells(*, escalation: Escalation, candidate_pk: int, claims: list[tuple[int, str]], viewer: User | None,
              can_tag: bool, tags: list[ErrorTag], taxonomy: tuple[ErrorKind, ...]) -> dict[int | None, TagCell]:
    """One cell per (claim pk, anchor) of `claims`, and one for the answer under the key None."""
    show_others = escalation.status != EscalationStatus.OPEN
    grouped: dict[int | None, list[ErrorTag]] = defaultdict(list)
    for tag in tags:
        if tag.claim_id is not None or tag.candidate_id == candidate_pk:
            grouped[tag.claim_id].append(tag)
    cells = {}
    for claim_pk, anchor in [*claims, (None, "answer")]:
        found = grouped.get(claim_pk, [])
        mine = [tag for tag in found if viewer is not None and tag.reviewer_id == viewer.pk]
        chosen = {tag.kind for tag in mine}
        cells[claim_pk] = TagCell(
            case_id=escalation.case_id, candidate_pk=candidate_pk, claim_pk=claim_pk, anchor=anchor, mine=mine,
            others=[tag for tag in found if tag not in mine] if show_others else [],
            choices=[TagChoice(kind.code, kind.label, str(number) if number <= MAX_KEYED_KINDS else "",
                               kind.code in chosen) for number, kind in enumerate(taxonomy, start=1)],
            can_tag=can_tag,
        )
    return cells
