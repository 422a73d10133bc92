"""Paging through the queue by its Next and Previous links: every case once, in order, however deep."""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.utils import timezone

from reviewconsole.intake.models import Case
from reviewconsole.review.models import Escalation, EscalationStatus
from reviewconsole.review.services.queue_counts import queue_counts_rebuild

pytestmark = pytest.mark.django_db

QUEUE_QUERY_BUDGET = 10  # the page's queries, sign-in included (benchmarks/console.py holds the same)


@dataclass
class Page:
    status: int
    html: str
    cases: list[int]
    next: str | None
    previous: str | None


def open_page(client, url: str, **headers: str) -> Page:
    response = client.get(url, headers=headers)
    text = response.content.decode()

    def link(rel: str) -> str | None:
        found = re.search(rf'rel="{rel}" href="([^"]+)"', text)
        return beside(url, found.group(1)) if found else None

    cases = [int(case) for case in re.findall(r'class="open-case" href="/review/cases/(\d+)/"', text)]
    return Page(response.status_code, text, cases, link("next"), link("prev"))


def beside(url: str, link: str) -> str:
    """Where a link of the page at `url` goes: the pager's links are query strings, on the same path.
    (urljoin would keep the old query for a bare "?".)"""
    return urlsplit(url).path + html.unescape(link)


def walk(client, url: str) -> list[Page]:
    pages = [open_page(client, url)]
    while pages[-1].next:
        assert len(pages) < 20, "the Next links go round in circles"
        pages.append(open_page(client, pages[-1].next))
    return pages


@pytest.fixture
def tied_queue(escalate) -> list[int]:
    """120 open escalations of one priority and one age: their case ids in queue order.

    Their ids are handed out shuffled against the order the rows are written in, so only the id as
    the last key of the queue order (not the table's physical order) puts them in a known order.
    """
    first = escalate()
    cases = [first, *Case.objects.bulk_create(
        Case(client_id=first.client_id, question=f"question {n}", status=first.status) for n in range(119)
    )]
    Escalation.objects.filter(case=first).delete()
    ids = list(range(1_000_000, 1_000_000 + len(cases)))
    random.Random(7).shuffle(ids)
    Escalation.objects.bulk_create(
        Escalation(id=id_, case=case, reason="CRITICAL_CLAIM", severity="CRITICAL", priority=350)
        for id_, case in zip(ids, cases, strict=True)
    )
    Escalation.objects.update(created_at=timezone.now())
    queue_counts_rebuild()  # rows written directly, as a seed writes them: counted again, as after a seed
    return [case.pk for _, case in sorted(zip(ids, cases, strict=True), key=lambda pair: pair[0])]


def test_next_visits_every_case_once_in_order(client, reviewer, tied_queue):
    client.force_login(reviewer)

    pages = walk(client, "/review/")

    assert [case for page in pages for case in page.cases] == tied_queue
    assert [len(page.cases) for page in pages] == [50, 50, 20]
    assert "50 of 120 open cases" in pages[0].html and "20 of 120 open cases" in pages[2].html
    assert pages[0].previous is None and pages[1].previous and pages[2].next is None
    # Links carry a cursor, not a page number, and swap the results in place with htmx.
    assert "after=" in pages[0].next and "page=" not in pages[0].next
    next_link = re.search(r'<a rel="next"[^>]*>', pages[0].html).group(0)
    assert re.search(r'href="([^"]+)" hx-get="\1"', next_link)
    assert 'hx-target="#queue-results"' in next_link and 'hx-push-url="true"' in next_link


def test_previous_returns_the_same_rows(client, reviewer, tied_queue):
    client.force_login(reviewer)
    forward = walk(client, "/review/")

    back = [forward[-1]]
    while back[-1].previous:
        assert len(back) < 20, "the Previous links go round in circles"
        back.append(open_page(client, back[-1].previous))

    assert [page.cases for page in reversed(back)] == [page.cases for page in forward]
    assert "before=" in forward[-1].previous
    # Back at the top, the first page offers no Previous, and its Next goes on as before.
    assert back[-1].previous is None and open_page(client, back[-1].next).cases == forward[1].cases


def test_htmx_pages_are_fragments(client, reviewer, tied_queue):
    client.force_login(reviewer)
    first = open_page(client, "/review/")

    fragment = open_page(client, first.next, HX_Request="true")

    assert fragment.html.lstrip().startswith('<div id="queue-results"') and "<html" not in fragment.html
    assert fragment.cases == tied_queue[50:100]


