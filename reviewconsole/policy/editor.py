"""The constitution editor's forms: Django forms for the description and the routing knobs, and a
formset with one form per rule, checked together by the engine's `Constitution`.

The engine's pydantic model is the only judge of a constitution, so the editor can never accept one
the engine would refuse: the form fields only read text, and each of the model's errors is put on the
input an admin typed into. Input names: `description`, `error_kinds`, `note`, `policy-<knob>`, `rules-<n>-<field>`
(n counts the rules shown, from 0; `rules-TOTAL_FORMS` says how many there are).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import QueryDict
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from reviewconsole.policy.models import NamedConstitution
from reviewconsole.vocabulary import (
    MINOR_TIER_LABELS,
    REASON_LABELS,
    ROUTE_LABELS,
    RULE_KIND_LABELS,
    SEVERITY_LABELS,
    TERMINAL_LABELS,
)
from verification import Constitution, MinorTier, Reason, Route, Severity, Terminal
from verification.policy.constitution import DEFAULT_ERROR_KINDS

RULE_KINDS: dict[str, str] = RULE_KIND_LABELS


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    widget: str = "text"
    """text, number, textarea (one item per line for lists), checkbox or select (of `choices`)."""
    help: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    """For a select: (value, words) of each option."""

    def form_field(self) -> forms.Field:
        if self.widget == "checkbox":
            return forms.BooleanField(required=False, label=self.label, help_text=self.help)
        widget: dict[str, forms.Widget | type[forms.Widget]] = {
            "textarea": forms.Textarea, "number": forms.TextInput(attrs={"inputmode": "decimal"}),
            "select": forms.Select(choices=self.choices),
        }
        # Text, even for numbers: the engine's model parses every value, so its messages are the ones shown.
        return forms.CharField(required=False, label=self.label, help_text=self.help,
                               widget=widget.get(self.widget, forms.TextInput))


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
    FieldSpec("shadow", "Shadow mode until this constitution's own labels set its release threshold", "checkbox",
              "Every answer the gate would release goes to a reviewer instead (blind), until a threshold from the "
              "labels is published."),
    FieldSpec("auto_publish_calibration", "In shadow mode, publish the threshold by itself once the labels allow one",
              "checkbox"),
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
    FieldSpec("review_deadline_hours", "Review deadline (hours)", "number",
              "The queue marks a case overdue once it has waited this long; empty: no deadline."),
    FieldSpec("review_deadline_hours_critical", "Time to decision of a critical case (hours)", "number",
              "Empty: the review deadline above. Past it the case is overdue: a case.overdue webhook, and an email "
              "to the review leads (or the assigned reviewer's daily digest)."),
    FieldSpec("review_deadline_hours_moderate", "Time to decision of a moderate case (hours)", "number"),
    FieldSpec("review_deadline_hours_minor", "Time to decision of a minor case (hours)", "number"),
    FieldSpec("model_verification", "Claims sent to the model (with a model endpoint)", "select",
              "The offline verifier reads every claim first; the uncertain band is what it cannot settle (no "
              "typed check decided, and a release score below its safe band). Chosen from the calibration: the "
              "uncertain band when the offline verifier is calibrated, every claim when it is not.",
              choices=(("", "Chosen from the calibration"), *((route.value, ROUTE_LABELS[route]) for route in Route))),
    FieldSpec("minor_unsupported", "A minor claim that cannot be released as written", "select",
              "Once repairs are done, a MINOR claim that is not supported or scores below the release threshold "
              "holds the answer, or is taken out, or stays followed by the note. Only when every claim holding "
              "the answer is MINOR: a critical or moderate one always sends it to a person.",
              choices=tuple((tier.value, MINOR_TIER_LABELS[tier]) for tier in MinorTier)),
    FieldSpec("minor_note", "Note after a minor claim", help="One sentence ending in . ! or ?, such as \"We could "
              "not confirm this in our documentation.\" It is never checked as a claim."),
    FieldSpec("calibration_group", "Calibration group",
              help="The group of labelled answers this constitution's resemble, released at that group's own "
              "threshold: wice/hold (single claims), summedits/hold (summaries), halueval/hold (short answers); "
              "empty: the threshold of each answer's stratum (what its evidence is), else the pooled one."),
)
# Knobs an empty input leaves unset (None) rather than asking the model to parse "".
_OPTIONAL_KNOBS = frozenset({"spot_check_share", "review_deadline_hours", "calibration_group", "model_verification",
                             "review_deadline_hours_critical", "review_deadline_hours_moderate",
                             "review_deadline_hours_minor"})
# Knobs whose every error reads better as one sentence naming the knob than as pydantic's wording.
_POLICY_MESSAGES = {
    "max_unsafe_release_rate": "max_unsafe_release_rate must be a number strictly between 0 and 1, such as 0.05",
    "review_deadline_hours": "review_deadline_hours must be a whole number of hours from 1 to 2160 (90 days), "
                             "or empty for no deadline",
    "calibration_group": "calibration_group must be a group's name of at most 100 characters, such as summedits/hold",
    "minor_unsupported": "minor_unsupported must be one of: " + ", ".join(tier.value for tier in MinorTier),
    "model_verification": "model_verification must be one of: " + ", ".join(route.value for route in Route)
                          + ", or empty to choose from the calibration",
}
_NEEDS_PERSON = "policy-needs_person"
# The knobs that are lists of codes, each drawn as a row of checkboxes: input name, knob, the (code, words)
# choices in the engine's order, label. The words come from the one label map of each vocabulary.
_CHOICE_LISTS: tuple[tuple[str, str, list[tuple[str, str]], str], ...] = (
    (_NEEDS_PERSON, "needs_person", [(terminal.value, TERMINAL_LABELS[terminal.value]) for terminal in Terminal],
     "Terminal states that go to a person"),
    ("policy-double_review_reasons", "double_review_reasons",
     [(reason.value, REASON_LABELS[reason.value]) for reason in Reason],
     "Double review: reasons whose cases need two independent reviews"),
    ("policy-double_review_severities", "double_review_severities",
     [(severity.value, SEVERITY_LABELS[severity.value]) for severity in Severity],
     "Double review: severities whose cases need two independent reviews"),
)


# What the editor calls each policy knob and each field of a rule: the words the version diff uses too.
KNOB_LABELS: dict[str, str] = {spec.name: spec.label for spec in POLICY_FIELDS} | {
    knob: label for _input, knob, _choices, label in _CHOICE_LISTS
}
RULE_FIELD_LABELS: dict[str, str] = {
    spec.name: spec.label
    for spec in (*_COMMON, _BLOCKING, *(spec for specs in _RULE_FIELDS.values() for spec in specs))
} | {"phrases": "Phrases"}  # a forbidden phrase's or a disclosure's wordings


class RuleForm(forms.Form):
    """One rule: its kind (a hidden input) decides which inputs it has."""

    kind = forms.CharField(required=False, widget=forms.HiddenInput)
    delete = forms.BooleanField(required=False, label="Remove this rule")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        kind = self.data.get(self.add_prefix("kind")) if self.is_bound else self.initial.get("kind")
        self.kind_name = str(kind or "")
        for spec in (*_COMMON, *_RULE_FIELDS.get(self.kind_name, ()), _BLOCKING):
            self.fields[spec.name] = spec.form_field()

    @property
    def kind_label(self) -> str:
        return RULE_KINDS.get(self.kind_name, self.kind_name)

    @property
    def inputs(self) -> list[forms.BoundField]:
        """The inputs the page draws for the rule, in order."""
        return [self[name] for name in self.fields if name not in ("kind", "delete")]

    @property
    def rule_error(self) -> str:
        """An error about the rule as a whole (its kind, or a check across its fields)."""
        errors = self.non_field_errors()
        return str(errors[0]) if errors else ""

    def rule(self) -> dict[str, Any]:
        """The rule as the engine's model reads it; call once the form is cleaned."""
        data = self.cleaned_data
        rule: dict[str, Any] = {"kind": self.kind_name, "blocking": bool(data.get("blocking"))}
        for spec in (*_COMMON, *_RULE_FIELDS.get(self.kind_name, ())):
            raw = data.get(spec.name) or ""
            rule[spec.name] = [line.strip() for line in raw.splitlines() if line.strip()] \
                if spec.name in _LIST_FIELDS else raw
        return rule


