"""Reviewer guidelines for the demo's constitutions (`manage.py demo`), so that `g` on a demo case shows
what a policy admin would write. Saved through the guidelines service (audited) by the demo's policy admin,
only where a constitution has none: guidelines someone wrote are never replaced."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils import timezone

from reviewconsole.policy.guidelines import constitution_guidelines_set
from reviewconsole.policy.models import NamedConstitution

DEMO_POLICY_ADMIN = "policy"
"""The demo account that writes them (reviewconsole/team/demo.py makes it first)."""

DEMO_GUIDELINES: dict[str, str] = {
    "default": """\
**Approve** only what the sources say. Read each claim against its highlighted evidence, not against what you know.

- A number, date or name that differs from the source is wrong, even when it is close
  ("$230 million" against "$212.4 million").
- Two sources that disagree (an old and a new policy) are not yours to settle by guessing: reject with
  *conflicting evidence*, or edit the answer to say what each source says.
- A sentence that promises something no source mentions is removed, not softened: "may" is still a promise.

Example: "Operating margin improved to 11.2%" is supported by "Operating margin was 11.2%, compared with 9.8%".
""",
    "customer-support": """\
Customers act on what we tell them: a wrong price, deadline or fee costs them money.

- Prices, fees, allowances and deadlines must match the source exactly, unit included.
- No guarantees ("always", "never", "within 5 days") unless the source gives them in those words.
- If the sources do not answer the question, the answer must say so, and say where to ask.
- Greetings and sign-offs are fine; opinions about our products ("the best value") are removed.

Example: "We will always pay out within 5 working days" is not in the policy wording: omit it.
""",
    "medical-information": """\
Doses and warnings are critical claims: each must match the leaflet word for word.

- Check the age band, the dose, the interval and the daily maximum separately.
- Never approve a diagnosis or a recommendation to stop or change a treatment.
- Advice the leaflet does not give ("can be taken on an empty stomach") is removed, whatever its tone.
- When in doubt, reject with a note: a person asks a pharmacist, not the assistant.
""",
}


def load_demo_guidelines() -> str:
    """Give each demo constitution without guidelines the demo's; what was written, for `manage.py demo`."""
    author = get_user_model().objects.filter(username=DEMO_POLICY_ADMIN).first()
    if author is None:
        return f"no guidelines written: there is no {DEMO_POLICY_ADMIN!r} account"
    written = []
    for document in NamedConstitution.objects.filter(name__in=DEMO_GUIDELINES, guidelines=""):
        constitution_guidelines_set(document=document, text=DEMO_GUIDELINES[document.name], actor=author,
                                    now=timezone.now())
        written.append(document.name)
    return f"guidelines written for {', '.join(sorted(written))}" if written else "guidelines kept as they were"
