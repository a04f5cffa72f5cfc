"""The database router's choices (demineur_site.db_router, docs/DEPLOYMENT.md): without a
replica everything is Django's default; with one, which reads go where, writes and
transactions always on the primary, and read-your-own-writes through the cache marker. The
real replica is tests/deploy/test_replica.py; the settings are read in a subprocess."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from accounts.models import ApiToken, User
from accounts.standings.models import PlayerStats
from demineur_site import db_router
from demineur_site.db_router import (
    PRIMARY,
    REPLICA,
    PrimaryReplicaRouter,
    ReadYourWritesMiddleware,
    lagging_reads,
    primary_reads,
    read_alias,
)
from demineur_site.health import check_redis
from deploy.processes import run_python
from games.play import selectors
from games.play.models import Game
from tests.support.redis_watch import watching
from tests.support.services import PrivateRedis, app_env, free_port, redis_missing, settings_under

router = PrimaryReplicaRouter()


@pytest.fixture
def replica(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `replica` alias in the settings (never connected to: these tests ask the router)."""
    monkeypatch.setitem(settings.DATABASES, REPLICA, dict(settings.DATABASES[PRIMARY]))


def test_without_a_replica_everything_is_the_default() -> None:
    assert REPLICA not in settings.DATABASES
    assert router.db_for_read(Game) is None and router.db_for_write(Game) is None
    with lagging_reads() as alias:
        assert alias == PRIMARY and router.db_for_read(Game) is None
    assert read_alias() == PRIMARY
    assert selectors.game_list(state=None, level=None, user=None).db == PRIMARY


@pytest.mark.usefixtures("replica")
def test_with_a_replica_only_the_reads_that_may_lag_go_there() -> None:
    assert router.db_for_read(Game) == PRIMARY  # an unmarked read: the primary
    # Sign-in reads are never the replica's: a revoked token or a disabled account must not
    # be accepted from a copy that has not replayed the revocation yet.
    assert ApiToken.objects.all().db == PRIMARY and User.objects.all().db == PRIMARY
    with lagging_reads() as alias:
        assert alias == REPLICA and router.db_for_read(PlayerStats) == REPLICA
        assert router.db_for_write(PlayerStats) == PRIMARY
        # select_for_update is a read for writing: the primary, even inside lagging_reads.
        assert Game.objects.select_for_update().db == PRIMARY
    assert selectors.game_list(state=None, level=None, user=None).db == REPLICA
    # A single game is always read on the primary.
    assert Game.objects.select_related("player").all().db == PRIMARY
    assert router.allow_migrate(REPLICA, "games") is False
    assert router.allow_migrate(PRIMARY, "games") is None


@pytest.mark.usefixtures("replica")
def test_a_pinned_client_reads_the_primary() -> None:
    with primary_reads():
        assert read_alias() == PRIMARY
        with lagging_reads() as alias:
            assert alias == PRIMARY and router.db_for_read(Game) == PRIMARY
        assert selectors.game_list(state=None, level=None, user=None).db == PRIMARY
    assert read_alias() == REPLICA


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("replica")
def test_every_read_inside_a_transaction_is_the_primarys() -> None:
    assert read_alias() == REPLICA
    with transaction.atomic():
        assert read_alias() == PRIMARY
        with lagging_reads():
            assert router.db_for_read(PlayerStats) == PRIMARY
        assert selectors.game_list(state=None, level=None, user=None).db == PRIMARY
    assert read_alias() == REPLICA


def _seen(request: HttpRequest) -> HttpResponse:
    return HttpResponse(read_alias())


def _through(request: HttpRequest) -> str:
    return ReadYourWritesMiddleware(_seen)(request).content.decode()


@pytest.mark.usefixtures("replica")
def test_a_writer_reads_its_own_writes_on_the_primary_others_the_replica() -> None:
    rf = RequestFactory()
    alice = {"HTTP_AUTHORIZATION": "Token alice-token-0123456789"}
    bob = {"HTTP_AUTHORIZATION": "Token bob-token-0123456789"}
    key = db_router.client_key(rf.get("/", **alice))
    assert key is not None and "alice" not in key  # the token itself is never a cache key
    cache.delete(key)
    try:
        assert _through(rf.get("/api/games", **alice)) == REPLICA
        assert _through(rf.post("/api/games", **alice)) == PRIMARY  # the write itself
        assert cache.get(key)  # the marker every web node sees
        assert _through(rf.get("/api/games", **alice)) == PRIMARY  # right after her write
        assert _through(rf.get("/api/leaderboards/expert/times", **alice)) == PRIMARY
        assert _through(rf.get("/api/games", **bob)) == REPLICA  # somebody else
        assert _through(rf.get("/api/games")) == REPLICA  # anonymous
        cache.delete(key)  # the marker expired (REPLICA_PIN_SECONDS)
        assert _through(rf.get("/api/games", **alice)) == REPLICA
        # Her own profile is always the primary's.
        assert _through(rf.get("/api/me", **alice)) == PRIMARY
    finally:
        cache.delete(key)


