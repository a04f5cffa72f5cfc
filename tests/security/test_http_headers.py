"""Production headers.

* With HTTPS=1: HSTS, Secure cookies, plain HTTP redirected; X-Forwarded-Proto is believed only
  when TRUSTED_PROXIES > 0 (checked against a real server with DEBUG off).
* `manage.py check --deploy --fail-level WARNING` is clean with the production settings.
* Every page carries a Content-Security-Policy that allows scripts from this site only, and
  the pages have no inline script for it to block.
* /api/docs/ loads Swagger UI from this site (drf-spectacular-sidecar), not from a CDN."""

from __future__ import annotations

import http.client
import os
import re
import secrets
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import django
import pytest
from django.test import Client

from deploy.processes import run_python
from tests.support.services import settings_under

from .http_servers import ROOT, Server, base_env, migrated_sqlite

PRODUCTION = {
    "DEBUG": "0",
    "HTTPS": "1",
    "SECRET_KEY": secrets.token_urlsafe(60),
    "ALLOWED_HOSTS": "demineur.example,127.0.0.1",
    # Mailed links point here (accounts.E001 without it: tests/accounts/test_mailed_link_host.py).
    "SITE_URL": "https://demineur.example",
}


def test_check_deploy_is_clean_with_the_production_settings(tmp_path: Path) -> None:
    # Production sends mail through SMTP (docs/ACCOUNTS.md): EMAIL_HOST is one of its settings.
    result = run_python(
        *("manage.py", "check", "--deploy", "--fail-level", "WARNING"),
        env=base_env(
            SQLITE_PATH=str(tmp_path / "db.sqlite3"), EMAIL_HOST="smtp.example.org", **PRODUCTION
        ),
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
    if django.VERSION >= (6, 1):
        # Without it the deploy check says mail would only reach the console.
        unset = run_python(
            *("manage.py", "check", "--deploy", "--fail-level", "WARNING"),
            env=base_env(SQLITE_PATH=str(tmp_path / "db.sqlite3"), **PRODUCTION),
            timeout=120,
        )
        assert unset.returncode != 0 and "mail.E001" in unset.stdout + unset.stderr


def _settings_in(**env: str) -> dict[str, str]:
    code = (
        "for name in ('SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_HSTS_SECONDS',"
        " 'SECURE_SSL_REDIRECT', 'SECURE_PROXY_SSL_HEADER'):\n"
        "    print(name, repr(getattr(s, name, None)))\n"
    )
    printed = settings_under(base_env(**env), code)
    return dict(line.split(" ", 1) for line in printed.splitlines())


def test_https_turns_on_hsts_and_secure_cookies_and_proxies_are_believed_only_when_trusted() -> (
    None
):
    plain = _settings_in(DEBUG="1")
    assert plain["SESSION_COOKIE_SECURE"] == "None"  # not set: Django's default, False
    assert plain["SECURE_PROXY_SSL_HEADER"] == "None"
    https = _settings_in(**PRODUCTION)
    assert https["SESSION_COOKIE_SECURE"] == https["CSRF_COOKIE_SECURE"] == "True"
    assert int(https["SECURE_HSTS_SECONDS"]) >= 31536000
    assert https["SECURE_SSL_REDIRECT"] == "True"
    assert https["SECURE_PROXY_SSL_HEADER"] == "None"  # no trusted proxy: no header believed
    proxied = _settings_in(**PRODUCTION, TRUSTED_PROXIES="1")
    assert proxied["SECURE_PROXY_SSL_HEADER"] == "('HTTP_X_FORWARDED_PROTO', 'https')"


def _get(port: int, path: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers={"Host": "demineur.example", **headers})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


@pytest.mark.parametrize("trusted", [0, 1])
def test_a_production_server_sends_hsts_and_secure_cookies(tmp_path: Path, trusted: int) -> None:
    template = migrated_sqlite()
    args = ["--no-proxy-headers"]  # as `make run` does unless TRUSTED_PROXIES > 0
    with Server(
        "uvicorn",
        tmp_path / "prod",
        template,
        args=args,
        TRUSTED_PROXIES=str(trusted),
        **PRODUCTION,
    ) as server:
        plain = _get(server.port, "/", {})
        forwarded = _get(server.port, "/", {"X-Forwarded-Proto": "https"})
    # Plain HTTP goes to HTTPS.
    assert plain.status == 301
    assert plain.headers["Location"] == "https://demineur.example/"
    if not trusted:
        # Nobody vouches for the header: the request is still plain HTTP.
        assert forwarded.status == 301
        return
    assert forwarded.status == 200
    assert forwarded.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    cookies = forwarded.headers.get_all("Set-Cookie") or []
    csrf = [c for c in cookies if c.startswith("csrftoken=")]
    assert csrf and all("Secure" in c for c in csrf), cookies
    assert "script-src 'self'" in forwarded.headers["Content-Security-Policy"]


PAGES = ["/", "/leaderboards", "/how-to-play", "/signin", "/signup", "/tokens", "/players/alice"]


@pytest.mark.django_db
def test_pages_carry_a_csp_that_allows_only_this_sites_scripts(alice: Any) -> None:
    # alice exists: an unknown player's profile is a 404 page (its CSP is checked the same).
    client = Client()
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 200, path
        policy = dict(
            [*part.strip().split(" ", 1), ""][:2]
            for part in response["Content-Security-Policy"].split(";")
        )
        assert policy["script-src"] == "'self'"
        assert policy["default-src"] == "'self'"
        assert policy["object-src"] == "'none'"
        assert policy["frame-ancestors"] == "'none'"
        assert "'unsafe-inline'" not in policy["style-src"]
        html = response.content.decode()
        # Nothing the policy would block: no inline script, no event-handler attribute.
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), path
        assert not re.search(r"\son[a-z]+=", html), path
    api = client.get("/api/leaderboards/beginner/times")
    assert "Content-Security-Policy" in api


@pytest.mark.django_db
def test_api_docs_load_swagger_ui_from_this_site() -> None:
    client = Client()
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "cdn" not in html.lower()
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    assert urls, html
    for url in urls:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc, url  # same site, no external URL
        asset = client.get(url)
        assert asset.status_code == 200, url
        if hasattr(asset, "streaming_content"):
            body = b"".join(asset.streaming_content)
        else:
            body = asset.content
        assert body, url
    assert any("swagger-ui-bundle" in u for u in urls)
    assert any("script" in u for u in urls)  # the start-up script, served by the view
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)  # no inline script
    assert "<style" not in html  # no inline style element either


def test_the_makefile_does_not_let_uvicorn_believe_x_forwarded_for() -> None:
    run = [
        line
        for line in (ROOT / "Makefile").read_text().splitlines()
        if "uvicorn demineur_site" in line
    ]
    assert run and "--no-proxy-headers" in run[0], run
    for trusted, expected in (("0", "--no-proxy-headers"), ("1", "")):
        shell = subprocess.run(
            ["bash", "-c", 'echo $([ "${TRUSTED_PROXIES:-0}" -gt 0 ] || echo --no-proxy-headers)'],
            env={**os.environ, "TRUSTED_PROXIES": trusted},
            capture_output=True,
            text=True,
            check=True,
        )
        assert shell.stdout.strip() == expected
    assert '$$([ "$${TRUSTED_PROXIES:-0}" -gt 0 ] || echo --no-proxy-headers)' in run[0]
