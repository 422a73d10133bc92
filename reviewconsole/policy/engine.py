"""The engine as the console configures it: the offline verifier, or a model when one is set.

Every process imports this module (intake's services run the engine); few run the engine. So the engine
itself (retrieval, the checks, numpy, the scorer's model runtime) is imported by the first call that
builds a verifier or runs a case, not here: a web worker that only stores cases and reads run records
never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from reviewconsole.policy.scorer_models import model_folder
from reviewconsole.policy.selectors import critic_rubric_for
from verification import Case, Constitution, ModelUnavailable, RunRecord

if TYPE_CHECKING:
    from verification import OpenAIChatModel, Verifier


def configured_model() -> OpenAIChatModel | None:
    if not settings.LLM_BASE_URL:
        return None
    if not settings.LLM_MODEL:
        # Settings refuse this at start-up; said again here for settings changed after it.
        raise ImproperlyConfigured("LLM_MODEL must be set when LLM_BASE_URL is")
    from verification import OpenAIChatModel

    return OpenAIChatModel(
        base_url=settings.LLM_BASE_URL,
        api_key=settings.LLM_API_KEY,
        model=settings.LLM_MODEL,
        timeout=settings.LLM_TIMEOUT_SECONDS,
    )


def configured_verifier(scorer_model: str | None = None) -> Verifier:
    """The verifier the console runs: the offline verifier with the scorer VERIFICATION_SCORER names (or,
    for a constitution that pins a promoted scorer model, the learned scorer with that model), and with a
    model endpoint the cascade of it and the model, which each run binds to its constitution."""
    from verification import default_verifier, learned_scorer

    if scorer_model is not None:
        return default_verifier(configured_model(), scorer=learned_scorer(model_folder(scorer_model)))
    return default_verifier(configured_model(), scorer=settings.VERIFICATION_SCORER)


def load_scorer() -> None:
    """Load the learned scorer's model now, at start-up, so a missing or corrupt file stops the process
    with one line naming it rather than failing the first case. A model endpoint does not spare it: the
    offline verifier reads every claim first (the cascade)."""
    if settings.VERIFICATION_SCORER != "learned":
        return
    from verification import make_scorer

    try:
        make_scorer("learned")
    except ModelUnavailable as error:
        raise SystemExit(f"error: {error} (set VERIFICATION_SCORER=rules to run without it)") from None


def run_engine(case: Case, *, constitution: Constitution | None = None, repair: str = "auto") -> RunRecord:
    """Check `case` under `constitution` (the version the case pinned, or a draft an admin is trying),
    with the critic rubric published for that constitution; `repair="none"` checks the text as written."""
    from verification import check_case

    name = constitution.name if constitution is not None else (case.constitution or "default")
    # A constitution pins the scorer model its calibration was made for (a promoted version); built-ins pin none.
    pinned = constitution.policy.scorer_model if constitution is not None else None
    return check_case(
        case, verifier=configured_verifier(pinned), model=configured_model(), constitution=constitution, repair=repair,
        critic_rubric=critic_rubric_for(name),
    )
