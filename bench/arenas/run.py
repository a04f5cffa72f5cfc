"""Arenas benchmark: 200 bot players in one Beginner no-guess arena, then the same 200 playing
solo Beginner no-guess games for as long, in one run on this machine.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m bench.arenas.run                 # `make bench-arenas` runs this
    ... -m bench.arenas.run --quick                          # 40 bots, 40 s a phase
    ... -m bench.arenas.run --think-ms 1000 --seconds 180    # past what 2 cores serve

The production layout of bench/races (bench/harness/servers.py's Stack): gunicorn sync workers
for the REST API, uvicorn workers for /ws/ with their lifespan on, so the race clock thread runs
in each and drives the arena (its start, pairing, scoring, the end) without any request; DEBUG
off, PostgreSQL and Redis, the database DATABASE_URL's name + "_bench" (emptied here), ports
18900-18949.

The bots are bot accounts with API tokens, made in this process (200 password hashes through
the API would take minutes and measure nothing of arenas). Bot 0 creates the arena through
the API to start in an hour, every bot joins it through the API, then the run brings its start
to now (the controlled clock of tests/arenas), so the first round pairs everyone at once. One
spectator watches `/ws/arenas/{id}`: each `race` frame tells the bots named in it their race;
a bot reads the race (REST), waits for its start and plays its game over the game socket (bench/races/bots.py: certain reveals from the numbers,
else a random closed cell, --think-ms before each move, 50-150 % of it). A bot whose game is
over is back in the arena's pool at the next tick of the clock, whatever its race's others
still do; the clock pairs it again. After --seconds the run brings the arena's end to now: no
race forms any more, the bots finish the races they are in, and the run waits for `ended`.
Then the same bots play solo games for --seconds the same way.

Measured:
- pairing delay: a player back in the pool (its game in its previous race of the arena ended,
  Game.ended_at) to its next race's forming (Race.created_at) and to that race's start
  (Race.started_at, after the 3 s countdown). Server timestamps, read from the database after
  the run; a player's first race is not counted (it was not back from anything).
- standings update: a race's end (Race.ended_at) to the spectator's receipt of the `standings`
  frame that follows that race (the frame's `race`).
- moves: send -> the move's own `move` frame, in arena races and in the solo phase.

The table is printed, the results written to results.json in the run's logs folder.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import cli
from bench.harness.clients import HOST, Account, api_json
from bench.harness.report import LATENCY_HEAD, Progress, Run, latency_row, say, show, table
from bench.harness.servers import Stack
from bench.harness.timing import figures
from bench.races.bots import Tally, play
from bench.seeding import bot_accounts

PORTS = range(18900, 18950)
LEVEL = "beginner"
FIRST_TAP = (4, 4)  # a solo game's first reveal: the middle of the Beginner board


# --- the bots ---------------------------------------------------------------------------------


async def call(port: int, method: str, path: str, account: Account, body: Any = None) -> Any:
    """One REST call (not timed) in a worker thread."""
    status, answer = await asyncio.to_thread(api_json, port, method, path, body, account.token)
    if status not in (200, 201):
        raise RuntimeError(f"{method} {path} as {account.username}: {status} {answer}")
    return answer


@dataclass
class Arena:
    """What the spectator saw: every frame with its arrival (wall clock, as the server's
    timestamps are), and the race each bot was last told of."""

    id: str
    frames: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    queues: dict[str, asyncio.Queue[str]] = field(default_factory=dict)
    ended: asyncio.Event = field(default_factory=asyncio.Event)


async def spectate(ws_port: int, arena: Arena, ready: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    async with connect(f"ws://{HOST}:{ws_port}/ws/arenas/{arena.id}", max_size=2**22) as ws:
        async for raw in ws:
            frame = json.loads(raw)
            arena.frames.append((time.time(), frame))
            if frame["type"] == "state":
                ready.set()
            elif frame["type"] == "race":
                for name in frame["players"]:
                    if name in arena.queues:
                        arena.queues[name].put_nowait(frame["race"])
            elif frame["type"] == "ended":
                arena.ended.set()
                return


def _ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


async def arena_bot(
    bot: Account,
    ports: tuple[int, int],
    arena: Arena,
    tally: Tally,
    stop: asyncio.Event,
    rng: random.Random,
    think_s: float,
) -> int:
    """Play every race the arena gives the bot until `stop`; returns how many it played."""
    http_port, ws_port = ports
    queue = arena.queues[bot.username]
    played = 0
    while not stop.is_set():
        try:
            race_id = await asyncio.wait_for(queue.get(), 0.5)
        except TimeoutError:
            continue
        race = await call(http_port, "GET", f"/api/races/{race_id}", bot)
        if race.get("starts_at"):
            await asyncio.sleep(max(0.0, _ts(race["starts_at"]) - time.time()))
        game = None
        for _ in range(200):  # the clock starts it (and deals the games) at its next tick
            race = await call(http_port, "GET", f"/api/races/{race_id}", bot)
            game = next(r["game"] for r in race["racers"] if r["player"] == bot.username)
            if race["state"] != "countdown" and game is not None:
                break
            await asyncio.sleep(0.05)
        state = await call(http_port, "GET", f"/api/games/{game}", bot) if game else {}
        if game and state.get("state") == "playing":
            await play(bot, ws_port, str(game), tally, rng=rng, think_s=think_s)
            played += 1
    return played


async def solo_bot(
    bot: Account,
    ports: tuple[int, int],
    tally: Tally,
    until: float,
    rng: random.Random,
    think_s: float,
) -> int:
    http_port, ws_port = ports
    played = 0
    while time.monotonic() < until:
        body = {"level": LEVEL, "no_guess": True}
        game = await call(http_port, "POST", "/api/games", bot, body)
        await play(
            bot, ws_port, str(game["id"]), tally, rng=rng, think_s=think_s, first_tap=FIRST_TAP
        )
        played += 1
    return played


async def _progress(label: str, tally: Tally, until: float, every: float = 15.0) -> None:
    started = time.monotonic()
    while time.monotonic() < until:
        await asyncio.sleep(min(every, max(0.1, until - time.monotonic())))
        say(
            f"    {label}: {time.monotonic() - started:.0f} s, {tally.moves:,} moves, "
            f"{tally.won} won / {tally.lost} lost, errors {tally.errors or 'none'}"
        )


# --- the run ----------------------------------------------------------------------------------


@dataclass
class Phases:
    arena: Arena
    arena_tally: Tally
    solo_tally: Tally
    record: Run
    arena_games: int = 0
    solo_games: int = 0
    end_wait_s: float = 0.0
    timed_s: float = 0.0


async def run_phases(args: argparse.Namespace, stack: Stack) -> Phases:
    with stack.pair(lifespan=True) as (http, ws):
        ports = (http.port, ws.port)
        bots = await asyncio.to_thread(bot_accounts, args.bots, "abot", every=50)
        starts = datetime.now(UTC) + timedelta(hours=1)
        body = {
            "level": LEVEL,
            "no_guess": True,
            "minutes": 20,
            "players": "bots",
            "name": "bench arena",
            "starts_at": starts.isoformat(),
        }
        made = await call(http.port, "POST", "/api/arenas", bots[0], body)
        arena = Arena(made["id"], queues={b.username: asyncio.Queue() for b in bots})
        ready = asyncio.Event()
        spectator = asyncio.create_task(spectate(ws.port, arena, ready))
        await asyncio.wait_for(ready.wait(), 10)
        joined = Progress(len(bots), f"bots joined arena {made['code']}:", every=50)
        for bot in bots:
            await call(http.port, "POST", f"/api/arenas/{arena.id}/join", bot)
            joined.step()
        await asyncio.to_thread(_start_now, arena.id)  # everyone in the pool at its start
        phases = Phases(arena=arena, arena_tally=Tally(), solo_tally=Tally(), record=Run("arenas"))
        t0 = time.perf_counter()

        say(f"\n  arena phase: {args.bots} bots for {args.seconds} s")
        stop = asyncio.Event()
        until = time.monotonic() + args.seconds
        think = args.think_ms / 1000
        gc.collect()
        tasks = [
            asyncio.create_task(
                arena_bot(bot, ports, arena, phases.arena_tally, stop, random.Random(i), think)
            )
            for i, bot in enumerate(bots)
        ]
        await _progress("arena", phases.arena_tally, until)
        # The end brought to now: no race forms any more, the bots finish the races they are
        # in, and the arena ends once the last of them has.
        say("  the arena's end brought to now; the bots finish their races")
        started_end = time.perf_counter()
        await asyncio.to_thread(_end_now, arena.id)
        try:
            await asyncio.wait_for(arena.ended.wait(), 120)
        except TimeoutError:
            say("  no `ended` within 120 s")
        phases.end_wait_s = time.perf_counter() - started_end
        stop.set()
        phases.arena_games = sum(await asyncio.gather(*tasks))
        spectator.cancel()

        say(f"\n  solo phase: the same {args.bots} bots for {args.seconds} s")
        until = time.monotonic() + args.seconds
        gc.collect()
        tasks = [
            asyncio.create_task(
                solo_bot(bot, ports, phases.solo_tally, until, random.Random(10_000 + i), think)
            )
            for i, bot in enumerate(bots)
        ]
        await _progress("solo", phases.solo_tally, until)
        phases.solo_games = sum(await asyncio.gather(*tasks))
        phases.timed_s = round(time.perf_counter() - t0, 1)
        return phases


def _start_now(arena_id: str) -> None:
    _bring_to_now(arena_id, "starts_at")


def _end_now(arena_id: str) -> None:
    _bring_to_now(arena_id, "ends_at", seconds=1)


def _bring_to_now(arena_id: str, field: str, seconds: float = 0) -> None:
    """The controlled clock of tests/arenas: the arena's start or end (and the clock's next
    deadline with it) moved to now."""
    from django.utils import timezone

    from games.arenas.models import Arena as ArenaRow

    at = timezone.now() + timedelta(seconds=seconds)
    ArenaRow.objects.filter(pk=arena_id).update(**{field: at, "deadline": at})


# --- the figures ------------------------------------------------------------------------------


def pairing_delays(arena_id: str) -> tuple[list[float], list[float]]:
    """(back in the pool -> next race formed, -> next race started), ms, every racer of every
    race but each player's first."""
    from games.races.models import Racer

    rows = (
        Racer.objects.filter(race__arena_id=arena_id)
        .order_by("player_id", "race__created_at")
        .values_list("player_id", "race__created_at", "race__started_at", "game__ended_at")
    )
    formed: list[float] = []
    started: list[float] = []
    previous: dict[int, datetime | None] = {}
    for player, created, start, game_end in rows:
        back = previous.get(player)
        if back is not None:
            formed.append((created - back).total_seconds() * 1000)
            if start is not None:
                started.append((start - back).total_seconds() * 1000)
        previous[player] = game_end
    return formed, started


