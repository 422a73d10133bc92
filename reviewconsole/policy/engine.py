"""The engine as the console configures it: the offline verifier, or a model when one is set."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from reviewconsole.policy.selectors import critic_rubric_for
from verification import Case, Constitution, OpenAIChatModel, RunRecord, check_case


def configured_model() -> OpenAIChatModel | None:
    if not settings.LLM_BASE_URL:
        return None
    if not settings.LLM_MODEL:
        # Settings refuse this at start-up; said again here for settings changed after it.
        raise ImproperlyConfigured("LLM_MODEL must be set when LLM_BASE_URL is")
    return OpenAIChatModel(
        base_url=settings.LLM_BASE_URL,
        api_key=settings.LLM_API_KEY,
        model=settings.LLM_MODEL,
        timeout=settings.LLM_TIMEOUT_SECONDS,
    )


def run_engine(case: Case, *, constitution: Constitution | None = None, repair: str = "auto") -> RunRecord:
    """Check `case` under `constitution` (the version the case pinned, or a draft an admin is trying),
    with the critic rubric published for that constitution; `repair="none"` checks the text as written."""
    name = constitution.name if constitution is not None else (case.constitution or "default")
    return check_case(
        case, model=configured_model(), constitution=constitution, repair=repair, critic_rubric=critic_rubric_for(name)
    )