# An added rule is validated like the others (empty_permitted would let an untouched one through).
RuleFormSet = forms.formset_factory(RuleForm, extra=0)


class ConstitutionForm(forms.Form):
    """The whole editor: its own inputs, the rules formset (`rules`), and the constitution once valid.

    An "add_rule" value (the "Add a rule" buttons) appends an empty rule of that kind and is not
    checked: adding a rule is a step in editing, not a save. What the editor has no input for is kept
    from `base`, the version being edited: its own release calibration, as long as the risk budget it
    was computed for is still the one asked for.
    """

    description = forms.CharField(required=False, label="What this constitution is for")
    error_kinds = forms.CharField(
        required=False, label="Kinds of error reviewers tag", widget=forms.Textarea(attrs={"rows": 6}),
        help_text="One per line: a code (lower-case letters, digits and \"-\"), a colon, then what reviewers read, "
                  "such as \"wrong-number: Wrong number\". Reviewers tag them on a claim or a whole answer; the "
                  "first nine have a digit key. Empty: the default kinds.",
    )
    note = forms.CharField(required=False, max_length=200, label="What changed (for the history)")

    def __init__(self, data: QueryDict | None = None, *, name: str, base: Constitution) -> None:
        self.name, self.base = name, base
        self.adding = data.get("add_rule", "") if data is not None else ""
        if data is not None and self.adding in RULE_KINDS:
            data = _with_rule(data, self.adding)
        initial, rules_initial = _initial(base)
        super().__init__(data, initial=initial, auto_id="%s")
        for input_name, knob, choices, label in _CHOICE_LISTS:
            self.fields[input_name] = forms.MultipleChoiceField(
                required=False, choices=choices, label=label,
                error_messages={"invalid_choice": f"{knob}: %(value)s is not one of the available choices."},
            )
        for spec in POLICY_FIELDS:
            self.fields[f"policy-{spec.name}"] = spec.form_field()
        self.rules = RuleFormSet(data, initial=None if data is not None else rules_initial, prefix="rules",
                                 auto_id="%s", form_kwargs={"empty_permitted": False})
        self.constitution: Constitution | None = None

    @property
    def needs_person(self) -> forms.BoundField:
        return self[_NEEDS_PERSON]

    @property
    def double_review_lists(self) -> list[forms.BoundField]:
        """The double-review knobs, drawn as needs_person is: one checkbox per code."""
        return [self[input_name] for input_name, knob, _choices, _label in _CHOICE_LISTS if knob != "needs_person"]

    @property
    def policy_inputs(self) -> list[forms.BoundField]:
        return [self[f"policy-{spec.name}"] for spec in POLICY_FIELDS]

    @property
    def has_errors(self) -> bool:
        return bool(self.errors or any(self.rules.errors) or self.rules.non_form_errors())

    def is_valid(self) -> bool:
        return super().is_valid() and self.rules.is_valid() and self.constitution is not None

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if self.adding:
            return cleaned
        if not self.rules.is_valid():
            # Only the management inputs can make it invalid (the rule inputs are text): nothing to check.
            for error in self.rules.non_form_errors():
                self.add_error(None, error)
            return cleaned
        kept = [form for form in self.rules if not form.cleaned_data.get("delete")]
        rules = [form.rule() for form in kept]
        for position, message in _rule_name_errors(rules):
            _add(kept[position], "name", message)
        data = {"name": self.name, "description": cleaned.get("description", ""), "rules": rules,
                "policy": self._policy(cleaned), "error_kinds": self._error_kinds(cleaned.get("error_kinds") or "")}
        try:
            constitution = Constitution.model_validate(data)
        except ValidationError as error:
            for problem in error.errors():
                self._place(problem, kept)
            return cleaned
        own_calibration = self.base.policy.release_calibration
        unknown_group = constitution.policy.calibration_group_error()
        if unknown_group is not None:
            _add(self, "policy-calibration_group", unknown_group)
        if own_calibration is not None \
                and constitution.policy.max_unsafe_release_rate != own_calibration.max_unsafe_release_rate:
            # A threshold calibrated for another budget would make the new budget a dead letter: drop it, so
            # the verifier's built-in calibration for the new budget applies until the team recalibrates.
            policy_without = constitution.policy.model_copy(update={"release_calibration": None})
            constitution = constitution.model_copy(update={"policy": policy_without})
        if not self.has_errors:
            self.constitution = constitution
        return cleaned

    def _policy(self, cleaned: dict[str, Any]) -> dict[str, Any]:
        policy: dict[str, Any] = {knob: cleaned.get(input_name) or [] for input_name, knob, _c, _l in _CHOICE_LISTS}
        for spec in POLICY_FIELDS:
            value = cleaned.get(f"policy-{spec.name}")
            policy[spec.name] = None if spec.name in _OPTIONAL_KNOBS and not value else value
        own_calibration = self.base.policy.release_calibration
        if own_calibration is not None:
            policy["release_calibration"] = own_calibration.model_dump(mode="json")
        # The scorer model is promoted and rolled back from the scorer page, never typed here: an edit keeps it.
        policy["scorer_model"] = self.base.policy.scorer_model
        return policy

    def _error_kinds(self, text: str) -> list[dict[str, str]]:
        """The kinds typed, one "code: label" a line; the default kinds are stored as none (they are the default)."""
        kinds = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            code, colon, label = line.partition(":")
            if not colon:
                _add(self, "error_kinds", f"line {number}: write the code, a colon, then the label "
                                          "(wrong-number: Wrong number)")
            kinds.append({"code": code.strip(), "label": label.strip()})
        defaults = [kind.model_dump() for kind in DEFAULT_ERROR_KINDS]
        return [] if kinds == defaults else kinds

    def _place(self, problem: ErrorDetails, kept: list[RuleForm]) -> None:
        """Put one of the model's errors on the input it belongs to, with a message an admin can act on."""
        loc = problem["loc"]
        message = "required" if problem["type"] == "missing" else problem["msg"].removeprefix("Value error, ")
        if loc and loc[0] == "rules" and len(loc) >= 2 and isinstance(loc[1], int):
            rule = kept[loc[1]]
            if len(loc) >= 4:
                item = f"line {loc[4] + 1}: " if len(loc) >= 5 and isinstance(loc[4], int) else ""
                _add(rule, str(loc[3]), item + message)
            elif problem["type"] in ("union_tag_invalid", "union_tag_not_found"):
                _add(rule, None, "choose a kind of rule")
            else:
                # A rule-level check names its field first ("disclosure: must contain ...").
                named, _, rest = message.partition(": ")
                if rest and named in rule.fields:
                    _add(rule, named, rest)
                else:
                    _add(rule, None, message)
        elif loc and loc[0] == "policy" and len(loc) >= 2:
            _add(self, f"policy-{loc[1]}", _POLICY_MESSAGES.get(str(loc[1]), message))
        elif loc == ("policy",):
            # A check across knobs names its knob first ("minor_note: required when ...").
            named = message.partition(": ")[0]
            _add(self, f"policy-{named}" if f"policy-{named}" in self.fields else None, message)
        elif loc and loc[0] == "description":
            _add(self, "description", message)
        elif loc and loc[0] == "error_kinds":
            line = f"line {loc[1] + 1}: " if len(loc) >= 2 and isinstance(loc[1], int) else ""
            field = f"{loc[2]}: " if len(loc) >= 3 else ""
            _add(self, "error_kinds", f"{line}{field}{message}")
        elif not loc and message.startswith("error_kinds: "):
            _add(self, "error_kinds", message.removeprefix("error_kinds: "))
        else:
            _add(self, None, message)


