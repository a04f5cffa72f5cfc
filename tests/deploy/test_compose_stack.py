"""docker-compose.yml built and run for real (make compose-test; docs/DEPLOYMENT.md, "The
compose test"). Slow (minutes: images, a whole stack, outages), so `make test` skips it unless
COMPOSE_TEST=1, which the make target sets; skipped too, with the reason, when no Docker engine
can run. Everything goes through the proxy's port on 127.0.0.1, as a user's client would; the
tests run in file order on one stack, each phase printing its progress."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from deploy.compose_stack import (
    Account,
    Client,
    Stack,
    play,
    progress,
)
from deploy.json_http import ApiError
from tests.support.docker_stacks import docker_engine, only_when_asked, write_figures
from tests.support.handshake import compression_declined

pytestmark = only_when_asked(
    "COMPOSE_TEST",
    reason="slow (builds images, runs the whole stack): `make compose-test` runs it (COMPOSE_TEST=1)",
)

websockets_sync = pytest.importorskip("websockets.sync.client")
LEVEL = "beginner"
FIGURES: dict[str, Any] = {}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    engine = docker_engine()
    started = time.monotonic()
    with Stack(engine, tmp_path_factory.mktemp("compose")) as running:
        yield running
    FIGURES.update(running.figures)
    FIGURES["total_s"] = round(time.monotonic() - started, 1)
    write_figures(FIGURES, "COMPOSE_TEST_FIGURES", ".run/compose-test.json")


@pytest.fixture(scope="module")
def client(stack: Stack) -> Client:
    return Client(stack.port)


def new_game(client: Client, account: Account) -> dict[str, Any]:
    return client.ok("POST", "/api/games", {"level": LEVEL}, token=account.token)


class Watcher:
    """A game socket read on its own thread: every message kept, in order."""

    def __init__(self, client: Client, game_id: str, token: str) -> None:
        self.socket = websockets_sync.connect(
            client.ws_url(f"/ws/games/{game_id}", token), open_timeout=10
        )
        self.messages: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self.socket:
                with self.lock:
                    self.messages.append(json.loads(raw))
        except Exception:  # the socket closed: the messages so far are kept
            return

    def wait_for(self, predicate: Any, timeout: float = 15.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            with self.lock:
                fresh = self.messages[seen:]
                seen = len(self.messages)
            for message in fresh:
                if predicate(message):
                    return message
            time.sleep(0.05)
        raise AssertionError(f"no such message within {timeout} s; got {self.types()}")

    def types(self) -> list[str]:
        with self.lock:
            return [f"{m.get('type')}@{m.get('seq')}" for m in self.messages]

    def seqs(self, kind: str) -> set[int]:
        with self.lock:
            return {m["seq"] for m in self.messages if m.get("type") == kind}

    def close(self) -> None:
        self.socket.close()


def watcher_on(
    stack: Stack, client: Client, game_id: str, token: str, exclude: str | None
) -> tuple[Watcher, str]:
    """A watcher socket and the `live` container that serves it (the one whose count of
    proxied connections grew), on a container other than `exclude`."""
    lives = stack.containers("live")
    for _ in range(6):
        before = {c: stack.socket_peers(c) for c in lives}
        watcher = Watcher(client, game_id, token)
        assert compression_declined(watcher.socket)
        watcher.wait_for(lambda m: m.get("type") == "state")
        after = {c: stack.socket_peers(c) for c in lives}
        grown = [c for c in lives if after[c] > before[c]]
        if len(grown) == 1 and grown[0] != exclude:
            return watcher, grown[0]
        watcher.close()
    raise AssertionError(f"no socket landed on a live container other than {exclude}")


def test_the_whole_stack_is_healthy_and_answers_through_the_proxy(stack: Stack, client: Client):
    assert len(stack.containers("web")) == 2 and len(stack.containers("live")) == 2
    status, _, body, _ = client.request("GET", "/readyz")
    assert status == 200, body
    assert body["checks"]["database"]["ok"] and body["checks"]["redis"]["ok"]
    status, _, body, _ = client.request("GET", "/api/no-such-path")
    assert status == 404 and body["error"]["code"]


def test_a_game_played_over_rest_is_watched_from_both_live_replicas(stack: Stack, client: Client):
    progress("phase: sign up, play a game over REST, watch it from both live replicas")
    alice = client.signup("alice")
    game = new_game(client, alice)
    first, served_first = watcher_on(stack, client, game["id"], alice.token, None)
    second, served_second = watcher_on(stack, client, game["id"], alice.token, served_first)
    assert served_first != served_second
    played = play(client, alice, game, rng=random.Random(7))
    assert played.game["state"] in {"won", "lost"}, played.game["state"]
    for watcher in (first, second):
        ended = watcher.wait_for(lambda m: m.get("type") == "ended")
        assert ended["game"]["state"] == played.game["state"]
        seen = watcher.seqs("move") | watcher.seqs("ended")
        assert set(played.acked) <= seen, (played.acked, watcher.types())
        watcher.close()
    moves = client.ok("GET", f"/api/games/{game['id']}/moves?page_size=200")
    assert [m["seq"] for m in moves["results"]] == played.acked
    FIGURES["game_moves"] = len(played.acked)
    FIGURES["game_state"] = played.game["state"]
    progress(
        f"game {played.game['state']} after {len(played.acked)} moves; both replicas' watchers saw every seq"
    )


def test_a_race_between_two_clients_ends_with_places_and_ratings(stack: Stack, client: Client):
    progress("phase: a race between two clients")
    bob, carol = client.signup("bob"), client.signup("carol")
    race = client.ok("POST", "/api/races", {"level": LEVEL, "max_players": 2}, token=bob.token)
    client.ok("POST", f"/api/races/{race['id']}/join", token=carol.token)
    for racer in (bob, carol):
        client.ok("POST", f"/api/races/{race['id']}/ready", {"ready": True}, token=racer.token)
    deadline = time.monotonic() + 20
    while race["state"] != "running":
        assert time.monotonic() < deadline, race["state"]
        time.sleep(0.3)
        race = client.ok("GET", f"/api/races/{race['id']}")
    games = {r["player"]: r["game"] for r in race["racers"]}
    threads = []
    results: dict[str, str] = {}
    for n, racer in enumerate((bob, carol)):

        def run(racer: Account = racer, seed: int = n) -> None:
            game = client.ok("GET", f"/api/games/{games[racer.username]}", token=racer.token)
            results[racer.username] = play(client, racer, game, rng=random.Random(seed)).game[
                "state"
            ]

        threads.append(threading.Thread(target=run))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert set(results) == {bob.username, carol.username}
    deadline = time.monotonic() + 30
    while race["state"] != "finished":
        assert time.monotonic() < deadline, race["state"]
        time.sleep(0.3)
        race = client.ok("GET", f"/api/races/{race['id']}")
    places = sorted(r["place"] for r in race["racers"])
    assert places in ([1, 2], [1, 1]), race["racers"]
    assert all(r["rating_after"] is not None for r in race["racers"])
    # One race in twos leaves a newcomer's rating provisional (docs/RACES.md): each racer sees
    # it on their races, and no race board shows it yet.
    for racer in (bob, carol):
        record = client.ok("GET", f"/api/users/{racer.username}/races")["levels"][LEVEL]
        assert record["races"] == 1 and record["rating"] is not None, record
        assert record["provisional"] is True, record
    board = client.ok("GET", f"/api/leaderboards/{LEVEL}/races?page_size=200")
    assert not {bob.username, carol.username} & {row["player"] for row in board["results"]}
    progress(f"race finished: {results}, places {places}")


def test_the_leaderboards_show_a_won_game(stack: Stack, client: Client):
    progress("phase: leaderboards")
    dave = client.signup("dave")
    won = None
    for seed in range(12):
        played = play(client, dave, new_game(client, dave), rng=random.Random(100 + seed))
        if played.game["state"] == "won":
            won = played.game
            break
    assert won is not None, "no beginner game won in 12 tries"
    for board in ("times", "speed", "streaks"):
        page = client.ok("GET", f"/api/leaderboards/{LEVEL}/{board}?period=all&page_size=200")
        assert {"count", "results"} <= set(page)
    times = client.ok("GET", f"/api/leaderboards/{LEVEL}/times?period=all&page_size=200")
    rows = [row for row in times["results"] if row["player"] == dave.username]
    if won["ranked"]:
        assert rows and rows[0]["game_id"] == won["id"], times["results"][:5]
    else:
        assert not rows and won["unranked_reason"], won
    progress(
        f"won game {won['id']} ranked={won['ranked']} ({won.get('unranked_reason')}); board rows {len(rows)}"
    )


def test_prometheus_scrapes_every_app_replica_and_the_proxy_hides_metrics(
    stack: Stack, client: Client
):
    """The `monitoring` profile's Prometheus (its Debian stand-in here; Grafana has none:
    docs/DEPLOYMENT.md, "Metrics and logs") finds the four app replicas through Docker's DNS
    and scrapes them on the stack's network; the proxy answers 404 for /metrics."""
    progress("phase: the monitoring profile's prometheus scrapes every web and live replica")
    status, _, body, _ = client.request("GET", "/metrics")
    assert status == 404 and body["error"]["code"] == "not_found"
    started = time.monotonic()
    monitoring = ("--profile", "monitoring")
    stack.compose(*monitoring, "up", "-d", "--no-build", "prometheus", timeout=300)
    try:
        [prometheus] = stack.containers("prometheus")

        def api(query: str) -> Any:
            out = stack.exec(
                prometheus, "wget", "-q", "-O", "-", f"http://127.0.0.1:9090/api/v1/{query}"
            )
            return json.loads(out)["data"]

        deadline = time.monotonic() + 120
        while True:
            try:
                targets = api("targets")["activeTargets"]
            except Exception:  # not answering yet
                targets = []
            up = sorted((t["labels"]["job"], t["health"]) for t in targets)
            if up == [("live", "up"), ("live", "up"), ("web", "up"), ("web", "up")]:
                break
            assert time.monotonic() < deadline, f"targets not all up within 120 s: {targets}"
            time.sleep(2)
        # The games played so far, counted by the web replicas (each sums its two workers).
        moves = api("query?query=sum(demineur_moves_total)")["result"]
        assert moves and float(moves[0]["value"][1]) > 0, moves
        stack.figures["monitoring_s"] = round(time.monotonic() - started, 1)
        progress(
            f"prometheus: 4 targets up, {float(moves[0]['value'][1]):.0f} moves counted, "
            f"{stack.figures['monitoring_s']} s"
        )
    finally:
        stack.compose(*monitoring, "rm", "-f", "-s", "-v", "prometheus", timeout=120, check=False)
        stack.engine.d(
            "volume", "rm", "-f", f"{stack.project}_prometheus_data", timeout=60, check=False
        )


