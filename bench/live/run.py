"""Live updates benchmark: delivery latency to 1, 100 and 1,000 watchers, and moves per second
over HTTP (with and without publishing, gunicorn and uvicorn) and over the socket.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m bench.live.run            # `make bench` runs exactly this
    ... -m bench.live.run --quick                     # fewer moves, shorter runs

It runs the production layout of docs/LIVE.md on this machine: gunicorn sync workers serve the
REST API, uvicorn workers serve /ws/, both on PostgreSQL and Redis. It works in its own
database (DATABASE_URL's name + "_bench", created and flushed here; BENCH_DATABASE_URL to
choose another) and its own channel prefix, on ports 18150-18199, and stops every server it
started. Without PostgreSQL and Redis there is nothing to measure across processes: it says
so and exits.

Delivery latency: one player flags and unflags a cell through HTTP at a steady pace while N
anonymous watchers follow the game; for every (move, watcher) pair, the time from the HTTP
answer reaching the player to the `move` frame reaching the watcher. Moves/s: wrk -t2 -c32
(or a Python client if wrk is missing) on POST /flag over 200 games, then 32 players in a
closed loop over their sockets (send a move, wait for its `move` event, repeat).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import shutil
import signal
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self
from urllib.parse import urlparse

from bench import cli
from bench.ports import free_port
from bench.seeding import player_with_a_started_game
from deploy.processes import ServerProcess, server_argv

from .wsclient import Frame, RawSocket, http_post, open_socket

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
PORTS = range(18150, 18200)
PLAYERS = 232
SOCKET_PLAYERS = 32  # 32 players in a closed loop over their sockets, like wrk's 32 connections
GOAL_P99_MS = 50.0
WORKERS = 2


def say(text: str) -> None:
    print(text, flush=True)


# --- configuration ----------------------------------------------------------------------------


def bench_database_url() -> str | None:
    explicit = os.environ.get("BENCH_DATABASE_URL")
    if explicit:
        return explicit
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        return None
    parsed = urlparse(base)
    name = parsed.path.lstrip("/") or "demineur"
    if not name.endswith("_bench"):
        name += "_bench"
    return parsed._replace(path=f"/{name}").geturl()


def prepare_database(url: str, suffixes: tuple[str, ...] = ("_bench",)) -> None:
    """Create the bench database if needed (it is flushed after migrate, so never point it at
    real data: its name must end in one of `suffixes`)."""
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    if not name.endswith(suffixes):
        raise SystemExit(
            f"refusing to flush {name!r}: its name must end in {' or '.join(suffixes)}"
        )
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


@dataclass
class Player:
    username: str
    token: str
    game_id: str
    x: int
    y: int


@dataclass
class Env:
    ports: ClassVar[range] = PORTS  # each bench that extends Env has its own range
    database_url: str
    redis_url: str
    prefix: str
    taken_ports: set[int] = field(default_factory=set)
    logs: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="bench-live-")))

    @classmethod
    def for_run(cls, bench: str, database_url: str, redis_url: str, *, prefix: str) -> Self:
        """The environment of one run of `bench`: its channel prefix `prefix` + this process's
        id, its logs in a new folder bench-`bench`-* of the temporary directory."""
        return cls(
            database_url=database_url,
            redis_url=redis_url,
            prefix=f"{prefix}{os.getpid()}",
            logs=Path(tempfile.mkdtemp(prefix=f"bench-{bench}-")),
        )

    @classmethod
    def on_shared_stack(cls, bench: str, *, prefix: str) -> Self | None:
        """`for_run` on PostgreSQL (bench_database_url) and Redis (REDIS_URL), the database
        created if needed and Django set up on it (setup_django); None, said, when either is
        not set: the layout these benches measure is several server processes sharing them."""
        database_url = bench_database_url()
        redis_url = os.environ.get("REDIS_URL")
        if database_url is None or not redis_url:
            say(f"bench/{bench}: skipped. It needs DATABASE_URL (PostgreSQL) and REDIS_URL: the")
            say("layout it measures is several server processes sharing PostgreSQL and Redis.")
            return None
        env = cls.for_run(bench, database_url, redis_url, prefix=prefix)
        say(
            f"bench/{bench}: database {urlparse(database_url).path.lstrip('/')}, logs in {env.logs}"
        )
        prepare_database(database_url)
        setup_django(env)
        return env

    def server_env(self, *, pool: bool, publish: bool = True) -> dict[str, str]:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "demineur_site.settings",
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "CHANNELS_PREFIX": self.prefix,
            "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key-not-for-production"),
            "DEBUG": "0",
            "LOG_LEVEL": "WARNING",
            "LIVE_EVENTS": "1" if publish else "0",
            "PYTHONPATH": str(ROOT),
            # A thousand watchers come from one address here: no per-address socket cap.
            "WS_MAX_SOCKETS_PER_ADDRESS": "0",
            "WS_MAX_SOCKETS_PER_USER": "0",
        }
        env.pop("DB_POOL", None)
        if pool:
            env["DB_POOL"] = "1"
            env["DB_POOL_MAX"] = "8"
        return env

    def port(self) -> int:
        return free_port(self.ports, self.taken_ports)


class Server(ServerProcess):
    """One server (and its workers) in its own process group, stopped by that group."""

    def __init__(self, env: Env, kind: str, *, publish: bool = True) -> None:
        port = env.port()
        argv = server_argv(
            kind,
            port,
            workers=WORKERS,
            gunicorn=["--log-level", "warning"],
            uvicorn=["--no-access-log", "--ws-max-size", "4096", "--lifespan", "off",
                     "--log-level", "warning"],
        )  # fmt: skip
        super().__init__(
            kind,
            argv,
            port=port,
            env=env.server_env(pool=kind == "uvicorn", publish=publish),
            log_path=env.logs / f"{kind}-{port}.log",
        )
        self.kind = kind
        self._env = env
        self.start()

    def wait_ready(self, timeout: float = 60) -> Server:
        self.wait_answering("/api/games?page_size=1", timeout, error=SystemExit)
        return self

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
        super().stop(sig, timeout)
        self._env.taken_ports.discard(self.port)


# --- data -------------------------------------------------------------------------------------


def setup_django(env: Env) -> None:
    """Django in this process on the run's database, migrated and emptied (the servers are
    started on the same settings)."""
    os.environ.update(env.server_env(pool=False))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    call_command("flush", verbosity=0, interactive=False)


def seed(count: int) -> list[Player]:
    from games.play.presenters import game_dict

    players: list[Player] = []
    for i in range(count):
        user, key, result = player_with_a_started_game(f"bench{i}", "expert", 15, 8)
        game = result.game
        rows = game_dict(result.game, player_name=user.username)["board"]
        x, y = next((x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#")
        players.append(Player(user.username, key, str(game.id), x, y))
        if (i + 1) % 50 == 0:
            say(f"  seeded {i + 1}/{count} players with a started expert game")
    from demineur_site import publish

    publish.flush()
    return players


# --- statistics -------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def figures(
    values: list[float], quantiles: tuple[int, ...] = (50, 99), *, count: str = "samples"
) -> dict[str, float | int]:
    """Latencies (ms) as the JSON of bench/races and bench/load gives them: how many (under
    `count`), the `quantiles` and the maximum, to 0.01 ms."""
    out: dict[str, float | int] = {count: len(values)}
    out |= {f"p{q}_ms": round(pct(values, q), 2) for q in quantiles}
    out["max_ms"] = round(max(values), 2) if values else float("nan")
    return out


# --- 1. delivery latency ----------------------------------------------------------------------


@dataclass
class Delivery:
    watchers: int
    moves: int
    samples: int
    missing: int
    out_of_order: int
    p50_answer: float
    p99_answer: float
    max_answer: float
    p50_sent: float
    p99_sent: float
    connect_s: float
    round_p99s: list[float] = field(default_factory=list)


async def connect_watchers(
    port: int, path: str, n: int, on_frame: Any = None
) -> tuple[list[RawSocket], float]:
    started = time.perf_counter()
    gate = asyncio.Semaphore(32)
    done = 0

    async def one() -> RawSocket:
        nonlocal done
        async with gate:
            sock = await open_socket(HOST, port, path, on_frame)
            while not sock.frames:  # the `state` snapshot
                await asyncio.sleep(0.005)
            done += 1
            if done % 250 == 0 or done == n:
                say(f"    {done}/{n} watchers connected")
            return sock

    sockets = await asyncio.gather(*(one() for _ in range(n)))
    return list(sockets), time.perf_counter() - started


async def timed_flag(http_port: int, player: Player, **move: Any) -> tuple[int, float, float]:
    """One flag move of `player` at its (x, y) over HTTP (`move`: the body's other fields):
    the move's seq, when it was sent and when its answer came (perf_counter)."""
    t_sent = time.perf_counter()
    status, body = await http_post(
        HOST,
        http_port,
        f"/api/games/{player.game_id}/flag",
        player.token,
        {"x": player.x, "y": player.y, **move},
    )
    t_answer = time.perf_counter()
    if status != 200:
        raise SystemExit(f"move refused: {status} {body[:200]!r}")
    return json.loads(body)["seq"], t_sent, t_answer


async def delivery(
    ws_port: int, http_port: int, player: Player, n: int, moves: int, gap: float
) -> Delivery:
    say(f"  {n} watcher(s): connecting")
    watchers, connect_s = await connect_watchers(ws_port, f"/ws/games/{player.game_id}", n)
    sent: dict[int, tuple[float, float]] = {}
    gc.collect()
    gc.disable()  # a collection of the client's frames list would delay its timestamps
    say(f"  {n} watcher(s): {moves} moves, one every {gap * 1000:.0f} ms")
    for i in range(moves):
        seq, t_sent, t_answer = await timed_flag(http_port, player)
        sent[seq] = (t_sent, t_answer)
        if (i + 1) % 25 == 0:
            say(f"    {i + 1}/{moves} moves")
        await asyncio.sleep(gap)
    await asyncio.sleep(1.0)
    gc.enable()
    from_answer: list[float] = []
    from_sent: list[float] = []
    missing = out_of_order = 0
    for sock in watchers:
        arrivals: dict[int, float] = {}
        last = -1
        for t, kind, seq in sock.frames[1:]:
            if kind != "move":
                continue
            if seq <= last:
                out_of_order += 1
            last = seq
            arrivals[seq] = t
        for seq, (t_sent, t_answer) in sent.items():
            arrived = arrivals.get(seq)
            if arrived is None:
                missing += 1
                continue
            from_answer.append((arrived - t_answer) * 1000)
            from_sent.append((arrived - t_sent) * 1000)
        sock.close()
    await asyncio.sleep(0.5)
    return Delivery(
        watchers=n,
        moves=moves,
        samples=len(from_answer),
        missing=missing,
        out_of_order=out_of_order,
        p50_answer=pct(from_answer, 50),
        p99_answer=pct(from_answer, 99),
        max_answer=max(from_answer),
        p50_sent=pct(from_sent, 50),
        p99_sent=pct(from_sent, 99),
        connect_s=connect_s,
    )


# --- 2. moves per second over HTTP --------------------------------------------------------------

LUA = """
local games = {%s}
local n = #games
math.randomseed(os.time())
request = function()
  local g = games[math.random(n)]
  return wrk.format("POST", "/api/games/" .. g[1] .. "/flag",
    {["Authorization"] = "Token " .. g[2], ["Content-Type"] = "application/json"},
    '{"x":' .. g[3] .. ',"y":' .. g[4] .. '}')
end
"""


@dataclass
class Throughput:
    label: str
    runs: list[float]
    p50_ms: float
    p99_ms: float
    errors: int

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


async def wrk_run(port: int, script: Path, seconds: int) -> tuple[float, float, float, int]:
    process = await asyncio.create_subprocess_exec(
        "wrk",
        "-t2",
        "-c32",
        f"-d{seconds}s",
        "--latency",
        "-s",
        str(script),
        f"http://{HOST}:{port}",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out = (await process.communicate())[0].decode()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out)[1])  # type: ignore[index]
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)", out)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return (
        rps,
        _ms(p50[1], p50[2]) if p50 else float("nan"),
        _ms(p99[1], p99[2]) if p99 else float("nan"),
        int(errors[1]) if errors else 0,
    )


