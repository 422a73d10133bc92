"""Policy fixtures: a signed-in policy admin, and the editor's POST body.

The built-ins need no fixture: the migrations write them, as they do for a new console.
"""

from __future__ import annotations

from typing import Any

import pytest

from verification.policy.constitution import Constitution


@pytest.fixture
def admin_client(client, policy_admin):
    client.force_login(policy_admin)
    return client


def editor_post(constitution: Constitution, **changes: str) -> dict[str, Any]:
    """The fields the editor page would send for `constitution`, with `changes` typed over them."""
    data: dict[str, Any] = {"description": constitution.description, "save": "1",
                            "rules-TOTAL_FORMS": str(len(constitution.rules)),
                            "rules-INITIAL_FORMS": str(len(constitution.rules))}
    policy = constitution.policy
    for knob, value in policy.model_dump(mode="json").items():
        if isinstance(value, list):  # needs_person and the double-review lists: one value per checkbox
            data[f"policy-{knob}"] = list(value)
        elif isinstance(value, bool):
            if value:
                data[f"policy-{knob}"] = "1"
        else:
            data[f"policy-{knob}"] = "" if value is None else str(value)
    for position, rule in enumerate(constitution.rules):
        prefix = f"rules-{position}-"
        for key, value in rule.model_dump(mode="json").items():
            if isinstance(value, bool):
                if value:
                    data[prefix + key] = "1"
            elif isinstance(value, list):
                data[prefix + key] = "\n".join(value)
            else:
                data[prefix + key] = str(value)
    data.update(changes)
    return data
