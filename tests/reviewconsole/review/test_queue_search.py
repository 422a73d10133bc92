"""The queue's search (ticket id, case number, question and answer words), its sortable columns, and saved
filters: a reviewer's own named searches, back in one click."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.review.models import Escalation, SavedQueueFilter
from reviewconsole.review.services import MAX_SAVED_FILTERS
from tests.reviewconsole.review.conftest import EARNINGS_CASE, gate_record, signed_in

pytestmark = pytest.mark.django_db



def _listed(html: str) -> list[int]:
    """The case numbers of the queue's rows, in the order shown."""
    return [int(number) for number in re.findall(r'class="open-case" href="/review/cases/(\d+)/"', html)]


@pytest.fixture
def cases(escalate):
    """The refund case (ticket-1001, highest priority, newest) and the earnings case (oldest)."""
    refund, earnings = escalate(), escalate(EARNINGS_CASE)
    Escalation.objects.filter(case=refund).update(priority=999)
    Escalation.objects.filter(case=earnings).update(created_at=timezone.now() - timedelta(hours=3))
    return refund, earnings


@pytest.mark.parametrize(("search", "found"), [
    ("ticket-1001", "refund"),  # the client's ticket id, exactly
    ("earnings-q3", "earnings"),
    ("annual REFUND", "refund"),  # every word, in any case, in the question
    ("60 days", "refund"),  # words of the submitted answer only
    ("Norrland third", "earnings"),
])
def test_search_finds_by_ticket_id_question_and_answer(client, reviewer, cases, search, found):
    refund, earnings = cases
    client.force_login(reviewer)

    html = client.get("/review/", {"q": search}).content.decode()

    assert _listed(html) == [(refund if found == "refund" else earnings).pk]
    assert "1 of 1 open case" in html


@pytest.fixture
def in_chinese_and_japanese(cases, run_as_engine, travel_case):
    """Beside the English cases (verified first: the ones after stand in for the engine), a Chinese travel
    answer and a Japanese question on the refund of a plan."""
    refund = run_as_engine(gate_record(), external_id="plans-ja", question="年間プランの返金は何日以内ですか？",
                           answer="年間プランは30日以内なら全額返金できます。")
    return travel_case, refund


@pytest.mark.parametrize(("search", "found"), [
    ("博物馆", "travel"),  # a Chinese word, as the text writes it
    ("放晴", "travel"),
    ("西湖放晴", "travel"),  # two words typed together, which the answer holds apart ("西湖会放晴")
    ("茶叶博物馆关门", "travel"),  # three
    ("博物馆 9", "travel"),
    ("明天下午西湖会放晴，茶叶博物馆晚上 9 点关门。", "travel"),  # a pasted sentence, more pairs than are sought
    ("返金", "refund"),  # Japanese: kanji, katakana, and a number written against its unit
    ("プラン返金", "refund"),
    ("30日以内", "refund"),
    ("西湖下雪", None),  # one word of two: not the case
    ("60日以内", None),  # the number a Japanese word carries is one word of its own
    ("博物学", None),  # one pair of a three-character word is not the word
])
def test_search_finds_chinese_and_japanese_words_written_without_spaces(client, reviewer, in_chinese_and_japanese,
                                                                        search, found):
    travel, refund = in_chinese_and_japanese
    client.force_login(reviewer)

    listed = _listed(client.get("/review/", {"q": search}).content.decode())

    assert listed == ([] if found is None else [(travel if found == "travel" else refund).pk])


def test_search_by_case_number_and_nothing_found(client, reviewer, cases):
    refund, _ = cases
    client.force_login(reviewer)

    assert _listed(client.get("/review/", {"q": f"#{refund.pk}"}).content.decode()) == [refund.pk]
    html = client.get("/review/", {"q": "annual Norrland"}).content.decode()
    assert _listed(html) == [] and "No open case matches these filters." in html
    # The search box keeps what was searched, escaped.
    html = client.get("/review/", {"q": '<b>"x'}).content.decode()
    assert 'value="&lt;b&gt;&quot;x"' in html


def test_search_as_htmx_swaps_the_results_only(client, reviewer, cases):
    _, earnings = cases
    client.force_login(reviewer)

    response = client.get("/review/", {"q": "freight"}, headers={"HX-Request": "true"})

    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html and 'id="queue-results"' in html
    assert _listed(html) == [earnings.pk]


def test_a_search_longer_than_the_field_is_ignored_not_an_empty_queue(client, reviewer, cases):
    client.force_login(reviewer)
    assert len(_listed(client.get("/review/", {"q": "x" * 201}).content.decode())) == 2


def test_columns_sort_both_ways_and_say_so(client, reviewer, cases):
    refund, earnings = cases
    client.force_login(reviewer)

    default = client.get("/review/").content.decode()
    assert _listed(default) == [refund.pk, earnings.pk]
    assert re.search(r'<th scope="col" aria-sort="descending"><a class="sort" href="\?sort=-priority"', default)
    assert re.search(r'<th scope="col" aria-sort="none"><a class="sort" href="\?sort=waiting"', default)

    waiting = client.get("/review/", {"sort": "waiting"}).content.decode()
    assert _listed(waiting) == [earnings.pk, refund.pk]  # longest waiting first
    assert "Open cases, longest waiting first" in waiting
    assert re.search(r'aria-sort="descending"><a class="sort" href="\?sort=-waiting"', waiting)
    assert _listed(client.get("/review/", {"sort": "-waiting"}).content.decode()) == [refund.pk, earnings.pk]
    assert _listed(client.get("/review/", {"sort": "-priority"}).content.decode()) == [earnings.pk, refund.pk]
    # An unknown order is ignored: the queue's own.
    assert _listed(client.get("/review/", {"sort": "question"}).content.decode()) == [refund.pk, earnings.pk]