async def python_run(
    port: int, players: list[Player], seconds: int
) -> tuple[float, float, float, int]:
    """Fallback when wrk is missing: 32 closed-loop connections (costs more client CPU)."""
    latencies: list[float] = []
    errors = 0
    end = time.perf_counter() + seconds

    async def loop() -> None:
        nonlocal errors
        while time.perf_counter() < end:
            p = random.choice(players)
            t = time.perf_counter()
            status, _ = await http_post(
                HOST, port, f"/api/games/{p.game_id}/flag", p.token, {"x": p.x, "y": p.y}
            )
            latencies.append((time.perf_counter() - t) * 1000)
            errors += status != 200

    await asyncio.gather(*(loop() for _ in range(32)))
    return len(latencies) / seconds, pct(latencies, 50), pct(latencies, 99), errors


async def http_run(
    port: int, script: Path, players: list[Player], seconds: int
) -> tuple[float, float, float, int]:
    """One measurement: wrk when installed, else the Python client."""
    if shutil.which("wrk"):
        return await wrk_run(port, script, seconds)
    return await python_run(port, players, seconds)


# --- 3. moves per second over the socket --------------------------------------------------------


@dataclass
class _Round:
    start: asyncio.Event
    end: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    stalls: int = 0


async def _play_over_socket(ws_port: int, p: Player, round_: _Round) -> None:
    """One player in a closed loop: send a flag toggle, wait for its `move` event, repeat."""
    waiting: list[asyncio.Future[Frame]] = []

    def on_frame(frame: Frame) -> None:
        # The answer is the `move` event, an `error`, or a fresh `state` when the consumer had
        # to re-read the game (an event was lost on the way).
        if waiting and not waiting[0].done() and frame[1] in ("move", "error", "state"):
            waiting[0].set_result(frame)

    sock = await open_socket(HOST, ws_port, f"/ws/games/{p.game_id}?token={p.token}", on_frame)
    while not sock.frames:
        await asyncio.sleep(0.005)
    await round_.start.wait()
    loop = asyncio.get_running_loop()
    while time.perf_counter() < round_.end:
        waiting[:] = [loop.create_future()]
        t = time.perf_counter()
        sock.send_json({"action": "flag", "x": p.x, "y": p.y})
        try:
            frame = await asyncio.wait_for(waiting[0], 10)
        except TimeoutError:
            round_.stalls += 1
            continue
        round_.latencies.append((time.perf_counter() - t) * 1000)
        round_.errors += frame[1] != "move"
    sock.close()


