"""The metrics page's weekly series, one CSV each, over the period the page shows."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import timedelta

from django.http import Http404, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.support.forms import MetricsForm
from reviewconsole.support.trends import Series, trend, trend_csv_rows
from reviewconsole.support.views import metrics_reader_required


class _Line:
    """csv.writer's file: hands each written line back instead of keeping it."""

    def write(self, line: str) -> str:
        return line


@require_GET
@metrics_reader_required
def metrics_csv(request: HtmxHttpRequest, series: str) -> StreamingHttpResponse:
    if series not in Series.values:
        raise Http404(f"there is no series {series!r}: the series are {', '.join(Series.values)}.")
    form = MetricsForm(request.GET)
    since, until = form.period(now=timezone.now())
    found = trend(Series(series), since=since, until=until)
    writer = csv.writer(_Line())

    def lines() -> Iterator[str]:
        for row in trend_csv_rows(found):
            yield writer.writerow(row)

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    name = f"{series}-{since.date().isoformat()}-{(until - timedelta(microseconds=1)).date().isoformat()}"
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response
