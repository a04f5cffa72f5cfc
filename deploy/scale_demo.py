"""`make scale-demo`: Démineur past one machine, on this machine (docs/DEPLOYMENT.md).

Starts, all private and on free ports of 127.0.0.1 (never the shared PostgreSQL or Redis):

* a PostgreSQL primary cluster and a streaming replica of it (``pg_basebackup -R``, a hot
  standby with ``log_statement=all`` so we can see what reaches it);
* three Redis servers, the channel layer sharded over them (REDIS_URLS);
* two server processes (uvicorn, the production settings), both with DATABASE_URL (the
  primary), DATABASE_REPLICA_URL (the replica) and REDIS_URLS (the three Redis);

then shows a move made through node A reaching a watcher connected to node B, a leaderboard
read on node B served by the replica, and the backup and restore check (pg_dump of the
primary, pg_restore into a new database, ``manage.py verify_games`` against it). Each step is
printed; everything is stopped and removed at the end, success or not. Exit status 0 when
every check held.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from deploy.private_services import (  # noqa: E402 - after the path is set
    AppServer,
    PrivatePostgres,
    PrivateRedis,
    PrivateReplica,
    manage,
    migrate,
    postgres_missing,
    redis_missing,
)

PASSWORD = "scale-demo-password-42"
_t0 = time.monotonic()


def step(text: str) -> None:
    print(f"[{time.monotonic() - _t0:6.1f}s] {text}", flush=True)


def check(condition: bool, text: str) -> None:
    if not condition:
        raise SystemExit(f"FAILED: {text}")
    print(f"          ok: {text}", flush=True)


def call(node: AppServer, method: str, path: str, body: Any = None, token: str = "") -> Any:
    status, _, answer, _ = node.request(method, path, body, token=token or None)
    if status >= 300:
        raise SystemExit(f"FAILED: {method} {path} on :{node.port} -> {status} {answer}")
    return answer


async def next_message(socket: Any, kind: str, bound: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + bound
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SystemExit(f"FAILED: no {kind!r} message within {bound} s")
        message = json.loads(await asyncio.wait_for(socket.recv(), left))
        if message.get("type") == kind:
            return dict(message)


async def live_across_nodes(a: AppServer, b: AppServer, token: str, redis: list[Any]) -> str:
    from websockets.asyncio.client import connect

    game = call(a, "POST", "/api/games", {"level": "beginner"}, token)
    gid = game["id"]
    step(f"game {gid} created through node A (:{a.port})")
    async with connect(f"ws://127.0.0.1:{b.port}/ws/games/{gid}") as watcher:
        first = await next_message(watcher, "state")
        step(f"a watcher on node B (:{b.port}) got its snapshot, seq {first['seq']}")
        shards = []
        for server in redis:
            import redis as redis_lib

            client = redis_lib.Redis.from_url(server.url())
            channels = [c.decode() for c in client.pubsub_channels("*")]
            client.close()
            shards.append((server.port, len(channels)))
        step(f"subscriptions per Redis host (port, channels): {shards}")
        check(sum(n for _, n in shards) >= 1, "node B subscribed on one of the Redis shards")
        call(a, "POST", f"/api/games/{gid}/reveal", {"x": 4, "y": 4}, token)
        move = await next_message(watcher, "move")
        check(
            move["seq"] == first["seq"] + 1,
            f"the reveal made on node A reached node B's watcher (seq {move['seq']}, {move['state']})",
        )
        if move["state"] == "playing":
            call(a, "POST", f"/api/games/{gid}/resign", None, token)
            ended = await next_message(watcher, "ended")
            check(ended["game"]["state"] == "lost", "the resign on node A: `ended` on node B")
    return str(gid)


def replica_counts(replica: PrivateReplica) -> tuple[int, int, int]:
    row = replica.sql(
        "SELECT xact_commit, tup_returned FROM pg_stat_database WHERE datname = 'demineur'"
    ).split("|")
    return int(row[0]), int(row[1]), replica.log().count("accounts_personal_record")


def main() -> int:
    for reason in (postgres_missing(), redis_missing()):
        if reason:
            print(f"scale-demo cannot run here: {reason}")
            return 2
    with contextlib.ExitStack() as stack:
        step("PostgreSQL primary: initdb + start (a private cluster)")
        primary = stack.enter_context(PrivatePostgres(fsync=False))
        url = primary.create_database("demineur")
        migrate(url)
        step(f"primary on :{primary.port}, database migrated")

        step("PostgreSQL replica: pg_basebackup -R from the primary, started as a hot standby")
        replica = stack.enter_context(PrivateReplica(primary))
        replica.wait_for_replay()
        check(
            replica.sql("SELECT pg_is_in_recovery()") == "t",
            f"replica on :{replica.port} is in recovery",
        )
        check(
            replica.sql("SELECT status FROM pg_stat_wal_receiver") == "streaming",
            "the replica streams WAL from the primary",
        )
        replica_url = replica.url("demineur")

        redis = [stack.enter_context(PrivateRedis()) for _ in range(3)]
        urls = ",".join(r.url() for r in redis)
        step(f"three Redis servers on :{', :'.join(str(r.port) for r in redis)}")

        env = dict(
            DATABASE_URL=url,
            DATABASE_REPLICA_URL=replica_url,
            REDIS_URLS=urls,
            DB_POOL="1",
        )
        a = stack.enter_context(AppServer("uvicorn", **env))
        b = stack.enter_context(AppServer("uvicorn", **env))
        step(f"two server processes: node A :{a.port}, node B :{b.port}")
        for node in (a, b):
            ready = call(node, "GET", "/readyz")
            check(
                ready["status"] == "ready"
                and ready["checks"]["replica"]["ok"]
                and len(ready["checks"]["redis"]["hosts"]) == 3,
                f"/readyz on :{node.port}: primary, replica and the 3 Redis hosts answer",
            )

        call(a, "POST", "/api/auth/register", {"username": "alice", "password": PASSWORD})
        token = call(a, "POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})[
            "token"
        ]
        step("alice signed up through node A")

        gid = asyncio.run(live_across_nodes(a, b, token, redis))

        step("a leaderboard read on node B, anonymous (it may lag: the replica's)")
        replica.wait_for_replay()
        before = replica_counts(replica)
        board = call(b, "GET", "/api/leaderboards/beginner/times")
        after = replica_counts(replica)
        step(
            f"replica pg_stat_database xact_commit {before[0]} -> {after[0]}, tup_returned"
            f" {before[1]} -> {after[1]} (pg_stat figures are flushed within a second or so)"
        )
        check(after[2] > before[2], "the leaderboard's SQL is in the replica's statement log")
        check(isinstance(board["results"], list), "the board answered")

        step("read-your-own-writes: the replica's replay paused, alice writes, then reads")
        replica.pause()
        try:
            second = call(a, "POST", "/api/games", {"level": "beginner"}, token)
            others = call(b, "GET", "/api/games?user=alice")
            hers = call(b, "GET", "/api/games?user=alice", token=token)
            check(
                second["id"] not in [g["id"] for g in others["results"]],
                "another client reads the lagging replica: the new game is not there yet",
            )
            check(
                second["id"] in [g["id"] for g in hers["results"]],
                "alice, right after her write, reads the primary (through node B too)",
            )
        finally:
            replica.resume()

        step("backup: pg_dump -Fc of the primary")
        dump = primary.root / "demineur.dump"
        primary.client("pg_dump", "-Fc", "-f", str(dump), "demineur")
        step(f"dump written: {dump.stat().st_size} bytes")
        step("restore: a new database, pg_restore into it")
        restored = primary.create_database("demineur_restored")
        primary.client("pg_restore", "--no-owner", "-d", "demineur_restored", str(dump))
        games = primary.sql("SELECT count(*) FROM games_game", dbname="demineur_restored")
        check(int(games) >= 2, f"the restored database holds the games ({games})")
        done = manage("verify_games", DATABASE_URL=restored)
        print("          " + (done.stdout.strip().replace("\n", "\n          ") or "(no output)"))
        check(done.returncode == 0, "manage.py verify_games passes on the restored database")
        step(f"all checks held (game {gid}); stopping everything")
    step("stopped and removed: 2 servers, 3 Redis, the replica and the primary")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