async def socket_run(
    ws_port: int, players: list[Player], seconds: int
) -> tuple[float, float, float, int]:
    """One measurement: 32 players in a closed loop over their sockets for `seconds`."""
    round_ = _Round(start=asyncio.Event())
    tasks = [asyncio.create_task(_play_over_socket(ws_port, p, round_)) for p in players]
    await asyncio.sleep(1.0)
    round_.end = time.perf_counter() + 1.0 + seconds
    round_.start.set()
    await asyncio.sleep(1.0)  # warm-up, not counted
    counted_from = len(round_.latencies)
    t0 = time.perf_counter()
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    latencies = round_.latencies[counted_from:]
    failed = round_.errors + round_.stalls
    return len(latencies) / elapsed, pct(latencies, 50), pct(latencies, 99), failed


# --- main -------------------------------------------------------------------------------------


async def latency_part(args: argparse.Namespace, env: Env, players: list[Player]) -> list[Delivery]:
    """Rounds of each watcher count in turn (1, 100, 1000, 1, 100, 1000, ...): the machine is
    shared and noisy, so the rounds of one count are spread over the whole part."""
    counts = [int(n) for n in args.watchers.split(",")]
    rounds: dict[int, list[Delivery]] = {n: [] for n in counts}
    http = Server(env, "gunicorn")
    ws = Server(env, "uvicorn")
    try:
        http.wait_ready()
        ws.wait_ready()
        for r in range(args.runs):
            for n in counts:
                gap = 0.1 if n >= 500 else 0.03
                say(f"  round {r + 1}/{args.runs}, {n} watcher(s)")
                d = await delivery(ws.port, http.port, players[0], n, args.moves, gap)
                rounds[n].append(d)
                say(f"  -> p50 {d.p50_answer:.1f} ms, p99 {d.p99_answer:.1f} ms")
    finally:
        http.stop()
        ws.stop()
    medians = []
    for n in counts:
        ordered = sorted(rounds[n], key=lambda d: d.p99_answer)
        median = ordered[len(ordered) // 2]
        median.round_p99s = [d.p99_answer for d in rounds[n]]
        medians.append(median)
    return medians


async def throughput_part(
    args: argparse.Namespace, env: Env, players: list[Player]
) -> list[Throughput]:
    """Every configuration runs at once on its own port; runs go round-robin so that noise
    from the shared machine falls on all of them alike."""
    # Separate games for the socket players and for HTTP: a request still running when wrk
    # stops (it is not waited for) would otherwise move a socket player's game behind its back.
    on_socket, players = players[:SOCKET_PLAYERS], players[SOCKET_PLAYERS:]
    script = env.logs / "flag.lua"
    script.write_text(LUA % ",".join(f'{{"{p.game_id}","{p.token}",{p.x},{p.y}}}' for p in players))
    servers = {
        "gunicorn 2w, publish": Server(env, "gunicorn", publish=True),
        "gunicorn 2w, no publish": Server(env, "gunicorn", publish=False),
        "uvicorn 2w, publish": Server(env, "uvicorn", publish=True),
        "uvicorn 2w, no publish": Server(env, "uvicorn", publish=False),
    }
    watch = Server(env, "uvicorn")
    socket_label = "uvicorn 2w, moves over the socket (32 players)"
    watched_label = f"gunicorn 2w, publish, {len(players)} watchers on uvicorn 2w"
    labels = [*servers, socket_label, watched_label]
    results: dict[str, list[tuple[float, float, float, int]]] = {label: [] for label in labels}
    try:
        for server in [*servers.values(), watch]:
            server.wait_ready()
        for server in servers.values():
            await http_run(server.port, script, players, 2)  # warm-up: pools, caches
        await socket_run(servers["uvicorn 2w, publish"].port, on_socket, 2)
        for r in range(args.runs):
            for label in labels:
                if label == socket_label:
                    result = await socket_run(
                        servers["uvicorn 2w, publish"].port, on_socket, args.seconds
                    )
                elif label == watched_label:
                    path = "/ws/games/{}"
                    watchers = [
                        await open_socket(HOST, watch.port, path.format(p.game_id)) for p in players
                    ]
                    port = servers["gunicorn 2w, publish"].port
                    result = await http_run(port, script, players, args.seconds)
                    for sock in watchers:
                        sock.close()
                else:
                    result = await http_run(servers[label].port, script, players, args.seconds)
                results[label].append(result)
                say(f"  run {r + 1}/{args.runs}: {label}: {result[0]:.0f} moves/s")
    finally:
        for server in [*servers.values(), watch]:
            server.stop()
    out = []
    for label in labels:
        runs = results[label]
        middle = sorted(runs)[len(runs) // 2]
        out.append(
            Throughput(label, [r[0] for r in runs], middle[1], middle[2], sum(r[3] for r in runs))
        )
    return out


async def run(args: argparse.Namespace, env: Env, players: list[Player]) -> None:
    parts = set(args.parts.split(","))
    deliveries: list[Delivery] = []
    throughputs: list[Throughput] = []
    if "latency" in parts:
        say("\n1. Delivery latency (gunicorn 2w for HTTP + uvicorn 2w for /ws)")
        deliveries = await latency_part(args, env, players)
    if "throughput" in parts:
        client = "wrk -t2 -c32" if shutil.which("wrk") else "a Python client, 32 connections"
        say(f"\n2. Moves per second: HTTP ({client}) and the socket (32 players)")
        throughputs = await throughput_part(args, env, players)
    report(deliveries, throughputs, args)


def say_table(head: str, align: str, rows: list[str]) -> None:
    """A Markdown table: its head, its alignment row, then one line a row."""
    for line in (head, align, *rows):
        say(line)


def delivery_row(d: Delivery) -> str:
    rounds = " / ".join(f"{p:.1f}" for p in d.round_p99s)
    return (
        f"| {d.watchers:,} | {d.samples:,} | {d.missing} | {d.out_of_order} "
        f"| {d.p50_answer:.1f} | **{d.p99_answer:.1f}** | {d.max_answer:.1f} | {rounds} "
        f"| {d.p50_sent:.1f} / {d.p99_sent:.1f} | {d.connect_s:.1f} s |"
    )


def throughput_row(t: Throughput) -> str:
    runs = " / ".join(f"{r:.0f}" for r in t.runs)
    return (
        f"| {t.label}: **{t.median:.0f}** | {runs} | {t.p50_ms:.1f} | {t.p99_ms:.1f} | {t.errors} |"
    )


def report(deliveries: list[Delivery], throughputs: list[Throughput], args: Any) -> None:
    say("\n## Results (paste into docs/PERFORMANCE.md, section Live)\n")
    if deliveries:
        say_table(
            "| watchers | deliveries (median round) | missing | out of order | p50 ms | **p99 ms** "
            "| max ms | p99 of each round | p50 / p99 from the request | connect all |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
            [delivery_row(d) for d in deliveries],
        )
        big = [d for d in deliveries if d.watchers >= 1000]
        if big:
            verdict = "met" if big[0].p99_answer < GOAL_P99_MS else "NOT met"
            say(
                f"\nGoal p99 < {GOAL_P99_MS:.0f} ms at 1,000 watchers: {verdict} "
                f"({big[0].p99_answer:.1f} ms, median round of {args.runs})."
            )
    if throughputs:
        say_table(
            f"\n| moves/s ({args.runs} x {args.seconds} s, median) | runs | p50 ms | p99 ms "
            "| failed (non-2xx; socket: errors, re-reads, 10 s stalls) |",
            "| --- | ---: | ---: | ---: | ---: |",
            [throughput_row(t) for t in throughputs],
        )


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument(
        "--watchers", default="1,100,1000", help="watcher counts (default 1,100,1000)"
    )
    parser.add_argument(
        "--moves", type=int, default=100, help="moves per watcher count (default 100)"
    )
    parser.add_argument(
        "--seconds", type=int, default=10, help="seconds per throughput run (default 10)"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="rounds per watcher count and per config (default 3)"
    )
    parser.add_argument(
        "--parts",
        default="latency,throughput",
        help="what to run (default latency,throughput)",
    )
    parser.add_argument("--quick", action="store_true", help="40 moves, 1 run of 4 s")
    args = parser.parse_args()
    if args.quick:
        args.moves, args.seconds, args.runs = 40, 4, 1

    env = Env.on_shared_stack("live", prefix="bench")
    if env is None:
        return
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    players = seed(PLAYERS)
    asyncio.run(run(args, env, players))


if __name__ == "__main__":
    main()
