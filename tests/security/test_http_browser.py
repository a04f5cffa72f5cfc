# ruff: noqa: F811  (the browser fixtures are imported from tests/support, then requested)
"""The sign-in's redirect and the Content-Security-Policy in Chromium (Playwright,
tests/browser's harness).

* After signing in, `?next=` is followed only to a page of this site: `/\\evil.example`,
  `/\\t/evil.example`, `//evil`, `https://evil`, `javascript:` … all land on "/".
* The pages and /api/docs/ run under the Content-Security-Policy without a single violation
  (Swagger UI, served from this site, renders the API's operations)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.browser import CHROMIUM, browser, desktop, live, site  # noqa: F401  (fixtures)
from tests.support.personas import PASSWORD

pytestmark = [
    pytest.mark.browser,
    # tests/browser/conftest.py adds these to browser tests when it is collected as a conftest;
    # run from here alone, it is only imported, so this module says them itself.
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Debian's chromium is not installed (apt-get install -y chromium): browser test skipped",
    ),
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume"),
]

HOSTILE = [
    "/\\evil.example",
    "/\t/evil.example",
    "/\\/evil.example",
    "//evil.example",
    "///evil.example",
    "/\n/evil.example",
    "/ /evil.example",
    "https://evil.example",
    "http:evil.example",
    "javascript:alert(1)",
    "evil.example",
    "\\\\evil.example",
    "",
    "/",
]
KEPT = ["/tokens", "/games/abc?x=1#y", "/players/%2F%2Fevil", "/leaderboards/expert"]


def _watch_csp(page: Any) -> list[str]:
    """Every Content-Security-Policy violation the page reports."""
    violations: list[str] = []
    page.on(
        "console",
        lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    return violations


def test_safe_next_accepts_only_paths_of_this_site(desktop: Any) -> None:
    page = desktop.new_page()
    page.goto("/signin")
    results = page.evaluate(
        """async (cases) => {
            const { safeNext } = await import("/static/frontend/js/next.js");
            return cases.map((c) => safeNext(c));
        }""",
        HOSTILE + KEPT,
    )
    assert dict(zip(HOSTILE + KEPT, results, strict=True)) == {
        **{case: "/" for case in HOSTILE},
        **{case: case for case in KEPT},
    }


@pytest.mark.parametrize("next_value", ["/%5Cevil.example", "/%09/evil.example", "//evil.example"])
def test_signing_in_with_a_hostile_next_stays_on_the_site(
    desktop: Any, live: str, next_value: str
) -> None:
    username = "nina" + str(abs(hash(next_value)) % 10_000)
    registered = desktop.request.post(
        "/api/auth/register", data={"username": username, "password": PASSWORD}
    )
    assert registered.status == 201
    page = desktop.new_page()
    page.goto(f"/signin?next={next_value}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live}/")
    assert page.url == f"{live}/"
    assert page.locator("body").get_attribute("data-user") == username


def test_the_pages_run_under_the_csp_without_violations(desktop: Any) -> None:
    page = desktop.new_page()
    violations = _watch_csp(page)
    for path in ["/", "/leaderboards", "/how-to-play", "/signin", "/signup"]:
        response = page.goto(path)
        assert response is not None and response.ok
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
    # The home page's scripts ran (the level cards are wired up by home.js).
    page.goto("/")
    page.wait_for_selector(".level-card")
    assert violations == []


def test_api_docs_render_from_this_site_under_the_csp(desktop: Any, live: str) -> None:
    page = desktop.new_page()
    violations = _watch_csp(page)
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(live) else None)
    page.goto("/api/docs/")
    page.wait_for_selector(".opblock-summary-path", timeout=30_000)  # operations listed
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/api/games" in p for p in paths), json.dumps(paths)
    assert violations == []
    assert outside == []  # nothing fetched from a CDN