def _add(form: forms.Form, field: str | None, message: str) -> None:
    """The first error of an input is the one shown; an error of no input belongs to the form (or rule)."""
    if field is not None and field not in form.fields:
        field = None
    key = field or NON_FIELD_ERRORS
    if key not in form.errors:
        form.add_error(field, message)


def _rule_name_errors(rules: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """Names against the hint, and a name a rule above already has (that message wins on the input)."""
    seen: set[str] = set()
    errors = []
    for position, rule in enumerate(rules):
        if rule["name"] in seen:
            errors.append((position, "another rule already has this name"))
        # An empty name is left to the engine's model, whose "required" message is the clearer one.
        elif rule["name"] and not RULE_NAME.match(rule["name"]):
            errors.append((position, f"name: use only {RULE_NAME_HINT}"))
        seen.add(rule["name"])
    return errors


def _with_rule(data: QueryDict, kind: str) -> QueryDict:
    """The POST with one more, empty rule of `kind` at the end."""
    data = data.copy()
    total = data.get("rules-TOTAL_FORMS", "")
    if total.isdigit():
        data[f"rules-{total}-kind"] = kind
        data["rules-TOTAL_FORMS"] = str(int(total) + 1)
    return data


def _initial(constitution: Constitution) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The editor's inputs filled in from a stored version: its own, and one dict per rule."""
    data = constitution.model_dump(mode="json")
    policy = data["policy"]
    initial = {"description": data["description"],
               "error_kinds": "\n".join(f"{kind.code}: {kind.label}" for kind in constitution.taxonomy)}
    initial.update({input_name: policy[knob] for input_name, knob, _choices, _label in _CHOICE_LISTS})
    initial.update({f"policy-{spec.name}": _shown(policy.get(spec.name)) for spec in POLICY_FIELDS})
    return initial, [{key: _shown(value) for key, value in rule.items()} for rule in data["rules"]]


def _shown(value: Any) -> Any:
    if isinstance(value, list):
        return "\n".join(str(item) for item in value)
    return "" if value is None else value


class NewConstitutionForm(forms.Form):
    """A new name: it starts as an empty draft, with no rules and the default policy knobs."""

    # Not required: the engine's model says what a name must be, an empty one included.
    name = forms.CharField(required=False, label="Name")
    builtin_calibration = forms.BooleanField(
        required=False, label="Release on the built-in calibration from the start (no shadow mode)")

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if NamedConstitution.objects.filter(name=name).exists():
            raise forms.ValidationError(f"name: a constitution named {name!r} exists already")
        try:
            Constitution(name=name)
        except ValidationError as invalid:
            raise forms.ValidationError(
                f"name: {invalid.errors()[0]['msg']} (lower-case letters, digits, '.', '_' and '-')"
            ) from None
        return name
