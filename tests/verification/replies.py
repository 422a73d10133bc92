"""Reading the engine's prompts the way a model would, to script believable replies in tests."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.verification.fake_openai import Received, Reply
from verification.llm.cove import QUESTION_PROMPT, VERIFY_PROMPT
from verification.llm.critic import CRITIC_PROMPT
from verification.llm.generator import GENERATE_PROMPT
from verification.llm.regeneration import REGENERATE_PROMPT
from verification.loop.judging import JUDGE_PROMPT
from verification.loop.reviser import REPAIR_PROMPT

_PASSAGE = re.compile(r"^\[(?P<source>[^\]]+)\] (?P<quote>.+)$", re.MULTILINE)


def claim_in(prompt: str) -> str:
    """The claim a question-writer or verifier prompt is about."""
    match = re.search(r"^Claim: (.+)$", prompt, re.MULTILINE)
    assert match, f"no claim in prompt: {prompt!r}"
    return match.group(1)


def passages_in(prompt: str) -> list[tuple[str, str]]:
    """(source id, text) of every passage a verifier prompt shows."""
    return [(m.group("source"), m.group("quote")) for m in _PASSAGE.finditer(prompt.split("Passages:", 1)[-1])]


def verdict_json(prompt: str, state: str = "SUPPORTED", *, quote: str | None = None) -> str:
    """A valid verifier reply quoting the first passage shown (or `quote`)."""
    source_id, first = passages_in(prompt)[0]
    answer: dict[str, Any] = {
        "state": state,
        "quotes": [{"source_id": source_id, "quote": quote if quote is not None else first}],
        "rationale": f"The passage says so: {state.lower()}.",
        "confidence": 0.9,
    }
    return json.dumps(answer)


NO_FINDINGS = '{"findings": []}'
"""A critic's reply when it finds nothing."""


def role_of(system_prompt: str) -> str:
    """Which role a request is for, told by its system prompt as a server would see it."""
    roles = {QUESTION_PROMPT.system: "question_writer", VERIFY_PROMPT.system: "verifier"}
    roles[GENERATE_PROMPT.system] = "generator"
    roles[REGENERATE_PROMPT.system] = "generator"
    roles[CRITIC_PROMPT.system] = "critic"
    roles[JUDGE_PROMPT.system] = "rule_judge"
    roles[REPAIR_PROMPT.system] = "reviser"
    if system_prompt.startswith("You are a critic."):
        return "critic"  # under any rubric
    return roles[system_prompt]


def cove_reply(received: Received) -> Reply:
    """A well-behaved model: a question naming the claim, then SUPPORTED quoting the first passage; a
    critic with nothing to report and a rule judge that passes."""
    role = role_of(received.system)
    if role == "critic":
        return Reply(NO_FINDINGS)
    if role == "rule_judge":
        return Reply(json.dumps({"passed": True, "critique": ""}))
    if role == "question_writer":
        claim = claim_in(received.text)
        return Reply(json.dumps({"question": f"According to Larkspur policy, is this right: {claim}"}))
    return Reply(verdict_json(received.text))
