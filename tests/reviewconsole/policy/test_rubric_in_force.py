"""Cases are critiqued under the critic rubric published for their constitution."""

from __future__ import annotations

from django.utils import timezone

from reviewconsole.policy import engine as policy_engine
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC, BUILTIN_RUBRIC_NAME
from reviewconsole.policy.selectors import critic_rubric_for
from reviewconsole.policy.services import rubric_draft_save, version_publish
from verification import Case, Source
from verification.llm.critic import DEFAULT_RUBRIC

STRICT = "Rubric: flag every sentence that promises a refund. Failing the draft is expected."


def _publish(policy_admin, name: str, instructions: str, constitution: str = "default"):
    content = BUILTIN_RUBRIC.model_copy(update={"instructions": instructions, "constitution": constitution})
    draft = rubric_draft_save(name=name, rubric=content, author=policy_admin)
    return version_publish(version=draft, actor=policy_admin, now=timezone.now())


def test_the_last_published_rubric_for_a_constitution_is_in_force(policy_admin):
    assert critic_rubric_for("default") == DEFAULT_RUBRIC  # the seeded built-in rubric
    _publish(policy_admin, "refund-critic", STRICT)
    rubric_draft_save(name="refund-critic", rubric=BUILTIN_RUBRIC.model_copy(update={"instructions": "draft"}),
                      author=policy_admin)

    assert critic_rubric_for("default") == STRICT  # the draft is not in force
    assert critic_rubric_for("medical-information") is None
    assert BUILTIN_RUBRIC_NAME != "refund-critic"


def test_the_engine_runs_with_the_rubric_in_force(policy_admin, monkeypatch):
    _publish(policy_admin, "refund-critic", STRICT)
    seen = {}

    def engine(case, **options):
        seen.update(options)
        return "record"

    # The console reads the engine when a run starts (policy/engine.py), so the engine's own name is patched.
    monkeypatch.setattr("verification.check_case", engine)
    case = Case(question="Refund?", answer="Yes.", sources=[Source(id="s", text="Refunds within 30 days.")])

    assert policy_engine.run_engine(case) == "record"
    assert seen["critic_rubric"] == STRICT
