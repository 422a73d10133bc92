"""The cases the drills submit: bodies in the case contract, each with an external id of its own."""

from __future__ import annotations

import itertools
import secrets
from typing import Any

REFUND_POLICY = (
    "Annual plans can be refunded in full within 30 days of purchase. "
    "Approved refunds are returned to the original payment method within 5 to 10 business days. "
    "Monthly plans are not refundable. Refund requests are made from the billing page of the account. "
    "A refund cancels the plan at the end of the day it is approved. "
    "Gift cards and vouchers are never refunded in cash. "
    "Partial refunds are not given for unused months of a monthly plan."
)
# One supported claim and one critical claim the policy refutes: the engine escalates it (REVIEW) for a person.
ESCALATING_ANSWER = (
    "You can request a full refund within 60 days of purchase. "
    "Approved refunds are returned to the original payment method within 5 to 10 business days."
)
# Every claim grounded in the policy: released (PERMIT), or a spot check now and then.
RELEASED_ANSWER = "Annual plans can be refunded in full within 30 days of purchase."
# What a reviewer writes instead of the escalated answer (and of the engine's repair of it).
EDITED_ANSWER = (
    "Annual plans are refundable in full for 30 days after purchase. "
    "Approved refunds go back to the original payment method within 5 to 10 business days."
)

_RUN = secrets.token_hex(3)
_numbers = itertools.count(1)


def external_id(drill: str) -> str:
    """Unique within the run, and readable in the logs: `<drill>-<run>-<n>`."""
    return f"{id_prefix(drill)}{next(_numbers)}"


def id_prefix(drill: str) -> str:
    """What every external id of the drill's cases starts with."""
    return f"{drill}-{_RUN}-"


def case_body(drill: str, *, escalating: bool = True, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "external_id": external_id(drill),
        "question": "Can I get a refund on my annual plan? I bought it 40 days ago.",
        "answer": ESCALATING_ANSWER if escalating else RELEASED_ANSWER,
        "sources": [{"id": "refund-policy", "title": "Refund policy", "uri": "https://example.com/refunds",
                     "text": REFUND_POLICY}],
        "metadata": {"drill": drill},
    }
    body.update(overrides)
    return body
