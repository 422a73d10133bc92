"""Try a version on a sample: paste one or load a stored case, see every rule's verdict live (htmx)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from reviewconsole.intake.models import Case
from reviewconsole.policy import selectors
from reviewconsole.policy.access import policy_admin_required
from reviewconsole.policy.tryout import SampleInvalid, sample_case, sources_as_text, try_constitution
from reviewconsole.policy.views.seeding import builtins_seeded
from reviewconsole.review.htmx import HtmxHttpRequest
from verification.types import Source

STORED_CASES_SHOWN = 30


@require_http_methods(["GET", "POST"])
@policy_admin_required
@vary_on_headers("HX-Request")
@builtins_seeded
def version_try(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    version = selectors.constitution_version_get(name, number)
    in_force = selectors.constitution_in_force(name)
    context: dict[str, object] = {
        "version": version, "in_force": in_force, "errors": {}, "result": None,
        "stored_cases": Case.objects.order_by("-submitted_at").values("pk", "question")[:STORED_CASES_SHOWN],
    }
    if request.method == "GET":
        context["sample"] = _stored_sample(request.GET.get("case", ""))
        return render(request, "policy/try.html", context)
    sample = {field: request.POST.get(field, "") for field in ("question", "sources", "answer")}
    context["sample"] = sample
    status = 200
    try:
        case = sample_case(question=sample["question"], sources_text=sample["sources"], answer=sample["answer"])
    except SampleInvalid as invalid:
        context["errors"] = {invalid.field: str(invalid)}
        status = 400
    else:
        # The version in force runs too, so the page can show which verdicts the tried version changes.
        baseline = in_force.constitution() if in_force is not None and in_force.pk != version.pk else None
        context["result"] = try_constitution(constitution=version.constitution(), in_force=baseline, case=case)
    template = "policy/try.html#result" if request.htmx else "policy/try.html"
    return render(request, template, context, status=status)


def _stored_sample(case_id: str) -> dict[str, str]:
    case = Case.objects.prefetch_related("sources").filter(pk=case_id).first() if case_id.isdigit() else None
    if case is None:
        return {"question": "", "sources": "", "answer": ""}
    first = case.candidates.order_by("position").first()
    sources = [Source(id=source.source_id, text=source.text) for source in case.sources.all()]
    return {"question": case.question, "sources": sources_as_text(sources),
            "answer": case.answer or (first.text if first else "")}