def test_the_session_cookie_identifies_a_browser() -> None:
    rf = RequestFactory()
    one = rf.get("/")
    one.COOKIES[settings.SESSION_COOKIE_NAME] = "session-one"
    two = rf.get("/")
    two.COOKIES[settings.SESSION_COOKIE_NAME] = "session-two"
    assert db_router.client_key(one) not in (None, db_router.client_key(two))
    assert db_router.client_key(rf.get("/")) is None


def test_without_a_replica_the_middleware_sets_no_marker() -> None:
    rf = RequestFactory()
    request = rf.post("/api/games", HTTP_AUTHORIZATION="Token carol-token-0123456789")
    key = db_router.client_key(request)
    assert key is not None
    cache.delete(key)
    assert _through(request) == PRIMARY
    assert cache.get(key) is None


def _settings_of(**env: str) -> dict[str, Any]:
    code = (
        "print(json.dumps({'db': s.DATABASES, 'layer': s.CHANNEL_LAYERS['default'], "
        "'cache': s.CACHES['default'], 'redis_url': s.REDIS_URL, "
        "'routers': s.DATABASE_ROUTERS}, default=str))"
    )
    return dict(json.loads(settings_under(app_env(**env), code)))


def test_settings_build_the_replica_and_the_redis_shards() -> None:
    got = _settings_of(
        DATABASE_URL="postgres://app@db-primary:5432/demineur",
        DATABASE_REPLICA_URL="postgres://app@db-replica:5432/demineur",
        REDIS_URLS="redis://r1:6379/0, redis://r2:6379/0,redis://r3:6379/0",
        DB_POOL="1",
    )
    primary, replica = got["db"]["default"], got["db"]["replica"]
    assert (primary["HOST"], replica["HOST"]) == ("db-primary", "db-replica")
    assert replica["OPTIONS"]["pool"] == primary["OPTIONS"]["pool"]  # the same options
    assert replica["TEST"]["MIRROR"] == "default"
    assert got["routers"] == ["demineur_site.db_router.PrimaryReplicaRouter"]
    assert got["layer"]["CONFIG"]["hosts"] == [
        "redis://r1:6379/0",
        "redis://r2:6379/0",
        "redis://r3:6379/0",
    ]
    # The cache (and the socket caps, through REDIS_URL) on the first host only.
    assert got["cache"]["LOCATION"] == "redis://r1:6379/0" == got["redis_url"]

    one = _settings_of(REDIS_URL="redis://only:6379/2")  # REDIS_URL alone: one host
    assert one["layer"]["CONFIG"]["hosts"] == ["redis://only:6379/2"]
    assert "replica" not in one["db"]


def test_a_replica_without_a_primary_is_refused() -> None:
    env = app_env(DATABASE_REPLICA_URL="postgres://app@db-replica:5432/demineur")
    done = run_python("-c", "import django; django.setup()", env=env, timeout=60)
    assert done.returncode != 0 and "DATABASE_REPLICA_URL needs DATABASE_URL" in done.stderr


def test_readiness_pings_every_redis_host(monkeypatch: pytest.MonkeyPatch) -> None:
    dead = [f"redis://127.0.0.1:{free_port()}/0", f"redis://127.0.0.1:{free_port()}/0"]
    live = [settings.REDIS_URL] if settings.REDIS_URL else []
    monkeypatch.setattr(settings, "REDIS_URLS", [*live, *dead], raising=False)
    monkeypatch.setattr(settings, "REDIS_URL", [*live, *dead][0])
    result = check_redis()
    assert result["ok"] is False and result["configured"] is True
    assert [h["ok"] for h in result["hosts"]] == [True] * len(live) + [False, False]
    assert all("error" in h for h in result["hosts"][len(live) :])


@pytest.mark.skipif(redis_missing() is not None, reason=f"needs redis-server: {redis_missing()}")
async def test_the_redis_watch_sees_an_outage_of_any_shard(monkeypatch: pytest.MonkeyPatch) -> None:
    """REDIS_URLS: the first host answers, the second does not. The watch asks every host, so
    it reports Redis down (before, it pinged REDIS_URL only and saw nothing wrong)."""
    with PrivateRedis() as live:
        dead = f"redis://127.0.0.1:{free_port()}/0"
        async with watching(monkeypatch, [live.url(), dead]) as (watch, _):
            for _ in range(100):  # a bound on the wait, not a speed check
                if not watch.up:
                    break
                await asyncio.sleep(0.1)
            assert watch.up is False
