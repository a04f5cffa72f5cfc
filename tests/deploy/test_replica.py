"""A real streaming replica (docs/DEPLOYMENT.md, "A PostgreSQL replica"): a private primary
cluster, a second cluster made from it with ``pg_basebackup -R``, and a production server
process with DATABASE_URL (the primary) and DATABASE_REPLICA_URL (the replica). The replica's
replay is paused, so it lags on demand: what the server answers shows which database served
each read, and the replica's statement log shows the leaderboard's SQL reached it.

Never the shared PostgreSQL at 127.0.0.1:5432: everything runs on private clusters."""

from __future__ import annotations

import glob
import shutil
from typing import Any

import pytest

from tests.support.personas import sign_up_on
from tests.support.services import (
    AppServer,
    PrivatePostgres,
    PrivateReplica,
    migrate,
    postgres_missing,
)

_MISSING = postgres_missing()
if _MISSING is None and not (
    shutil.which("pg_basebackup") or glob.glob("/usr/lib/postgresql/*/bin/pg_basebackup")
):
    _MISSING = "pg_basebackup is not installed"

pytestmark = pytest.mark.skipif(_MISSING is not None, reason=_MISSING or "")


@pytest.fixture(scope="module")
def cluster() -> Any:
    with PrivatePostgres(fsync=False) as primary:
        url = primary.create_database("demineur")
        migrate(url)
        with PrivateReplica(primary) as replica:
            replica.wait_for_replay()
            yield primary, replica, url, replica.url("demineur")


def test_lagging_reads_are_served_by_the_replica_and_a_writer_reads_its_writes(
    cluster: Any,
) -> None:
    _primary, replica, url, replica_url = cluster
    with AppServer("uvicorn", DATABASE_URL=url, DATABASE_REPLICA_URL=replica_url) as server:
        token = sign_up_on(server, "alice")
        replica.wait_for_replay()
        replica.pause()  # from now on the replica lags behind the primary
        try:
            status, _, game, _ = server.request(
                "POST", "/api/games", {"level": "beginner"}, token=token
            )
            assert status == 201, game

            # Anyone else: the list is the replica's, which has not seen the new game.
            status, _, listed, _ = server.request("GET", "/api/games?user=alice")
            assert status == 200 and listed["count"] == 0, listed
            # The player who just wrote reads the primary: her game is there.
            status, _, mine, _ = server.request("GET", "/api/games?user=alice", token=token)
            assert status == 200 and [g["id"] for g in mine["results"]] == [game["id"]], mine
            # A game itself is always read on the primary (its reader compares it with `seq`).
            status, _, one, _ = server.request("GET", f"/api/games/{game['id']}")
            assert status == 200 and one["id"] == game["id"], one

            # A leaderboard read: its SQL reaches the replica (the replica's statement log).
            before = replica.log().count("accounts_personal_record")
            status, _, board, _ = server.request("GET", "/api/leaderboards/beginner/times")
            assert status == 200, board
            assert replica.log().count("accounts_personal_record") > before, replica.log()[-2000:]
            # A profile read by someone else: the replica too.
            before = replica.log().count("accounts_player_stats")
            status, _, profile, _ = server.request("GET", "/api/users/alice")
            assert status == 200 and profile["username"] == "alice", profile
            assert replica.log().count("accounts_player_stats") > before
        finally:
            replica.resume()
        replica.wait_for_replay()
        status, _, listed, _ = server.request("GET", "/api/games?user=alice")
        assert status == 200 and listed["count"] == 1, listed
        # The replica refuses writes: nothing was ever written there by the server.
        assert replica.sql("SELECT pg_is_in_recovery()") == "t"
        assert "cannot execute" not in replica.log(), replica.log()[-2000:]


def test_a_replica_that_is_down_answers_503_and_moves_go_on(cluster: Any) -> None:
    """Last in the module: it stops the replica. A lagging read is then the API.md error body
    with 503 (never a 500), /readyz stays 200 with the replica reported down, and a player
    still plays (a move needs the primary only)."""
    _primary, replica, url, replica_url = cluster
    with AppServer("uvicorn", DATABASE_URL=url, DATABASE_REPLICA_URL=replica_url) as server:
        token = sign_up_on(server, "bob")
        status, _, game, _ = server.request(
            "POST", "/api/games", {"level": "beginner"}, token=token
        )
        assert status == 201, game
        replica.stop()
        status, _, board, _ = server.request("GET", "/api/leaderboards/beginner/times")
        assert status == 503, board
        assert board["error"]["code"] == "service_unavailable", board
        status, _, ready, _ = server.request("GET", "/readyz")
        assert status == 200 and ready["checks"]["replica"]["ok"] is False, ready
        assert ready["checks"]["database"]["ok"] is True
        status, _, moved, _ = server.request(
            "POST", f"/api/games/{game['id']}/reveal", {"x": 4, "y": 4}, token=token
        )
        assert status == 200 and moved["seq"] == 1, moved
        assert "Traceback" not in server.output(), server.output()[-3000:]