def standings_delays(arena: Arena) -> tuple[list[float], int, int]:
    """(race end -> its `standings` frame at the spectator, ms; races ended; frames missing)."""
    from games.races.models import Race

    rows = Race.objects.filter(arena_id=arena.id).values_list("pk", "ended_at")
    ends = {str(pk): end.timestamp() for pk, end in rows if end is not None}
    seen: dict[str, float] = {}
    for at, frame in arena.frames:
        race = frame.get("race") if frame["type"] == "standings" else None
        if race is not None and race not in seen:
            seen[race] = at
    delays = [(seen[r] - end) * 1000 for r, end in ends.items() if r in seen]
    return delays, len(ends), sum(1 for r in ends if r not in seen)


def race_sizes(arena_id: str) -> dict[int, int]:
    from django.db.models import Count

    from games.races.models import Race

    sizes: dict[int, int] = {}
    for n in (
        Race.objects.filter(arena_id=arena_id)
        .annotate(n=Count("racers"))
        .values_list("n", flat=True)
    ):
        sizes[n] = sizes.get(n, 0) + 1
    return dict(sorted(sizes.items()))


def summarize(phases: Phases, args: argparse.Namespace) -> dict[str, Any]:
    formed, started = pairing_delays(phases.arena.id)
    standings, races_ended, missing = standings_delays(phases.arena)
    arena_moves, solo_moves = phases.arena_tally.latencies, phases.solo_tally.latencies
    a, s = figures(arena_moves), figures(solo_moves)
    errors: dict[str, int] = {}
    for tally in (phases.arena_tally, phases.solo_tally):
        for kind, n in tally.errors.items():
            errors[kind] = errors.get(kind, 0) + n
    return {
        "config": {
            "bots": args.bots,
            "seconds_per_phase": args.seconds,
            "think_ms": args.think_ms,
            "level": LEVEL,
            "no_guess": True,
            "layout": "gunicorn 2 sync workers (REST) + uvicorn 2 workers (/ws/, race clock "
            "thread), PostgreSQL, Redis, DEBUG off",
        },
        "pairing_to_formed": figures(formed),
        "pairing_to_start": figures(started),
        "standings_update": figures(standings) | {"races_ended": races_ended, "missing": missing},
        "arena_moves": a,
        "solo_moves": s,
        "move_p50_ratio": round(a["p50_ms"] / s["p50_ms"], 2) if s["n"] else None,
        "move_p99_ratio": round(a["p99_ms"] / s["p99_ms"], 2) if s["n"] else None,
        "race_sizes": race_sizes(phases.arena.id),
        "games": {
            "arena": phases.arena_games,
            "solo": phases.solo_games,
            "arena_won_lost": [phases.arena_tally.won, phases.arena_tally.lost],
            "solo_won_lost": [phases.solo_tally.won, phases.solo_tally.lost],
        },
        "end_wait_s": round(phases.end_wait_s, 1),
        "errors": errors,
        "timed_s": phases.timed_s,
    }


