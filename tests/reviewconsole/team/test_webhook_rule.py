"""Where a webhook may point, as the client pages say it: true in every configuration (no networks allowed,
networks an operator allowed, the demo console, which allows loopback so a receiver on the same machine
can be tried)."""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys

import pytest
from django.test import Client as Browser

from reviewconsole.demo_mode import LOOPBACK_NETWORKS
from reviewconsole.intake.models import Client
from reviewconsole.intake.services import client_create
from tests.reviewconsole.subprocesses import _TEST_RUN_VARIABLES, REPO

pytestmark = pytest.mark.django_db

LOCAL_RECEIVER = "http://127.0.0.1:8999/hooks"
REFUSED_HINT = ("An http(s) URL on a public address, without a user name or password: loopback, private, "
                "link-local and other internal addresses are refused.")


@pytest.fixture
def admin(team_admin) -> Browser:
    browser = Browser()
    browser.force_login(team_admin)
    return browser


def _rule_on_each_page(admin: Browser) -> set[str]:
    client, _ = client_create(name="support-bot")
    pages = [admin.get("/team/clients/"), admin.get(f"/team/clients/{client.pk}/"), admin.get("/team/webhooks/")]
    rules = set()
    for page in pages:
        text = page.content.decode()
        start = text.index('id="webhook-rule">') + len('id="webhook-rule">')
        rules.add(text[start:text.index("</p>", start)])
    return rules


def test_with_no_network_allowed_every_page_says_loopback_is_refused_and_it_is(admin, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = []

    assert _rule_on_each_page(admin) == {REFUSED_HINT}
    refused = admin.post("/team/clients/", {"name": "local-bot", "webhook_url": LOCAL_RECEIVER})
    assert refused.status_code == 400
    assert "Webhook URL: 127.0.0.1 is a loopback address" in refused.content.decode()


def test_with_networks_allowed_the_pages_name_them_and_a_receiver_there_is_accepted(admin, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = [ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("10.20.0.0/16")]

    assert _rule_on_each_page(admin) == {
        "An http(s) URL without a user name or password, on a public address or in a network this console allows: "
        "127.0.0.1/32 (loopback), 10.20.0.0/16 (private). Every other address that is not public (loopback, "
        "private, link-local...) is refused."
    }
    made = admin.post("/team/clients/", {"name": "local-bot", "webhook_url": LOCAL_RECEIVER})
    assert made.status_code == 200, made.content.decode()
    assert Client.objects.get(name="local-bot").webhook_url == LOCAL_RECEIVER


def test_the_demo_console_allows_loopback_and_says_so(admin, settings):
    settings.DEMO = True
    settings.WEBHOOK_ALLOWED_NETWORKS = list(LOOPBACK_NETWORKS)  # what DEMO=1 sets (next test)

    [rule] = _rule_on_each_page(admin)
    assert "127.0.0.0/8 (loopback), ::1/128 (loopback)" in rule
    assert rule.endswith("On the demo console loopback is allowed, so a receiver running on this machine gets "
                         "deliveries.")
    made = admin.post("/team/clients/", {"name": "local-bot", "webhook_url": "http://[::1]:8999/hooks"})
    assert made.status_code == 200 and Client.objects.get(name="local-bot").webhook_url == "http://[::1]:8999/hooks"


_ALLOWED = "from django.conf import settings; print(json.dumps([str(n) for n in settings.WEBHOOK_ALLOWED_NETWORKS]))"


def _allowed_networks(tmp_path, **environment: str) -> list[str]:
    clean = {key: value for key, value in os.environ.items() if key not in _TEST_RUN_VARIABLES}
    result = subprocess.run(
        [sys.executable, "-c", f"import json, django; django.setup(); {_ALLOWED}"], cwd=REPO, capture_output=True,
        text=True, timeout=120,
        env={**clean, "DJANGO_SETTINGS_MODULE": "reviewconsole.settings", "VAR_DIR": str(tmp_path), **environment},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_loopback_is_allowed_on_the_demo_console_and_only_there(tmp_path):
    assert _allowed_networks(tmp_path, DEMO="1") == ["127.0.0.0/8", "::1/128"]
    assert _allowed_networks(tmp_path, DEMO="1", WEBHOOK_ALLOWED_NETWORKS="10.20.0.0/16") == [
        "10.20.0.0/16", "127.0.0.0/8", "::1/128"
    ]
    deployment = {"SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "console.example.com"}
    assert _allowed_networks(tmp_path, **deployment) == []
    assert _allowed_networks(tmp_path, **deployment, WEBHOOK_ALLOWED_NETWORKS="10.20.0.0/16") == ["10.20.0.0/16"]