class Mover:
    """A player making moves in a loop (new games as they end), on its own thread: every
    answered move's seq, per game, and every failure."""

    def __init__(self, client: Client, pause_s: float = 0.05) -> None:
        self.client = client
        self.account = client.signup("mover")
        self.pause_s = pause_s
        self.acked: dict[str, list[int]] = {}
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        rng = random.Random(3)
        game: dict[str, Any] | None = None
        from deploy.compose_stack import next_reveal

        while not self.stop.is_set():
            try:
                if game is None or game["state"] in {"won", "lost"}:
                    game = new_game(self.client, self.account)
                    self.acked[game["id"]] = []
                    x, y = game["width"] // 2, game["height"] // 2
                else:
                    x, y = next_reveal(game["board"], rng)
                status, _, body, _ = self.client.request(
                    "POST",
                    f"/api/games/{game['id']}/reveal",
                    {"x": x, "y": y},
                    token=self.account.token,
                )
                if status == 200:
                    self.acked[game["id"]].append(body["seq"])
                    game = body["game"]
                else:
                    self.failures.append(f"{status} {body}")
            except (ApiError, OSError) as exc:
                self.failures.append(repr(exc))
            time.sleep(self.pause_s)

    def __enter__(self) -> Mover:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=30)

    def lost_moves(self) -> list[tuple[str, int]]:
        lost = []
        for game_id, acked in self.acked.items():
            stored = {
                m["seq"]
                for m in self.client.ok("GET", f"/api/games/{game_id}/moves?page_size=200")[
                    "results"
                ]
            }
            lost += [(game_id, seq) for seq in acked if seq not in stored]
        return lost

    def count(self) -> int:
        return sum(len(v) for v in self.acked.values())


