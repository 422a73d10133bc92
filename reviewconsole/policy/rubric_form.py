"""The rubric editor's form (description, instructions, constitution, fixtures as JSON), checked by
`RubricContent` with each error on the input it came from; and the canary threshold's form."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from reviewconsole.policy.rubrics import RubricContent

CONTENT_FIELDS = ("description", "instructions", "constitution", "fixtures")


class RubricForm(forms.Form):
    """Every input is text: the rubric's own model judges it, so its messages are the ones shown."""

    description = forms.CharField(required=False, label="What the rubric is for")
    instructions = forms.CharField(required=False, widget=forms.Textarea, label="Instructions to the critic")
    constitution = forms.CharField(required=False, label="Judge rules under")
    fixtures = forms.CharField(
        required=False, widget=forms.Textarea,
        label="Fixtures (JSON: a list of {name, question, sources: [{id, text}], draft, bad})",
    )
    note = forms.CharField(required=False, max_length=200, label="What changed (for the history)")

    def __init__(self, data=None, *, base: RubricContent) -> None:
        content = base.model_dump(mode="json")
        initial = {name: content[name] for name in CONTENT_FIELDS}
        initial["fixtures"] = json.dumps(content["fixtures"], indent=2, ensure_ascii=False)
        super().__init__(data, initial=initial, auto_id="%s")
        self.rubric: RubricContent | None = None

    def clean_fixtures(self) -> Any:
        try:
            return json.loads(self.cleaned_data["fixtures"] or "[]")
        except json.JSONDecodeError as error:
            raise forms.ValidationError(f"not valid JSON: {error}") from None

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if "fixtures" not in cleaned:
            return cleaned  # not JSON: said on its input, and nothing else can be judged without it
        fixtures = cleaned["fixtures"]
        try:
            self.rubric = RubricContent.model_validate({name: cleaned.get(name, "") for name in CONTENT_FIELDS})
        except ValidationError as error:
            for problem in error.errors():
                field, message = _input_for(problem, fixtures)
                if (field or NON_FIELD_ERRORS) not in self.errors:
                    self.add_error(field, message)
        return cleaned


def _input_for(problem: ErrorDetails, fixtures: Any) -> tuple[str | None, str]:
    """The input an error of the model belongs to (None: the rubric as a whole), and its message."""
    loc = problem["loc"]
    message = "required" if problem["type"] == "missing" else problem["msg"].removeprefix("Value error, ")
    if loc and loc[0] == "fixtures" and len(loc) >= 2 and isinstance(loc[1], int):
        where = f"fixture {loc[1] + 1}"
        if isinstance(fixtures, list) and isinstance(fixtures[loc[1]], dict) and fixtures[loc[1]].get("name"):
            where += f" ({fixtures[loc[1]]['name']})"
        detail = ".".join(str(part) for part in loc[2:])
        return "fixtures", f"{where}{' · ' + detail if detail else ''}: {message}"
    if loc and loc[0] in CONTENT_FIELDS:
        return str(loc[0]), message
    named, _, rest = message.partition(": ")
    return (named, rest) if rest and named in CONTENT_FIELDS else (None, message)


_THRESHOLD_ERROR = "canary_threshold: a share between 0 and 1, such as 0.8"


class ThresholdForm(forms.Form):
    """The catch rate below which the nightly canary raises a banner."""

    canary_threshold = forms.FloatField(
        min_value=0.0, max_value=1.0, label="Warn below a catch rate of",
        error_messages=dict.fromkeys(("required", "invalid", "min_value", "max_value"), _THRESHOLD_ERROR),
    )
