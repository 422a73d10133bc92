"""The constitution editor's form: POST fields to an engine `Constitution`, with one message per field.

The engine's pydantic model is the only validator, so the editor can never accept a constitution the
engine would refuse; this module only names its errors after the inputs an admin typed into.
Field names: `description`, `policy-<knob>`, `rules-<n>-<field>` (n counts the rules shown, from 0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict
from pydantic import ValidationError

from verification.constitution import Constitution, Policy
from verification.types import Terminal

RULE_KINDS: dict[str, str] = {
    "word_limit": "Word limit",
    "forbidden_phrases": "Forbidden phrases",
    "required_disclosure": "Required disclosure",
    "no_promise_outside_sources": "No promise outside the sources",
    "judged": "Judged rule",
}


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    widget: str = "text"
    """text, number, textarea (one item per line for lists) or checkbox."""
    help: str = ""


# The engine accepts any rule name, but verdicts, rule health and URLs carry it: the editor holds names
# to the same form as a constitution's own name, so "No Guarantees!" never reaches a stored version.
RULE_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
RULE_NAME_HINT = 'lower-case letters, digits, "-", "." and "_", starting with a letter or digit ("no-guarantees")'

_COMMON = (
    FieldSpec("name", "Name", help=f"Use {RULE_NAME_HINT}; verdicts and rule health use it."),
    FieldSpec("description", "What it asks"),
)
_RULE_FIELDS: dict[str, tuple[FieldSpec, ...]] = {
    "word_limit": (FieldSpec("max_words", "Most words", "number"),),
    "forbidden_phrases": (FieldSpec("phrases", "Phrases", "textarea", "One per line; matched as whole words."),),
    "required_disclosure": (
        FieldSpec("phrases", "Wordings that count", "textarea", "One per line."),
        FieldSpec("disclosure", "Sentence the engine adds", help="Must contain one of the wordings."),
    ),
    "no_promise_outside_sources": (),
    "judged": (FieldSpec("instruction", "Instruction to the judge", "textarea"),),
}
_BLOCKING = FieldSpec("blocking", "Blocking: reject instead of sending to a person", "checkbox")
_LIST_FIELDS = frozenset({"phrases"})

POLICY_FIELDS = (
    FieldSpec("review_critical_claims", "Send unsupported critical claims to a person, even when repaired", "checkbox"),
    FieldSpec("spot_check_share", "Spot-check share (0 to 1)", "number",
              "Share of released cases also queued for a person; empty uses the deployment's default."),
    FieldSpec("max_repairs", "Repair attempts", "number"),
    FieldSpec("max_rule_iterations", "Rule iterations before a rule is non-converging", "number"),
    FieldSpec("max_verifier_calls", "Verifier calls", "number"),
    FieldSpec("max_model_calls", "Model calls", "number"),
    FieldSpec("max_wall_ms", "Wall time (ms)", "number"),
    FieldSpec("max_blast_radius", "Blast radius (share of claims one repair may change)", "number"),
    FieldSpec("max_unsafe_release_rate", "Risk budget: most unsafe releases (share, between 0 and 1)", "number",
              "max_unsafe_release_rate: the largest share of wrong answers this constitution accepts to send "
              "without a person; the release threshold is calibrated for it. 0.05 allows at most 5%."),
)
# Knobs whose every error reads better as one sentence naming the knob than as pydantic's wording.
_POLICY_MESSAGES = {
    "max_unsafe_release_rate": "max_unsafe_release_rate must be a number strictly between 0 and 1, such as 0.05",
}
TERMINALS = [terminal.value for terminal in Terminal]


@dataclass
class BoundField:
    """One input as the template draws it: its value as typed and its error, if any."""

    spec: FieldSpec
    input_name: str
    value: Any
    error: str = ""


@dataclass
class RuleForm:
    position: int
    kind: str
    fields: list[BoundField] = field(default_factory=list)
    error: str = ""

    @property
    def kind_label(self) -> str:
        return RULE_KINDS.get(self.kind, self.kind)


@dataclass
class ConstitutionForm:
    """What the editor shows: every input with its value and error, and the constitution when valid."""

    name: str
    description: BoundField
    policy: list[BoundField]
    needs_person: list[str]
    rules: list[RuleForm]
    errors: dict[str, str] = field(default_factory=dict)
    constitution: Constitution | None = None

    @property
    def is_valid(self) -> bool:
        return self.constitution is not None and not self.errors

    @property
    def general_error(self) -> str:
        return self.errors.get("general", "")

    @property
    def needs_person_error(self) -> str:
        return self.errors.get("policy-needs_person", "")


def form_from_constitution(constitution: Constitution) -> ConstitutionForm:
    """The editor filled in from a stored version."""
    data = constitution.model_dump(mode="json")
    return _bind(constitution.name, data, {})


def form_from_post(name: str, post: QueryDict, *, base: Constitution | None = None) -> ConstitutionForm:
    """Read the editor's fields, validate them with the engine's model and bind every error to its input.

    An "add_rule" value appends an empty rule of that kind (not validated yet: it was just added).
    What the editor has no input for is kept from `base`, the version being edited: its own release
    calibration, as long as the risk budget it was computed for is still the one asked for.
    """
    rules = []
    positions = sorted({int(key.split("-")[1]) for key in post if key.startswith("rules-") and key.count("-") >= 2
                        and key.split("-")[1].isdigit()})
    for position in positions:
        prefix = f"rules-{position}-"
        if post.get(prefix + "delete"):
            continue
        kind = post.get(prefix + "kind", "")
        rule: dict[str, Any] = {"kind": kind, "blocking": bool(post.get(prefix + "blocking"))}
        for spec in (*_COMMON, *_RULE_FIELDS.get(kind, ())):
            raw = post.get(prefix + spec.name, "")
            rule[spec.name] = [line.strip() for line in raw.splitlines() if line.strip()] if spec.name in _LIST_FIELDS \
                else raw.strip()
        rules.append(rule)
    policy: dict[str, Any] = {"needs_person": [t for t in post.getlist("policy-needs_person") if t in TERMINALS]}
    for spec in POLICY_FIELDS:
        raw = post.get(f"policy-{spec.name}", "")
        if spec.widget == "checkbox":
            policy[spec.name] = bool(raw)
        elif spec.name == "spot_check_share" and not raw.strip():
            policy[spec.name] = None
        else:
            policy[spec.name] = raw.strip()
    own_calibration = base.policy.release_calibration if base is not None else None
    if own_calibration is not None:
        policy["release_calibration"] = own_calibration.model_dump(mode="json")
    data = {"name": name, "description": post.get("description", "").strip(), "rules": rules, "policy": policy}
    added = post.get("add_rule", "")
    if added:
        # Adding a rule is a step in editing, not a save: show the new empty rule without judging the rest.
        if added in RULE_KINDS:
            data["rules"].append({"kind": added, "blocking": False})
        return _bind(name, data, {})
    errors = {**_malformed_names(rules), **_duplicate_names(rules)}
    constitution = None
    try:
        constitution = Constitution.model_validate(data)
    except ValidationError as error:
        for problem in error.errors():
            input_name, message = _input_for(problem)
            errors.setdefault(input_name, message)
    if constitution is not None and own_calibration is not None \
            and constitution.policy.max_unsafe_release_rate != own_calibration.max_unsafe_release_rate:
        # A threshold calibrated for another budget would make the new budget a dead letter: drop it, so
        # the verifier's built-in calibration for the new budget applies until the team recalibrates.
        policy_without = constitution.policy.model_copy(update={"release_calibration": None})
        constitution = constitution.model_copy(update={"policy": policy_without})
    form = _bind(name, data, errors)
    form.constitution = constitution if not errors else None
    return form


def _malformed_names(rules: list[dict[str, Any]]) -> dict[str, str]:
    # An empty name is left to the engine's model, whose "required" message is the clearer one.
    return {
        f"rules-{position}-name": f"name: use only {RULE_NAME_HINT}"
        for position, rule in enumerate(rules)
        if rule["name"] and not RULE_NAME.match(rule["name"])
    }


def _duplicate_names(rules: list[dict[str, Any]]) -> dict[str, str]:
    seen: set[str] = set()
    errors = {}
    for position, rule in enumerate(rules):
        if rule["name"] in seen:
            errors[f"rules-{position}-name"] = "another rule already has this name"
        seen.add(rule["name"])
    return errors


def _input_for(problem: dict[str, Any]) -> tuple[str, str]:
    """The input a pydantic error belongs to, and a message an admin can act on."""
    loc = problem["loc"]
    message = problem["msg"].removeprefix("Value error, ")
    if problem["type"] == "missing":
        message = "required"
    if loc and loc[0] == "rules" and len(loc) >= 2 and isinstance(loc[1], int):
        prefix = f"rules-{loc[1]}-"
        if len(loc) >= 4:
            item = f"line {loc[4] + 1}: " if len(loc) >= 5 and isinstance(loc[4], int) else ""
            return prefix + str(loc[3]), item + message
        if problem["type"] in ("union_tag_invalid", "union_tag_not_found"):
            return prefix + "kind", "choose a kind of rule"
        # A rule-level check names its field first ("disclosure: must contain ...").
        named, _, rest = message.partition(": ")
        if rest and named.isidentifier():
            return prefix + named, rest
        return prefix.rstrip("-"), message
    if loc and loc[0] == "policy" and len(loc) >= 2:
        return f"policy-{loc[1]}", _POLICY_MESSAGES.get(str(loc[1]), message)
    if loc and loc[0] in ("description", "name"):
        return str(loc[0]), message
    return "general", message


def _bind(name: str, data: dict[str, Any], errors: dict[str, str]) -> ConstitutionForm:
    policy = data.get("policy") or Policy().model_dump(mode="json")
    policy_fields = [
        BoundField(spec, f"policy-{spec.name}", _shown(policy.get(spec.name)), errors.get(f"policy-{spec.name}", ""))
        for spec in POLICY_FIELDS
    ]
    rules = []
    for position, rule in enumerate(data.get("rules") or []):
        kind = rule.get("kind", "")
        prefix = f"rules-{position}-"
        specs = (*_COMMON, *_RULE_FIELDS.get(kind, ()), _BLOCKING)
        rules.append(RuleForm(
            position, kind,
            [BoundField(spec, prefix + spec.name, _shown(rule.get(spec.name)), errors.get(prefix + spec.name, ""))
             for spec in specs],
            errors.get(prefix.rstrip("-"), "") or errors.get(prefix + "kind", ""),
        ))
    needs_person = policy.get("needs_person") or []
    description = BoundField(FieldSpec("description", "What this constitution is for"), "description",
                             data.get("description", ""), errors.get("description", ""))
    return ConstitutionForm(name, description, policy_fields, list(needs_person), rules, errors)


def _shown(value: Any) -> Any:
    if isinstance(value, list):
        return "\n".join(str(item) for item in value)
    return "" if value is None else value
