"""Health endpoints: `/healthz` answers without touching the database or
Redis; `/readyz` reports each service, 200 when all answer, 503 with the failing one named
otherwise. Outside /api/: no auth, no CSRF, GET and HEAD only. `/readyz` with PostgreSQL down
is in test_postgres_outage.py (real servers, a private PostgreSQL)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from demineur_site import health
from tests.support.services import PrivateRedis, redis_missing


@pytest.fixture
def client() -> Client:
    return Client(enforce_csrf_checks=True)


@pytest.mark.django_db
def test_healthz_answers_ok_without_a_query(client: Client, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]
    assert client.head("/healthz").status_code == 200


@pytest.mark.django_db
def test_healthz_is_not_behind_sign_in_or_a_token(client: Client) -> None:
    response = client.get("/healthz", HTTP_AUTHORIZATION="Token not-a-real-token")
    assert response.status_code == 200  # DRF would answer 401 for an unknown token


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_health_endpoints_only_read(client: Client, path: str) -> None:
    # A POST is refused as a method (405), not as a CSRF failure (403): CSRF is off here.
    assert client.post(path).status_code == 405
    assert client.delete(path).status_code == 405


@pytest.mark.django_db
def test_readyz_reports_each_service(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ready"
    database = body["checks"]["database"]
    assert database["ok"] is True
    assert isinstance(database["ms"], float) and database["ms"] >= 0
    redis = body["checks"]["redis"]
    if settings.REDIS_URL:
        assert redis["ok"] is True and redis["configured"] is True
        assert isinstance(redis["ms"], float)
    else:
        assert redis == {"ok": None, "configured": False}


@pytest.mark.django_db
@pytest.mark.skipif(redis_missing() is not None, reason=f"needs redis-server: {redis_missing()}")
def test_readyz_is_503_and_names_redis_when_redis_is_down(client: Client, settings: Any) -> None:
    with PrivateRedis() as redis:
        settings.REDIS_URL = redis.url()
        assert client.get("/readyz").status_code == 200
        redis.stop()
        start = time.monotonic()
        response = client.get("/readyz")
        taken = time.monotonic() - start
        redis.start()  # the same port, a new empty server
        back = client.get("/readyz")
    assert taken < 10  # behaviour, not speed: the check is bounded, it never hangs
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["redis"]["ok"] is False
    assert body["checks"]["redis"]["error"]
    assert body["checks"]["database"]["ok"] is True
    assert back.status_code == 200, back.content  # the probe's client reconnects by itself


def test_readyz_error_text_is_one_short_line() -> None:
    exc = RuntimeError('connection to "postgres://u:secret@h/d" failed\nmore detail')
    text = health._error_text(exc)
    assert text.startswith("RuntimeError: ")
    assert "more detail" not in text
    assert len(text) <= 200
