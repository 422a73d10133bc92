"""Constitution pages: the list, one constitution's versions, a version, the editor, publishing, the diff."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.policy import editor, guidelines, selectors, services
from reviewconsole.policy.access import policy_admin_required
from reviewconsole.policy.diff import constitution_diff
from reviewconsole.policy.models import ConstitutionVersion, NamedConstitution
from reviewconsole.policy.views.publishing import publish
from reviewconsole.vocabulary import MINOR_TIER_LABELS, ROUTE_LABELS
from verification import Constitution, Policy


@require_GET
@policy_admin_required
def constitution_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "policy/constitutions.html", {"rows": selectors.constitution_rows()})


@require_POST
@policy_admin_required
def constitution_create(request: HtmxHttpRequest) -> HttpResponse:
    """A new name starts as an empty draft: no rules yet, the default policy knobs."""
    form = editor.NewConstitutionForm(request.POST)
    if not form.is_valid():
        return render(request, "policy/constitutions.html", {
            "rows": selectors.constitution_rows(), "create_error": form.errors["name"][0],
            "create_name": request.POST.get("name", ""),
        }, status=400)
    name = form.cleaned_data["name"]
    # Shadow mode unless the admin accepts the built-in calibration: the team's own labels set the threshold.
    policy = Policy(shadow=not form.cleaned_data["builtin_calibration"])
    version = services.constitution_draft_save(constitution=Constitution(name=name, policy=policy),
                                               author=request.user, note="created")
    return redirect("policy:constitution_edit", name=name, number=version.number)


@require_GET
@policy_admin_required
@vary_on_headers("HX-Request")
def constitution_detail(request: HtmxHttpRequest, name: str) -> HttpResponse:
    document = get_object_or_404(NamedConstitution, name=name)
    versions = list(selectors.versions_of(document))
    context = {"document": document, "versions": versions, **_diff_context(request, versions)}
    template = "policy/constitution.html#diff" if request.htmx else "policy/constitution.html"
    return render(request, template, context)


@require_POST
@policy_admin_required
@vary_on_headers("HX-Request")
def constitution_guidelines(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """Save the reviewers' guidelines of the constitution; a refusal shows the page again with why (400).
    With `preview`, save nothing and show the text as reviewers would see it (htmx: the preview alone)."""
    document = get_object_or_404(NamedConstitution, name=name)
    text = request.POST.get("guidelines", "")
    if request.POST.get("preview"):
        if request.htmx:
            return render(request, "policy/_guidelines.html#preview", {"guidelines_text": text})
        return _guidelines_page(request, document, text=text)
    try:
        guidelines.constitution_guidelines_set(document=document, text=text, actor=request.user, now=timezone.now())
    except guidelines.GuidelinesRefused as refused:
        return _guidelines_page(request, document, text=text, error=str(refused), status=400)
    messages.success(request, f"Saved the reviewer guidelines of {name}: reviewers see them on its cases now.")
    return redirect(reverse("policy:constitution", args=[name]) + "#guidelines")


def _guidelines_page(request: HtmxHttpRequest, document: NamedConstitution, *, text: str, error: str = "",
                     status: int = 200) -> HttpResponse:
    """The constitution's page with guidelines text not saved (a preview, or refused) in the editor."""
    versions = list(selectors.versions_of(document))
    return render(request, "policy/constitution.html", {
        "document": document, "versions": versions, **_diff_context(request, versions),
        "guidelines_error": error, "guidelines_text": text,
    }, status=status)


def _diff_context(request: HtmxHttpRequest, versions: list[ConstitutionVersion]) -> dict[str, object]:
    by_number = {str(version.number): version for version in versions}
    if len(versions) < 2:
        return {"older": None, "newer": None, "diff": None}
    newer = by_number.get(request.GET.get("newer", ""), versions[0])
    older = by_number.get(request.GET.get("older", ""), versions[1])
    return {"older": older, "newer": newer, "diff": constitution_diff(older.content, newer.content)}


@require_GET
@policy_admin_required
def version_detail(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    version = selectors.constitution_version_get(name, number)
    constitution = version.constitution()
    previous = (ConstitutionVersion.objects.filter(document=version.document, number__lt=number)
                .order_by("-number").first())
    return render(request, "policy/version.html", {
        "version": version, "constitution": constitution, "in_force": selectors.constitution_in_force(name),
        "previous": previous, "diff": constitution_diff(previous.content, version.content) if previous else None,
        "cases": version.cases.count(), "own_calibration": selectors.release_calibration_text(version),
        # ":g" drops float noise: 0.05 reads "5%", 0.025 "2.5%".
        "risk_budget_percent": f"{constitution.policy.max_unsafe_release_rate * 100:g}%",
        "model_route": ROUTE_LABELS.get(constitution.policy.model_verification or "", ""),
        "minor_tier": MINOR_TIER_LABELS[constitution.policy.minor_unsupported],
    })


@require_http_methods(["GET", "POST"])
@policy_admin_required
def constitution_edit(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    """Edit starting from version `number`; saving makes a new draft version, never changes this one."""
    base = selectors.constitution_version_get(name, number)
    if request.method == "GET":
        return _render_editor(request, base, editor.ConstitutionForm(name=name, base=base.constitution()))
    form = editor.ConstitutionForm(request.POST, name=name, base=base.constitution())
    if form.adding:
        return _render_editor(request, base, form)
    if not form.is_valid() or form.constitution is None:  # a valid form has its constitution
        return _render_editor(request, base, form, status=400)
    version = services.constitution_draft_save(
        constitution=form.constitution, author=request.user, note=form.cleaned_data["note"], based_on=base
    )
    messages.success(request, f"Saved as draft v{version.number} ({version.short_sha}). Try it, then publish it.")
    return redirect("policy:constitution_version", name=name, number=version.number)


def _render_editor(request, base: ConstitutionVersion, form: editor.ConstitutionForm, status: int = 200):
    return render(request, "policy/edit.html", {
        "base": base, "form": form, "rule_kinds": editor.RULE_KINDS,
        "own_calibration": selectors.release_calibration_text(base),
    }, status=status)


@require_http_methods(["GET", "POST"])
@policy_admin_required
def version_publish(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    """GET (or a POST without confirmation) shows what publishing changes; the confirmed POST publishes."""
    version = selectors.constitution_version_get(name, number)
    return publish(request, version, diff=constitution_diff, version_url="policy:constitution_version",
                   publish_url="policy:constitution_publish", item_label="Rule")