def test_a_killed_web_container_comes_back_and_no_acknowledged_move_is_lost(
    stack: Stack, client: Client
):
    progress("phase: kill a web container (SIGKILL to its main process)")
    victim = stack.containers("web")[0]
    restarts = int(stack.inspect(victim, "{{.RestartCount}}"))
    with Mover(client) as mover:
        time.sleep(2)
        pid = int(stack.inspect(victim, "{{.State.Pid}}"))
        killed_at = time.monotonic()
        os.kill(pid, 9)
        deadline = time.monotonic() + 120
        while not (
            int(stack.inspect(victim, "{{.RestartCount}}")) > restarts
            and stack.health(victim) == "healthy"
        ):
            assert time.monotonic() < deadline, "the killed web container did not come back healthy"
            time.sleep(0.5)
        back_s = time.monotonic() - killed_at
        time.sleep(2)
    lost = mover.lost_moves()
    assert mover.count() > 0
    assert lost == [], lost
    FIGURES["web_kill"] = {
        "back_healthy_s": round(back_s, 1),
        "moves_acked": mover.count(),
        "failed_requests": len(mover.failures),
        "acked_lost": len(lost),
    }
    progress(
        f"web back healthy in {back_s:.1f} s; {mover.count()} moves acked, 0 lost, "
        f"{len(mover.failures)} requests failed meanwhile {mover.failures[:3]}"
    )


