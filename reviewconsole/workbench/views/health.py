"""Rule health: the moving bar, per rule, from stored verdicts and reviewers' overrides."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.policy import selectors
from reviewconsole.policy.access import policy_admin_required
from reviewconsole.workbench.rule_health import rule_health


@require_GET
@policy_admin_required
def rule_health_page(request: HtmxHttpRequest) -> HttpResponse:
    constitution = request.GET.get("constitution", "")
    return render(request, "workbench/rule_health.html", {
        "rows": rule_health(constitution=constitution), "constitution": constitution,
        "names": selectors.constitution_names(),
    })
