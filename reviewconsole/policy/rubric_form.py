"""The rubric editor's form: description, instructions, constitution and fixtures (as JSON), each
validated by `RubricContent` with its error bound to the input it came from."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict
from pydantic import ValidationError

from reviewconsole.policy.rubrics import RubricContent

FIELDS = ("description", "instructions", "constitution", "fixtures")


@dataclass
class RubricForm:
    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    rubric: RubricContent | None = None


def form_from_rubric(rubric: RubricContent) -> RubricForm:
    data = rubric.model_dump(mode="json")
    values = {name: data[name] for name in FIELDS if name != "fixtures"}
    values["fixtures"] = json.dumps(data["fixtures"], indent=2, ensure_ascii=False)
    return RubricForm(values)


def form_from_post(post: QueryDict) -> RubricForm:
    values = {name: post.get(name, "").strip() for name in FIELDS}
    form = RubricForm(values)
    try:
        fixtures = json.loads(values["fixtures"] or "[]")
    except json.JSONDecodeError as error:
        form.errors["fixtures"] = f"not valid JSON: {error}"
        return form
    data: dict[str, Any] = {**values, "fixtures": fixtures}
    try:
        form.rubric = RubricContent.model_validate(data)
    except ValidationError as error:
        for problem in error.errors():
            name, message = _input_for(problem, fixtures)
            form.errors.setdefault(name, message)
    return form


def _input_for(problem: dict[str, Any], fixtures: Any) -> tuple[str, str]:
    loc = problem["loc"]
    message = "required" if problem["type"] == "missing" else problem["msg"].removeprefix("Value error, ")
    if loc and loc[0] == "fixtures" and len(loc) >= 2 and isinstance(loc[1], int):
        where = f"fixture {loc[1] + 1}"
        if isinstance(fixtures, list) and isinstance(fixtures[loc[1]], dict) and fixtures[loc[1]].get("name"):
            where += f" ({fixtures[loc[1]]['name']})"
        detail = ".".join(str(part) for part in loc[2:])
        return "fixtures", f"{where}{' · ' + detail if detail else ''}: {message}"
    if loc and loc[0] in FIELDS:
        return str(loc[0]), message
    named, _, rest = message.partition(": ")
    return (named, rest) if rest and named in FIELDS else ("general", message)
