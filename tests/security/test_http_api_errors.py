"""Every answer under /api/ is the API.md error
body, whatever refused the request: JSON nested too deep, an unknown path under CSRF, a failed
CSRF check, an unexpected exception with DEBUG on."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client, RequestFactory

from accounts.models import User
from tests.support.http import assert_error, new_game
from tests.support.personas import PASSWORD


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [5_000, 30_000])  # 30,000 deep still fits in 64 KiB
def test_json_nested_too_deep_is_a_400_on_every_endpoint(
    alice_api: Any, anon_api: Any, depth: int
) -> None:
    game = new_game(alice_api, "expert")
    body = '{"x": ' + _nested(depth) + "}"
    for api, path in [
        (anon_api, "/api/auth/register"),
        (anon_api, "/api/auth/token"),
        (alice_api, "/api/games"),
        (alice_api, f"/api/games/{game['id']}/reveal"),
        (alice_api, f"/api/games/{game['id']}/flag"),
        (alice_api, f"/api/games/{game['id']}/chord"),
    ]:
        for raw in (body, _nested(depth)):
            assert_error(
                api.post(path, data=raw, content_type="application/json"), 400, "malformed_json"
            )
    # Nothing was stored: the game is still untouched.
    assert alice_api.get(f"/api/games/{game['id']}").json()["seq"] == 0


def _signed_in_browser(user: User) -> Client:
    """A browser-like client: session cookie, CSRF enforced, no CSRF token sent."""
    client = Client(enforce_csrf_checks=True)
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete", "options"])
def test_an_unknown_api_path_is_a_json_404_for_every_method_even_without_csrf(
    alice: User, method: str
) -> None:
    for client in (Client(enforce_csrf_checks=True), _signed_in_browser(alice)):
        for path in ("/api/nope", "/api/nope/deeper/", "/api/games/x/y/z/w"):
            response = getattr(client, method)(path)
            assert_error(response, 404, "not_found")
            assert response["Content-Type"].startswith("application/json")


def test_a_failed_csrf_check_on_a_real_path_is_a_json_403(alice: User) -> None:
    client = _signed_in_browser(alice)
    response = client.post(
        "/api/games", data={"level": "beginner"}, content_type="application/json"
    )
    assert_error(response, 403, "csrf_failed")
    # With the token the same request goes through.
    client.get("/")  # the page sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    ok = client.post(
        "/api/games",
        data={"level": "beginner"},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert ok.status_code == 201, ok.content


def test_django_csrf_refusals_under_api_are_json(settings: Any) -> None:
    """Django's own CSRF check (CsrfViewMiddleware, CSRF_FAILURE_VIEW) on a view that is not
    exempt: JSON under /api/, Django's page elsewhere."""
    from django.middleware.csrf import CsrfViewMiddleware

    assert settings.CSRF_FAILURE_VIEW == "demineur_site.api_errors.csrf_failure"

    def plain_view(request: Any) -> HttpResponse:
        return HttpResponse("should not run")

    middleware = CsrfViewMiddleware(lambda request: HttpResponse())
    refused = middleware.process_view(RequestFactory().post("/api/anything"), plain_view, (), {})
    assert refused is not None and refused.status_code == 403
    body = json.loads(refused.content)
    assert body["error"]["code"] == "csrf_failed"
    assert set(body["error"]) == {"code", "message", "details"}
    page = middleware.process_view(RequestFactory().post("/i18n/setlang/"), plain_view, (), {})
    assert page is not None and page.status_code == 403
    assert page["Content-Type"].startswith("text/html")


def test_an_unknown_leaderboard_is_a_404(anon_api: Any) -> None:
    assert_error(anon_api.get("/api/leaderboards/beginner/nope"), 404, "not_found")
    assert_error(anon_api.get("/api/leaderboards/nope/times"), 404, "not_found")


def test_an_unexpected_error_under_api_is_a_json_500_with_debug_on(
    alice_api: Any, settings: Any, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    from games.play import services

    settings.DEBUG = True

    def broken(**kwargs: Any) -> Any:
        raise RuntimeError("boom: an unexpected bug")

    monkeypatch.setattr(services, "game_create", broken)
    alice_api.raise_request_exception = False
    with caplog.at_level(logging.ERROR):
        response = alice_api.post("/api/games", {"level": "beginner"}, format="json")
    assert_error(response, 500, "server_error")
    assert b"boom" not in response.content  # no traceback or message in the answer
    logged = [r for r in caplog.records if r.exc_info and "boom" in str(r.exc_info[1])]
    assert logged, "the traceback goes to the log"


def test_an_error_in_a_middleware_under_api_is_a_json_500_with_debug_on(
    anon_api: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only view errors: a middleware below ours failing (Django then builds its HTML
    debug page) still answers the JSON body under /api/, and pages keep Django's page."""
    from django.middleware.common import CommonMiddleware

    settings.DEBUG = True

    def broken(self: Any, request: Any, response: Any) -> Any:
        raise RuntimeError("boom in a middleware")

    monkeypatch.setattr(CommonMiddleware, "process_response", broken)
    anon_api.raise_request_exception = False
    response = anon_api.get("/api/leaderboards/beginner/times")
    assert_error(response, 500, "server_error")
    page = anon_api.get("/how-to-play")
    assert page.status_code == 500
    assert page["Content-Type"].startswith("text/html")
