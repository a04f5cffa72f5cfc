"""Every error under /api/ carries the API.md error body; no input gets a 500."""

from __future__ import annotations

import pytest

from tests.support.http import assert_error, new_game

pytestmark = pytest.mark.django_db


def test_malformed_json_is_a_400(alice_api):
    game = new_game(alice_api)
    response = alice_api.post(
        f"/api/games/{game['id']}/reveal", data='{"x": 1,', content_type="application/json"
    )
    assert_error(response, 400, "malformed_json")
    nan = alice_api.post(
        f"/api/games/{game['id']}/reveal",
        data='{"x": NaN, "y": 1}',
        content_type="application/json",
    )
    assert nan.status_code == 400


def test_a_json_body_that_is_not_an_object_is_a_400(alice_api):
    game = new_game(alice_api)
    for raw in ("[1, 2]", '"x"', "3", "null"):
        response = alice_api.post(
            f"/api/games/{game['id']}/reveal", data=raw, content_type="application/json"
        )
        assert response.status_code == 400, raw
        assert "error" in response.json()


def test_huge_numbers_and_bodies_are_refused(alice_api):
    game = new_game(alice_api)
    digits = "9" * 5000
    response = alice_api.post(
        f"/api/games/{game['id']}/reveal",
        data=f'{{"x": {digits}, "y": 1}}',
        content_type="application/json",
    )
    assert response.status_code == 400 and "error" in response.json()
    big = alice_api.post(
        "/api/games", data='{"level": "' + "a" * 200_000 + '"}', content_type="application/json"
    )
    assert_error(big, 413, "payload_too_large")


def test_a_wrong_content_type_is_a_415(alice_api):
    game = new_game(alice_api)
    response = alice_api.post(
        f"/api/games/{game['id']}/reveal",
        data="x=1&y=1",
        content_type="application/x-www-form-urlencoded",
    )
    assert_error(response, 415, "unsupported_media_type")


def test_unknown_paths_and_methods_carry_the_error_body(alice_api, anon_api):
    assert_error(anon_api.get("/api/nothing-here"), 404, "not_found")
    game = new_game(alice_api)
    assert_error(alice_api.get(f"/api/games/{game['id']}/reveal"), 405, "method_not_allowed")
    assert_error(alice_api.delete(f"/api/games/{game['id']}"), 405, "method_not_allowed")


def test_a_bad_token_is_a_401(anon_api):
    anon_api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(anon_api.get("/api/me"), 401, "authentication_failed")


def test_throttled_requests_get_429_with_retry_after(alice_api, settings):
    from django.core.cache import cache
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    cache.clear()
    original = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = {**api_settings.DEFAULT_THROTTLE_RATES, "user": "2/min"}
    try:
        codes = [alice_api.get("/api/me").status_code for _ in range(3)]
        response = alice_api.get("/api/me")
    finally:
        SimpleRateThrottle.THROTTLE_RATES = original
        cache.clear()
    assert codes[:2] == [200, 200]
    body = assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1
    assert body["error"]["message"]
