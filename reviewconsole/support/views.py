"""The support lead's pages: search events and cases, export ranges, follow an export, metrics. Thin."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import FileResponse, Http404, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from reviewconsole.accounts.access import role_required
from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditExport, ExportFormat, ExportStatus
from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.quotas import Limit
from reviewconsole.policy.breaker import breaker_panels
from reviewconsole.review.case_record import case_record
from reviewconsole.review.reasons import reason_label
from reviewconsole.support import charts, selectors, services
from reviewconsole.support.error_counts import error_kind_counts
from reviewconsole.support.exports import export_chunks, export_file_name, export_text
from reviewconsole.support.forms import AuditFilterForm, ExportForm, MetricsForm
from reviewconsole.support.kappa import MIN_ITEMS as MIN_KAPPA_ITEMS
from reviewconsole.support.metrics import metrics_report
from reviewconsole.support.trend_charts import trend_panels
from reviewconsole.support.trends import trends
from reviewconsole.webhooks.selectors import delivery_counts

support_lead_required = role_required(Role.SUPPORT_LEAD, refusal="the audit pages are for support leads")
# Review leads settle reviewers' disagreements and coach them: they read the agreement (κ) figures too.
# Policy admins own the risk budget: they read the automation and unsafe release rates it buys (the page
# changes nothing).
metrics_reader_required = role_required(
    Role.SUPPORT_LEAD, Role.REVIEW_LEAD, Role.POLICY_ADMIN,
    refusal="the metrics are for support leads, review leads and policy admins",
)

_CONTENT_TYPES = {
    ExportFormat.CSV: "text/csv; charset=utf-8",
    ExportFormat.JSONL: "application/x-ndjson; charset=utf-8",
    ExportFormat.FIXTURES: "application/x-ndjson; charset=utf-8",
}


def _search(request: HtmxHttpRequest, template: str, find) -> HttpResponse:
    form = AuditFilterForm(request.GET)
    # The export form repeats the filter, so what is exported is exactly what is on screen.
    export_fields = [(name, value) for name, value in request.GET.items() if name != "page" and value]
    context: dict[str, object] = {
        "form": form, "page": None, "export_fields": export_fields, "export_form": ExportForm(),
    }
    status = 400
    if form.is_valid():
        # An invalid filter shows its errors and no results: results that ignored it would look like an answer.
        context["page"] = selectors.page_of(find(form.audit_filter()), form.page_number())
        status = 200
    return render(request, f"{template}#results" if request.htmx else template, context, status=status)


@require_GET
@support_lead_required
@vary_on_headers("HX-Request")
def events(request: HtmxHttpRequest) -> HttpResponse:
    return _search(request, "audit/events.html", selectors.events_newest_first)


@require_GET
@support_lead_required
@vary_on_headers("HX-Request")
def cases(request: HtmxHttpRequest) -> HttpResponse:
    return _search(request, "audit/cases.html", selectors.cases_with_decisions)


@require_GET
@support_lead_required
def case_detail(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    """A case read end to end: question, sources, every version, what was released, decisions, timeline."""
    record = case_record(case_id)
    if record is None:
        raise Http404(f"There is no case #{case_id}.")
    return render(request, "case_record.html", {"record": record})


@require_POST
@support_lead_required
def export_create(request: HtmxHttpRequest) -> HttpResponseBase:
    """Stream a small export at once; queue a large one and show its progress."""
    export_form = ExportForm(request.POST)
    if not export_form.is_valid():
        return HttpResponse(f"format: {export_form.errors['format'][0]}", status=400, content_type="text/plain")
    filter_form = AuditFilterForm(request.POST)
    if not filter_form.is_valid():
        return HttpResponse(f"filters: {filter_form.errors.as_text()}", status=400, content_type="text/plain")
    export = services.export_start(
        requested_by=request.user, export_format=export_form.cleaned_data["format"],
        audit_filter=filter_form.audit_filter(),
    )
    if export.status != ExportStatus.STREAMED:
        messages.info(request, f"Export {export.pk} has {export.rows_total} rows: it is written to a file for you.")
        return redirect("audit:export", export_id=export.pk)
    chunks = export_chunks(export.format, selectors.AuditFilter.from_json(export.filters), export.tree_size)
    response = StreamingHttpResponse(export_text(chunks), content_type=_CONTENT_TYPES[ExportFormat(export.format)])
    response["Content-Disposition"] = f'attachment; filename="{export_file_name(export)}"'
    response["X-Audit-Export"] = str(export.pk)
    response["X-Audit-Tree-Head"] = f"{export.tree_size}:{export.root_hash}"
    return response


@require_GET
@support_lead_required
@vary_on_headers("HX-Request")
def export_detail(request: HtmxHttpRequest, export_id: int) -> HttpResponse:
    """The export's progress; the page polls its progress fragment until the file is ready."""
    export = get_object_or_404(AuditExport.objects.select_related("requested_by"), pk=export_id)
    template = "audit/export.html#progress" if request.htmx else "audit/export.html"
    return render(request, template, {"export": export})


@require_GET
@support_lead_required
def export_download(request: HtmxHttpRequest, export_id: int) -> FileResponse:
    export = get_object_or_404(AuditExport, pk=export_id)
    if export.status == ExportStatus.EXPIRED:
        raise Http404(f"this export's file was removed {settings.AUDIT_EXPORT_RETENTION_HOURS} hours after it was "
                      "written: export the range again.")
    if export.status != ExportStatus.DONE:
        raise Http404("this export has no file yet: its page shows how far it is.")
    path = settings.AUDIT_EXPORT_DIR / export.file_name
    if not export.file_name or not path.is_file():
        raise Http404("the export file is gone")
    return FileResponse(path.open("rb"), as_attachment=True, filename=export.file_name,
                        content_type=_CONTENT_TYPES[ExportFormat(export.format)])


@require_GET
@support_lead_required
def exports(request: HtmxHttpRequest) -> HttpResponse:
    recent = AuditExport.objects.select_related("requested_by")[:100]
    return render(request, "audit/exports.html", {"exports": recent})


@require_GET
@metrics_reader_required
def metrics(request: HtmxHttpRequest) -> HttpResponse:
    form = MetricsForm(request.GET)
    since, until = form.period(now=timezone.now())
    report = metrics_report(since=since, until=until)
    context = {
        "form": form,
        "report": report,
        "deliveries": delivery_counts(),
        "escalations_chart": charts.stacked_bars(
            title="Escalations per day by reason", days=report.days,
            series={reason_label(reason): counts for reason, counts in report.escalations_by_day.items()},
        ),
        "reason_chart": _agreement_chart("Reviewer agreement with the engine per reason", report.agreement_by_reason),
        "rule_chart": _agreement_chart("Failed rules the reviewer upheld", report.agreement_by_rule),
        "kappa_claims_rows": [report.kappa_claims] if report.kappa_claims and report.kappa_claims.items else [],
        "min_kappa_items": MIN_KAPPA_ITEMS,
        "limits": list(Limit),
        "breakers": breaker_panels(),
        "trend_panels": trend_panels(trends(since=since, until=until)),
        "error_kinds": error_kind_counts(since=since, until=until),
    }
    return render(request, "audit/metrics.html", context)


def _agreement_chart(title: str, rows) -> str:
    return charts.share_bars(
        title=title, rows=[(row.label, row.rate, f"{row.rate:.0%} of {row.decided}") for row in rows]
    )