def test_paging_a_sorted_queue_neither_skips_nor_repeats(client, reviewer, escalate, monkeypatch):
    made = [escalate(external_id=f"ticket-{number}") for number in range(3)]
    now = timezone.now()
    for age, case in enumerate(made):  # the first made waits least
        Escalation.objects.filter(case=case).update(created_at=now - timedelta(minutes=age))
    monkeypatch.setattr("reviewconsole.review.queue.QUEUE_PAGE_SIZE", 2)
    client.force_login(reviewer)

    first = client.get("/review/", {"sort": "waiting"}).content.decode()
    following = re.search(r'rel="next" href="\?([^"]+)"', first).group(1).replace("&amp;", "&")
    second = client.get(f"/review/?{following}").content.decode()
    back = re.search(r'rel="prev" href="\?([^"]+)"', second).group(1).replace("&amp;", "&")
    again = client.get(f"/review/?{back}").content.decode()

    assert _listed(first) + _listed(second) == [made[2].pk, made[1].pk, made[0].pk]
    assert "sort=waiting" in following
    assert _listed(again) == _listed(first)


def test_a_reviewer_saves_filters_and_gets_them_back_in_one_click(client, reviewer, cases):
    refund, _ = cases
    client.force_login(reviewer)

    response = client.post("/review/saved-filters/",
                           {"name": "  Refunds   mine ", "query": "q=refund&severity=CRITICAL&after=zz&bogus=1"})

    assert response.status_code == 302
    assert response["Location"] == "/review/?q=refund&severity=CRITICAL"
    saved = SavedQueueFilter.objects.get()
    assert (saved.owner, saved.name, saved.query) == (reviewer, "Refunds mine", "q=refund&severity=CRITICAL")
    event = AuditEvent.objects.get(action="queue_filter.saved")
    assert event.actor == "user:rita" and event.payload["name"] == "Refunds mine"
    html = client.get("/review/").content.decode()
    link = '<a href="/review/?q=refund&amp;severity=CRITICAL">Refunds mine</a>'
    assert link in html
    html = client.get("/review/?q=refund&severity=CRITICAL").content.decode()
    assert 'aria-current="true">Refunds mine</a>' in html and _listed(html) == [refund.pk]


def test_saving_under_a_used_name_replaces_it(client, reviewer, cases):
    client.force_login(reviewer)
    client.post("/review/saved-filters/", {"name": "Mine", "query": "assignee=me"})
    client.post("/review/saved-filters/", {"name": "Mine", "query": "held=me"})

    assert list(SavedQueueFilter.objects.values_list("name", "query")) == [("Mine", "held=me")]
    assert AuditEvent.objects.filter(action="queue_filter.saved").latest("id").payload["replaced"] is True


def test_saved_filters_are_each_persons_own(client, reviewer, second_reviewer, cases):
    client.force_login(reviewer)
    client.post("/review/saved-filters/", {"name": "Rita's refunds", "query": "q=refund"})
    saved = SavedQueueFilter.objects.get()

    ravi = signed_in(second_reviewer)
    assert "Rita&#x27;s refunds" not in ravi.get("/review/").content.decode()
    response = ravi.post(f"/review/saved-filters/{saved.pk}/delete", {"query": ""}, follow=True)
    assert "That saved filter is not one of yours" in response.content.decode()
    assert SavedQueueFilter.objects.filter(pk=saved.pk).exists()

    response = client.post(f"/review/saved-filters/{saved.pk}/delete", {"query": "q=refund"})
    assert response.status_code == 302 and response["Location"] == "/review/?q=refund"
    assert not SavedQueueFilter.objects.exists()
    assert AuditEvent.objects.get(action="queue_filter.deleted").payload == {"name": "Rita's refunds",
                                                                             "query": "q=refund"}


@pytest.mark.parametrize(("data", "message"), [
    ({"name": "", "query": "q=refund"}, "name: give these filters a name to save them under."),
    ({"name": "   ", "query": "q=refund"}, "name: give these filters a name to save them under."),
    ({"name": "x" * 61, "query": "q=refund"}, "name: at most 60 characters."),
    ({"name": "Everything", "query": "after=zz"}, "filters: the queue shows everything as it is"),
])
def test_a_saved_filter_that_cannot_be_stored_is_refused_naming_the_field(client, reviewer, cases, data, message):
    client.force_login(reviewer)

    response = client.post("/review/saved-filters/", data)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert 'id="queue-results"' in response.content.decode()  # the queue, with why
    assert not SavedQueueFilter.objects.exists()


def test_saved_filters_are_limited_in_number(client, reviewer, cases):
    client.force_login(reviewer)
    for number in range(MAX_SAVED_FILTERS):
        client.post("/review/saved-filters/", {"name": f"f{number}", "query": f"q=w{number}"})

    response = client.post("/review/saved-filters/", {"name": "one more", "query": "q=more"})

    assert response.status_code == 400
    assert f"name: you have {MAX_SAVED_FILTERS} saved filters already" in response.content.decode()
    assert SavedQueueFilter.objects.count() == MAX_SAVED_FILTERS


@pytest.mark.parametrize("persona", ["outsider", "support_lead"])
def test_saved_filters_are_for_reviewers(client, persona, request):
    client.force_login(request.getfixturevalue(persona))
    assert client.post("/review/saved-filters/", {"name": "x", "query": "q=x"}).status_code == 403
    assert client.post("/review/saved-filters/1/delete").status_code == 403


def test_saved_filter_views_take_posts_only(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/review/saved-filters/").status_code == 405
    assert client.get("/review/saved-filters/1/delete").status_code == 405