# The latency table of the report: each measure's label and its key in the results.
MEASURES = (
    ("back in the pool -> next race formed", "pairing_to_formed"),
    ("back in the pool -> next race started (3 s countdown)", "pairing_to_start"),
    ("race end -> its standings frame", "standings_update"),
    ("arena race moves (send -> own `move`)", "arena_moves"),
    ("solo moves, the same bots", "solo_moves"),
)


def report(result: dict[str, Any]) -> None:
    say("\n## Results (docs/PERFORMANCE.md, section Arenas)\n")
    show(table(LATENCY_HEAD, [latency_row(label, result[key]) for label, key in MEASURES]))
    g, run = result["games"], result["run"]
    say(
        f"\nArena moves against solo: p50 x{result['move_p50_ratio']}, p99 "
        f"x{result['move_p99_ratio']}. Games: {g['arena']:,} in the arena "
        f"({result['standings_update']['races_ended']:,} races, sizes {result['race_sizes']}), "
        f"{g['solo']:,} solo. Standings frames missing: {result['standings_update']['missing']}. "
        f"The end: `ended` {result['end_wait_s']} s after the end was brought to now. "
        f"Errors: {result['errors'] or 'none'}."
    )
    say(
        f"Load average (1/5/15 min) before {run['load_before']}, after {run['load_after']}; "
        f"timed part {result['timed_s']:.0f} s."
    )


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--bots", type=int, default=200, help="bot players (200)")
    parser.add_argument("--seconds", type=int, default=150, help="length of each phase (150)")
    parser.add_argument(
        "--think-ms", type=float, default=3000, help="a bot's pause before each move (3000)"
    )
    parser.add_argument("--quick", action="store_true", help="40 bots, 40 s a phase")
    args = parser.parse_args()
    if args.quick:
        args.bots, args.seconds = 40, 40
    stack = Stack.shared("arenas", ports=PORTS, prefix="abench")
    if stack is None:
        return
    phases = asyncio.run(run_phases(args, stack))
    report(phases.record.write(summarize(phases, args), stack.logs / "results.json"))


if __name__ == "__main__":
    main()