def test_a_case_decided_while_paging_does_not_push_another_off_the_next_page(client, reviewer, tied_queue):
    # Distinct ages, in queue order: this is about cases leaving the queue, not about ties.
    start = timezone.now()
    for age, case in enumerate(tied_queue):
        Escalation.objects.filter(case_id=case).update(created_at=start + timedelta(seconds=age))
    client.force_login(reviewer)
    first = open_page(client, "/review/")

    # Other reviewers decide three cases the reviewer has already seen.
    Escalation.objects.filter(case_id__in=first.cases[:3]).update(status=EscalationStatus.DECIDED)
    queue_counts_rebuild()
    second = open_page(client, first.next)

    assert second.cases == tied_queue[50:100]
    assert "50 of 117 open cases" in second.html


def test_paging_past_cases_that_left_the_queue_says_so(client, reviewer, tied_queue):
    client.force_login(reviewer)
    second = walk(client, "/review/")[1]

    Escalation.objects.filter(case_id__in=tied_queue[100:]).update(status=EscalationStatus.DECIDED)
    queue_counts_rebuild()
    past_the_end = open_page(client, second.next)

    assert past_the_end.status == 200 and past_the_end.cases == []
    assert "No open case is left here" in past_the_end.html
    back = re.search(r'href="([^"]*)"[^>]*>Back to the first page', past_the_end.html).group(1)
    assert open_page(client, beside(second.next, back)).cases == tied_queue[:50]


def test_filters_survive_paging(client, reviewer, tied_queue):
    moderate = tied_queue[1::2]
    Escalation.objects.filter(case_id__in=moderate).update(severity="MODERATE")
    queue_counts_rebuild()
    client.force_login(reviewer)

    pages = walk(client, "/review/?severity=MODERATE")

    assert [case for page in pages for case in page.cases] == moderate
    assert "severity=MODERATE" in pages[0].next and "severity=MODERATE" in pages[1].previous
    assert "10 of 60 open cases" in pages[1].html
    # Changing a filter goes back to the top: the filter form does not carry the cursor.
    assert 'name="after"' not in pages[1].html and 'name="before"' not in pages[1].html


@pytest.mark.parametrize("number", ["2", "99"])
def test_a_page_number_is_not_a_place_in_the_queue(client, reviewer, tied_queue, number):
    # The queue pages by cursor only: a page number is a parameter like any unknown one, ignored.
    client.force_login(reviewer)

    page = open_page(client, f"/review/?page={number}")

    assert page.status == 200 and page.cases == tied_queue[:50] and page.previous is None
    assert open_page(client, page.next).cases == tied_queue[50:100]


@pytest.mark.parametrize("field", ["after", "before"])
@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        "9q.1",  # cut short
        "9q.1hfm2lrtx2.Rs",  # upper case
        "%2B9q.1hfm2lrtx2.rs",  # what int() would take, but a link never holds
        "9q.zzzzzzzzzzzz.rs",  # a time past the year 9999
        "zzzzzzzzzzzz.1hfm2lrtx2.rs",  # a priority no escalation can have
        "9q.1hfm2lrtx2.0",  # no escalation has id 0
        "9q.1hfm2lrtx2.rs" * 4,  # too long
    ],
)
def test_a_changed_cursor_gets_the_first_page_and_says_which_field(client, reviewer, tied_queue, field, cursor):
    client.force_login(reviewer)

    page = open_page(client, f"/review/?severity=CRITICAL&{field}={cursor}")

    assert page.status == 400
    assert f"{field}: This link does not name a place in the queue" in page.html
    assert page.cases == tied_queue[:50]


def test_a_link_with_both_cursors_gets_the_first_page(client, reviewer, tied_queue):
    client.force_login(reviewer)
    second = walk(client, "/review/")[1]
    after = second.next.split("after=")[1]
    before = second.previous.split("before=")[1]

    page = open_page(client, f"/review/?after={after}&before={before}")

    assert page.status == 400 and "before: A link goes after a case or back before one" in page.html
    assert page.cases == tied_queue[:50]


def test_a_cursor_of_a_case_that_left_the_queue_still_pages_from_its_place(client, reviewer, tied_queue):
    client.force_login(reviewer)
    first = open_page(client, "/review/")

    Escalation.objects.filter(case_id=first.cases[-1]).delete()

    assert open_page(client, first.next).cases == tied_queue[50:100]


@pytest.mark.parametrize("which", ["first", "next", "previous"])
def test_any_page_stays_within_the_query_budget(client, reviewer, tied_queue, which, django_assert_max_num_queries):
    client.force_login(reviewer)
    pages = walk(client, "/review/")
    url = {"first": "/review/", "next": pages[1].next, "previous": pages[2].previous}

    with django_assert_max_num_queries(QUEUE_QUERY_BUDGET):
        assert open_page(client, url[which]).cases

