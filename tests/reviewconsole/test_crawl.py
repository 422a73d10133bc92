"""A crawl of every URL pattern as every role: no page shows template source, and none answers 5xx.

The ids come from data made the real way (cases submitted and run, decided by a reviewer, an export, a
calibration run), so each page is opened on a row that exists; a new pattern fails the crawl until it is
given one here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, User
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from reviewconsole.accounts.links import set_password_tokens
from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditExport, ChainCheck, ExportFormat
from reviewconsole.intake.models import Claim
from reviewconsole.intake.services import client_create
from reviewconsole.policy.calibration import calibration_request
from reviewconsole.policy.models import NamedConstitution, RubricVersion
from reviewconsole.policy.rubrics import BUILTIN_RUBRIC_NAME
from reviewconsole.review.models import Escalation
from reviewconsole.review.services import queue_filter_save
from reviewconsole.support.selectors import AuditFilter
from reviewconsole.support.services import export_start
from reviewconsole.webhooks.models import WebhookDelivery
from tests.reviewconsole.audit.conftest import decide, run_case
from tests.reviewconsole.review.conftest import refund_case
from tests.reviewconsole.workbench.test_scorer_page import BETTER, model_version

pytestmark = pytest.mark.django_db

TEMPLATE_SYNTAX = ("{#", "{%", "{{", "#}", "%}", "}}")
_SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
_PARAMETER = re.compile(r"<(?:[^>:]+:)?(\w+)>|\(\?P<(\w+)>(?:[^()]|\([^()]*\))*\)")


def _routes(patterns, prefix: str = "") -> Iterator[str]:
    for pattern in patterns:
        route = prefix + str(pattern.pattern).lstrip("^").rstrip("$").replace("\\", "")
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route


@dataclass
class Seeded:
    """Rows every parametrised page can be opened on."""

    values: dict[tuple[str, str], str]
    """(route prefix, parameter) -> a real value; the longest matching prefix wins."""

    def value(self, route: str, parameter: str) -> str:
        matches = [(prefix, value) for (prefix, name), value in self.values.items()
                   if name == parameter and route.startswith(prefix)]
        if not matches:
            pytest.fail(f"the crawl has no real value for <{parameter}> in {route!r}: add one to `seeded`")
        return max(matches, key=lambda match: len(match[0]))[1]

    def url(self, route: str) -> str:
        def fill(found: re.Match) -> str:
            return self.value(route, found.group(1) or found.group(2))

        return "/" + _PARAMETER.sub(fill, route)


@pytest.fixture
def seeded(reviewer, support_lead, policy_admin) -> Seeded:
    bot, _ = client_create(name="support-bot", webhook_url="https://client.example/hooks")
    decided = run_case(bot, refund_case(external_id="crawl-decided"))
    run_case(bot, refund_case(external_id="crawl-open"))
    decide(decided, reviewer, approve=False)
    open_case = Escalation.objects.filter(status="OPEN").select_related("case").first().case
    export = export_start(requested_by=support_lead, export_format=ExportFormat.JSONL, audit_filter=AuditFilter())
    run = calibration_request(rubric_version=RubricVersion.objects.get(document__name=BUILTIN_RUBRIC_NAME, number=1),
                              requested_by=policy_admin)
    delivery = WebhookDelivery.objects.order_by("pk").first()
    assert delivery is not None and AuditExport.objects.filter(pk=export.pk).exists()
    token = set_password_tokens.make_token(reviewer)
    saved_filter = queue_filter_save(owner=reviewer, name="Critical", query="severity=CRITICAL")
    scorer_model = model_version(NamedConstitution.objects.get(name="customer-support"), 1, BETTER)
    return Seeded({
        ("policy/scorer-models/", "number"): str(scorer_model.number),
        ("policy/constitutions/", "name"): "customer-support",
        ("policy/constitutions/", "number"): "1",
        ("policy/rubrics/", "name"): BUILTIN_RUBRIC_NAME,
        ("policy/rubrics/", "number"): "1",
        ("policy/calibration/", "run_id"): str(run.pk),
        ("", "case_id"): str(decided.pk),
        ("review/cases/", "case_id"): str(open_case.pk),
        ("review/saved-filters/", "saved_filter_id"): str(saved_filter.pk),
        ("review/cases/", "claim_pk"): str(Claim.objects.filter(candidate__case=open_case).order_by("pk").first().pk),
        ("api/", "case_id"): str(decided.pk),
        ("api/", "path"): "v0/no-such-endpoint",
        ("audit/exports/", "export_id"): str(export.pk),
        ("audit/chain-checks/", "check_id"): str(ChainCheck.objects.create(requested_by=support_lead).pk),
        ("audit/metrics/", "series"): "unsafe-release",
        ("team/people/", "pk"): str(reviewer.pk),
        ("team/clients/", "pk"): str(bot.pk),
        ("team/webhooks/", "pk"): str(delivery.pk),
        ("set-password/", "uidb64"): urlsafe_base64_encode(force_bytes(reviewer.pk)),
        ("set-password/", "token"): token,
    })


def _users(reviewer, policy_admin, support_lead, outsider) -> dict[str, User | None]:
    users: dict[str, User | None] = {"anonymous": None, "outsider": outsider}
    personas = {Role.REVIEWER: reviewer, Role.POLICY_ADMIN: policy_admin, Role.SUPPORT_LEAD: support_lead}
    for role in Role:
        # Every role the console knows, including any added after these personas were written.
        user = personas.get(role)
        if user is None:
            user = User.objects.create_user(username=f"crawl-{role.slug}")
            user.groups.add(Group.objects.get_or_create(name=role.value)[0])
        users[role.value] = user
    return users


def _template_source_in(html: str) -> list[str]:
    text = _SCRIPT.sub("", html)
    return [marker for marker in TEMPLATE_SYNTAX if marker in text]


def test_every_page_as_every_role_shows_no_template_syntax_and_no_server_error(
    client, seeded, reviewer, policy_admin, support_lead, outsider
):
    routes = sorted(set(_routes(get_resolver().url_patterns)))
    # With the error pages: an address nothing answers, and a pattern that matches a row that does not exist.
    urls = [*map(seeded.url, routes),
            "/no-such-page/", "/policy/constitutions/no-such-constitution/v9/", "/review/cases/999999/"]
    assert len(urls) > 40 and "/policy/constitutions/customer-support/v1/" in urls

    problems: list[str] = []
    statuses: dict[str, set[int]] = {}
    for who, user in _users(reviewer, policy_admin, support_lead, outsider).items():
        client.logout()
        if user is not None:
            client.force_login(user)
        for url in urls:
            response = client.get(url)
            statuses.setdefault(url, set()).add(response.status_code)
            if response.status_code >= 500:
                problems.append(f"{who} {url}: {response.status_code}")
            if "text/html" in response.get("Content-Type", "") and not response.streaming:
                found = _template_source_in(response.content.decode())
                if found:
                    problems.append(f"{who} {url}: template syntax {found} in the page")

    assert problems == []
    # The crawl reached the pages themselves, not only sign-in redirects and refusals.
    case_page = f"/review/cases/{seeded.value('review/cases/', 'case_id')}/"
    for page in ("/policy/constitutions/customer-support/v1/", "/audit/metrics/", case_page, "/"):
        assert 200 in statuses[page], (page, statuses[page])


def test_the_favicon_is_served_from_the_address_browsers_ask(client):
    response = client.get("/favicon.ico", follow=True)

    assert response.status_code == 200 and response.redirect_chain[0][0].endswith("favicon.ico")
    icon = b"".join(response.streaming_content) if response.streaming else response.content
    assert icon[:4] == b"\x00\x00\x01\x00"  # an .ico file's header
