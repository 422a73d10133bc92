"""Try a version on a sample: paste one or load a stored case, see every rule's verdict live (htmx)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.models import Case
from reviewconsole.policy import selectors
from reviewconsole.policy.access import policy_admin_required
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.workbench.tryout import SampleInvalid, sample_case, sources_as_text, try_constitution
from verification import Source

STORED_CASES_SHOWN = 30


@require_http_methods(["GET", "POST"])
@policy_admin_required
@vary_on_headers("HX-Request")
def version_try(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    """Check a sample under this version and the version in force; GET ?case=<id> loads and checks a stored case."""
    version = selectors.constitution_version_get(name, number)
    in_force = selectors.constitution_in_force(name)
    loaded = request.GET.get("case", "").strip() if request.method == "GET" else ""
    context: dict[str, object] = {
        "version": version, "in_force": in_force, "errors": {}, "result": None, "loaded_case": loaded,
        "stored_cases": _stored_cases(loaded),
        "sample": {"question": "", "sources": "", "answer": ""},
    }
    status = 200
    if request.method == "POST":
        sample = {field: request.POST.get(field, "") for field in ("question", "sources", "answer")}
        context["sample"] = sample
        status = _check(context, sample, version=version, in_force=in_force)
    elif loaded:
        stored = _stored_sample(loaded)
        if stored is None:
            context["errors"] = {"case": f"there is no stored case #{loaded}"}
            status = 400
        else:
            context["sample"] = stored
            status = _check(context, stored, version=version, in_force=in_force)
    template = "workbench/try.html#result" if request.htmx else "workbench/try.html"
    return render(request, template, context, status=status)


def _check(
    context: dict[str, object], sample: dict[str, str], *, version: ConstitutionVersion,
    in_force: ConstitutionVersion | None,
) -> int:
    """Run `sample` and put the result (or the field at fault) in `context`; returns the status."""
    try:
        case = sample_case(question=sample["question"], sources_text=sample["sources"], answer=sample["answer"])
    except SampleInvalid as invalid:
        context["errors"] = {invalid.field: str(invalid)}
        return 400
    # The version in force runs too, so the page can show which verdicts the tried version changes.
    baseline = in_force.constitution() if in_force is not None and in_force.pk != version.pk else None
    context["result"] = try_constitution(constitution=version.constitution(), in_force=baseline, case=case)
    return 200


def _stored_cases(loaded: str) -> Sequence[Mapping[str, object]]:
    """The newest cases for the selector, and the loaded one even when it is older than those."""
    cases = list(Case.objects.order_by("-submitted_at").values("pk", "question")[:STORED_CASES_SHOWN])
    if loaded.isdigit() and all(str(case["pk"]) != loaded for case in cases):
        cases.extend(Case.objects.filter(pk=int(loaded)).values("pk", "question"))
    return cases


def _stored_sample(case_id: str) -> dict[str, str] | None:
    case = Case.objects.prefetch_related("sources").filter(pk=case_id).first() if case_id.isdigit() else None
    if case is None:
        return None
    first = case.candidates.order_by("position").first()
    sources = [Source(id=source.source_id, text=source.text) for source in case.sources.all()]
    return {"question": case.question, "sources": sources_as_text(sources),
            "answer": case.answer or (first.text if first else "")}