def test_a_database_restart_answers_503_then_recovers(stack: Stack, client: Client):
    progress("phase: stop and start db")
    player = client.signup("erin")
    game = new_game(client, player)
    db = stack.containers("db")[0]
    stack.engine.d("stop", "-t", "10", db, timeout=60)
    stopped_at = time.monotonic()
    statuses = set()
    for _ in range(20):
        status, _, body, _ = client.request(
            "POST", f"/api/games/{game['id']}/reveal", {"x": 4, "y": 4}, token=player.token
        )
        statuses.add(status)
        if status == 503:
            assert body["error"]["code"] == "service_unavailable", body
            break
        time.sleep(0.5)
    assert 503 in statuses, statuses
    ready, _, _, _ = client.request("GET", "/readyz")
    assert ready == 503
    stack.engine.d("start", db, timeout=60)
    deadline = time.monotonic() + 90
    while client.request("GET", "/readyz").status != 200:
        assert time.monotonic() < deadline, "no recovery within 90 s of the restart"
        time.sleep(0.5)
    recovered_s = time.monotonic() - stopped_at
    failures = 0
    for _ in range(10):
        status, _, body, _ = client.request("GET", f"/api/games/{game['id']}", token=player.token)
        failures += status != 200
    assert failures == 0
    played = play(
        client,
        player,
        client.ok("GET", f"/api/games/{game['id']}", token=player.token),
        rng=random.Random(5),
    )
    assert played.game["state"] in {"won", "lost"}
    FIGURES["db_restart"] = {
        "statuses_while_down": sorted(statuses),
        "ready_again_s": round(recovered_s, 1),
    }
    progress(
        f"db down: {sorted(statuses)}; /readyz 200 again {recovered_s:.1f} s after the stop; game finished after"
    )


def test_a_paused_redis_still_lets_moves_through_and_sockets_resync(stack: Stack, client: Client):
    progress("phase: docker pause redis")
    frank = client.signup("frank")
    game = new_game(client, frank)
    watcher, _ = watcher_on(stack, client, game["id"], frank.token, None)
    first = client.ok(
        "POST", f"/api/games/{game['id']}/reveal", {"x": 0, "y": 0}, token=frank.token
    )
    game = first["game"]
    watcher.wait_for(lambda m: m.get("seq") == first["seq"])
    redis = stack.containers("redis")[0]
    stack.engine.d("pause", redis, timeout=30)
    latencies = []
    try:
        from deploy.compose_stack import next_reveal

        rng = random.Random(11)
        for _ in range(5):
            if game["state"] in {"won", "lost"}:
                break
            x, y = next_reveal(game["board"], rng)
            status, _, body, elapsed = client.request(
                "POST",
                f"/api/games/{game['id']}/reveal",
                {"x": x, "y": y},
                token=frank.token,
                timeout=20,
            )
            assert status == 200, (status, body)
            # The configured waits on a hung Redis: the cache's REDIS_SOCKET_TIMEOUT (0.25 s,
            # connect then reply) and the publish's PUBLISH_WAIT_SECONDS (0.5 s), with room for
            # a busy machine; redis-py's default 5 s would not fit.
            assert elapsed < 2.5, f"a move waited {elapsed:.2f} s on the paused Redis"
            latencies.append(round(elapsed, 2))
            game = body["game"]
    finally:
        stack.engine.d("unpause", redis, timeout=30)
    progress(f"moves while redis was paused: {latencies} s")
    resync = watcher.wait_for(
        lambda m: m.get("type") == "state" and m.get("seq") == game["seq"], timeout=30
    )
    assert resync["game"]["state"] == game["state"]
    # Then live moves again. Just after the unpause the live node's subscription may still be
    # coming back: an event published meanwhile does not reach it, and the socket's resync
    # covers that move with a `state` at its seq instead (a compose run saw four such states
    # after the first move). So: one move at a time, each seen by the watcher at its seq, as a
    # live frame or in a fresh state, until one arrives as a live frame.
    from deploy.compose_stack import next_reveal

    rng, live = random.Random(12), None
    while live is None and game["state"] not in {"won", "lost"}:
        x, y = next_reveal(game["board"], rng)
        after = client.ok(
            "POST", f"/api/games/{game['id']}/reveal", {"x": x, "y": y}, token=frank.token
        )
        game, seq = after["game"], after["seq"]
        seen = watcher.wait_for(
            lambda m, seq=seq: m.get("seq") == seq and m.get("type") in {"move", "ended", "state"}
        )
        live = seen if seen["type"] != "state" else None
    assert live is not None or resync["game"]["state"] in {"won", "lost"}, watcher.types()
    watcher.close()
    FIGURES["redis_pause"] = {"move_latency_s": latencies}


