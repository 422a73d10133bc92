"""A critic rubric as data: the critic's instructions and fixtures whose verdict is known in advance.

Fixtures are part of the rubric's content, so a calibration result always names the exact fixtures
it was scored on: changing a fixture makes a new rubric version like any other edit.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from verification import DEFAULT_RUBRIC, CalibrationFixture, Source


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class FixtureSource(_Frozen):
    """One piece of evidence a fixture's draft is read against."""

    id: str = Field(min_length=1, max_length=200)
    """The source's id, as a case would send it."""
    text: str = Field(min_length=1)
    """The source's text."""


class RubricFixture(_Frozen):
    """A draft whose quality is known: bad ones the critic must catch, good ones it must pass."""

    name: str = Field(min_length=1, max_length=100)
    """What the fixture tests, unique within the rubric."""
    question: str = Field(min_length=1)
    """What the user asked."""
    sources: list[FixtureSource] = Field(min_length=1)
    """The only admissible evidence."""
    draft: str = Field(min_length=1)
    """The answer the critic reads."""
    bad: bool
    """True when the critic must return at least one finding."""

    def calibration_fixture(self) -> CalibrationFixture:
        sources = tuple(Source(id=source.id, text=source.text) for source in self.sources)
        return CalibrationFixture(self.name, self.question, sources, self.draft, bad=self.bad)


class RubricContent(_Frozen):
    """What a rubric version holds."""

    description: str = ""
    """What the rubric is for."""
    instructions: str = Field(min_length=1)
    """The critic's rubric: the defect kinds it looks for and its permission to fail a draft."""
    constitution: str = Field(default="default", min_length=1, max_length=100)
    """The constitution the critic judges rules under; its published version is used."""
    fixtures: list[RubricFixture] = Field(min_length=1)
    """Known-bad and known-good drafts."""

    @model_validator(mode="after")
    def _fixtures_can_score(self) -> RubricContent:
        names = [fixture.name for fixture in self.fixtures]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"fixtures: duplicate fixture name {duplicates[0]!r}")
        # Without a known-bad fixture there is no catch rate: a critic that finds nothing would look perfect.
        if not any(fixture.bad for fixture in self.fixtures):
            raise ValueError("fixtures: at least one fixture must be known to be bad")
        return self


_REFUNDS = [FixtureSource(id="refund-policy", text=(
    "Annual plans can be refunded in full within 30 days of purchase. "
    "Approved refunds are returned to the original payment method within 5 to 10 business days. "
    "Account data is kept for 30 days after cancellation, then permanently deleted."
))]

BUILTIN_RUBRIC_NAME = "support-critic"

BUILTIN_RUBRIC = RubricContent(
    description="The critic of customer-support answers, calibrated on refund questions.",
    instructions=DEFAULT_RUBRIC,
    constitution="default",
    fixtures=[
        RubricFixture(name="wrong-refund-window", question="Can I get a refund on my annual plan?",
                      sources=_REFUNDS, draft="Annual plans can be refunded in full within 60 days of purchase.",
                      bad=True),
        RubricFixture(name="wrong-retention", question="How long is my data kept after I cancel?",
                      sources=_REFUNDS, draft="Account data is kept for 90 days after cancellation.", bad=True),
        RubricFixture(name="invented-fee", question="Is there a cancellation fee?", sources=_REFUNDS,
                      draft="A cancellation fee of $50 applies to annual plans.", bad=True),
        RubricFixture(name="faithful-refund", question="Can I get a refund on my annual plan?", sources=_REFUNDS,
                      draft="Annual plans can be refunded in full within 30 days of purchase.", bad=False),
        RubricFixture(name="faithful-timing", question="How long do refunds take?", sources=_REFUNDS,
                      draft="Approved refunds are returned to the original payment method within 5 to 10 business "
                            "days.", bad=False),
    ],
)