def test_a_backup_restored_after_a_wipe_passes_verify_games(stack: Stack, client: Client):
    progress("phase: backup, wipe the database, restore, verify_games")
    grace = client.signup("grace")
    played = play(client, grace, new_game(client, grace), rng=random.Random(21))
    stack.wait_healthy(120, skip={"web", "live", "proxy", "db", "redis"})  # scheduler, backup
    backup, db = stack.containers("backup")[0], stack.containers("db")[0]
    started = time.monotonic()
    dump = stack.exec(backup, "/bin/sh", "/usr/local/bin/demineur-backup", "once").split()[-1]
    dump_s = time.monotonic() - started
    listed = stack.exec(backup, "/bin/sh", "/usr/local/bin/demineur-backup", "list").split()
    assert dump in listed and len(listed) >= 2, listed  # the one made at start, and this one
    psql = ["psql", "-U", "demineur", "-d", "demineur", "-tAc"]
    tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
    games = "SELECT count(*) FROM games_game"
    games_before = int(stack.exec(db, *psql, games))
    stack.exec(db, "dropdb", "-U", "demineur", "--force", "demineur")
    stack.exec(db, "createdb", "-U", "demineur", "demineur")
    assert stack.exec(db, *psql, tables).strip() == "0"
    started = time.monotonic()
    stack.exec(backup, "/bin/sh", "/usr/local/bin/demineur-backup", "restore", dump, timeout=300)
    restore_s = time.monotonic() - started
    assert int(stack.exec(db, *psql, games)) == games_before
    verify = stack.compose(
        "run",
        "--rm",
        "--no-deps",
        "migrate",
        "python",
        "manage.py",
        "verify_games",
        timeout=300,
        check=False,
    )
    assert verify.returncode == 0, verify.stdout[-2000:] + verify.stderr[-2000:]
    assert "0 mismatch" in verify.stdout + verify.stderr
    moves = client.ok("GET", f"/api/games/{played.game['id']}/moves?page_size=200")
    assert [m["seq"] for m in moves["results"]] == played.acked
    FIGURES["backup"] = {
        "games": games_before,
        "dump_s": round(dump_s, 1),
        "restore_s": round(restore_s, 1),
    }
    progress(
        f"dump of {games_before} games in {dump_s:.1f} s, restored in {restore_s:.1f} s; verify_games: 0 mismatches"
    )


def test_compose_down_removes_the_stack_and_its_volumes(stack: Stack):
    stack.__exit__(None, None, None)
    left = stack.engine.d(
        "ps", "-aq", "--filter", f"label=com.docker.compose.project={stack.project}", timeout=30
    )
    volumes = stack.engine.d(
        "volume",
        "ls",
        "-q",
        "--filter",
        f"label=com.docker.compose.project={stack.project}",
        timeout=30,
    )
    assert left.stdout.split() == [] and volumes.stdout.split() == []
