"""Races benchmark: eight bots race on Expert while 100 spectators watch the race, against the
same eight bots playing solo Expert games the same way, in one run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/demineur REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m bench.races.run            # `make bench` runs exactly this
    ... -m bench.races.run --quick                     # one race and one solo round
    ... -m bench.races.run --races 8 --think-ms 50     # more rounds, faster bots

The production layout of bench/live (bench/harness/servers.py's Stack): gunicorn sync workers
for the REST API, uvicorn workers for /ws/ (with their lifespan, so the race clock thread runs
in each and starts the countdowns and races by itself), DEBUG off, on PostgreSQL and Redis, in
the database DATABASE_URL's name + "_bench" (created and emptied here), on ports 18600-18649.

Each round: eight bot accounts (registered through the API, kind bot) create and join one
Expert race and are all ready; 100 anonymous spectators are on /ws/races/{id}; the race starts
by itself after its 3 s countdown; each bot plays its race game to its end over its game
socket (bench/races/bots.py: certain reveals from the visible numbers, else a random closed
cell; waits --think-ms, 50-150 % of it, before each move). Then the same bots each play one
solo Expert game the same way (rounds alternate which comes first).

Measured: move latency (send -> the move's `move` frame on the bot's socket) in races and in
solo games (the solo first tap, which lays the mines, is not counted: a race game starts
opened); delivery latency from the instant the mover got its `move` frame to the instant each
spectator got the matching `progress` frame (matched by player, opened count and racer state,
through the race seq read by one more, full-parsing spectator). The tables are printed, the
results written to results.json in the run's logs folder.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import cli
from bench.harness.clients import (
    HOST,
    Account,
    Delivered,
    api_json,
    http_post,
)
from bench.harness.report import LATENCY_HEAD, Run, latency_row, say, show, table
from bench.harness.servers import Stack
from bench.harness.timing import figures, percentile

from .bots import Tally, play, register_bots
from .spectators import Spectators, Watched

PORTS = range(18600, 18650)
BOTS = 8
SPECTATORS = 100
LEVEL = "expert"
FIRST_TAP = (15, 8)  # the solo games' first reveal: the middle of the Expert board
GOAL_DELIVERY_P99_MS = 50.0
SPECTATORS_NICE = 19
GOAL_OVER_SOLO = 1.1  # a race move's p50 and p99 over a solo move's (docs/PERFORMANCE.md)
LAYOUTS = {
    "shared": "the spectators' sockets on the players' sockets' server",
    "split": "the spectators' sockets on a watch pool of their own",
}


def layouts(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in LAYOUTS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"layouts are {', '.join(LAYOUTS)}; got {text!r}")
    return list(dict.fromkeys(names))


# --- one race, one solo round ---------------------------------------------------------------------


@dataclass
class RaceRound:
    tally: Tally
    delivery: list[float] = field(default_factory=list)  # ms, every (progress, spectator)
    from_sent: list[float] = field(default_factory=list)  # the same from the move's sending
    rereads: list[tuple[float, float]] = field(default_factory=list)  # first..last arrival
    progress: int = 0  # progress events of bot moves, as the index spectator saw them
    unmatched: int = 0  # progress events with no bot answer to match (or an ambiguous one)
    missing: int = 0  # (progress, spectator) pairs never delivered
    resyncs: int = 0  # fresh `state` frames a spectator got mid-race
    connect_s: float = 0.0
    race_s: float = 0.0


async def _post(port: int, path: str, account: Account, body: dict[str, Any] | None = None) -> Any:
    status, raw = await http_post(HOST, port, path, account.token, body)
    if status not in (200, 201):
        raise SystemExit(f"POST {path} as {account.username}: {status} {raw[:300]!r}")
    return json.loads(raw)


async def _index(ws_port: int, race_id: str, messages: list[dict[str, Any]]) -> None:
    """The full-parsing spectator: every race message, in order, until the race ends."""
    from websockets.asyncio.client import connect

    async with connect(f"ws://{HOST}:{ws_port}/ws/races/{race_id}") as ws:
        async for raw in ws:
            message = json.loads(raw)
            messages.append(message)
            if message["type"] == "ended":
                return


async def _wait_for(messages: list[dict[str, Any]], kind: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for message in messages:
            if message["type"] == kind:
                return message
        await asyncio.sleep(0.01)
    raise SystemExit(f"no `{kind}` race message within {timeout:.0f} s")


async def race_round(
    http_port: int,
    ws_port: int,
    bots: list[Account],
    args: argparse.Namespace,
    seed: int,
    dump: Path,
    *,
    watch_port: int,
) -> RaceRound:
    """One race: the bots play over `ws_port`, the spectators (and the index) watch over
    `watch_port` (the same port: the shared layout; another server's: the split one)."""
    host, *others = bots
    race = await _post(http_port, "/api/races", host, {"level": LEVEL, "max_players": BOTS})
    race_id = race["id"]
    messages: list[dict[str, Any]] = []
    index = asyncio.create_task(_index(watch_port, race_id, messages))
    await _wait_for(messages, "state", 10)
    crowd = Spectators(
        watch_port,
        race_id,
        args.spectators,
        dump.with_suffix(".frames.json"),
        niceness=args.spectators_nice,
    )
    await crowd.start()
    for bot in others:
        await _post(http_port, f"/api/races/{race_id}/join", bot)
    for bot in bots:
        await _post(http_port, f"/api/races/{race_id}/ready", bot, {"ready": True})
    countdown = await _wait_for(messages, "countdown", 10)
    say(f"    countdown to {countdown['race']['starts_at']}; the race clock starts it")
    started = await _wait_for(messages, "started", 10)
    games = {r["player"]: r["game"] for r in started["race"]["racers"]}
    tally = Tally()
    t0 = time.perf_counter()
    gc.collect()
    gc.disable()  # a collection over the spectators' frames would delay their timestamps
    try:
        await asyncio.gather(
            *(
                play(
                    bot,
                    ws_port,
                    games[bot.username],
                    tally,
                    rng=random.Random(seed + i),
                    think_s=args.think_ms / 1000,
                )
                for i, bot in enumerate(bots)
            )
        )
        race_s = time.perf_counter() - t0
        try:
            await asyncio.wait_for(index, 15)
        except TimeoutError:
            tally.error("race: no `ended` within 15 s of the last move")
        await asyncio.sleep(0.5)  # the last frames on their way to the spectators
    finally:
        gc.enable()
    spectators = await crowd.finish()
    result = RaceRound(tally=tally, connect_s=crowd.connect_s, race_s=race_s)
    with dump.open("w") as out:  # what the full-parsing spectator got, for a closer look
        out.writelines(json.dumps(m) + "\n" for m in messages)
    _match(result, messages, spectators)
    return result


def _match(result: RaceRound, messages: list[dict[str, Any]], spectators: list[Watched]) -> None:
    """Delivery latencies: race seq -> (player, opened, state) from the index spectator, then
    the instant each bot got that move's answer, then each spectator's `progress` frame."""
    answered = result.tally.answered
    moves: dict[int, tuple[float, float]] = {}
    for message in messages:
        if message["type"] != "progress":
            continue
        key = (message["player"], int(message["opened"]), str(message["state"]))
        if key not in answered or key in result.tally.ambiguous:
            result.unmatched += 1
            continue
        moves[int(message["seq"])] = answered[key]
    result.progress = len(moves)
    fresh: list[float] = []  # when a spectator got a fresh `state`
    delivered = Delivered()
    for sock in spectators:
        for t, kind, _seq in sock.frames[1:]:
            if kind == "state":
                result.resyncs += 1
                fresh.append(t)
        delivered.add(sock.frames, moves, kind="progress")
    result.delivery, result.from_sent = delivered.from_answer, delivered.from_sent
    result.missing = delivered.missing
    for t in sorted(fresh):  # one re-read: the spectators' fresh states less than 0.2 s apart
        if result.rereads and t - result.rereads[-1][1] < 0.2:
            result.rereads[-1] = (result.rereads[-1][0], t)
        else:
            result.rereads.append((t, t))


def calm_moves(result: RaceRound, margin_s: float = 0.05) -> list[float]:
    """The race moves of the round that overlapped no spectators' re-read (from a little
    before the first fresh `state` of a re-read to its last one)."""
    calm = []
    for sent, ms in zip(result.tally.sent, result.tally.latencies, strict=True):
        answered = sent + ms / 1000
        if not any(
            sent <= end + margin_s and answered >= start - margin_s for start, end in result.rereads
        ):
            calm.append(ms)
    return calm


async def solo_round(
    http_port: int, ws_port: int, bots: list[Account], args: argparse.Namespace, seed: int
) -> Tally:
    tally = Tally()
    games = [await _post(http_port, "/api/games", bot, {"level": LEVEL}) for bot in bots]
    gc.collect()
    gc.disable()
    try:
        await asyncio.gather(
            *(
                play(
                    bot,
                    ws_port,
                    str(game["id"]),
                    tally,
                    rng=random.Random(seed + i),
                    think_s=args.think_ms / 1000,
                    first_tap=FIRST_TAP,
                )
                for i, (bot, game) in enumerate(zip(bots, games, strict=True))
            )
        )
    finally:
        gc.enable()
    return tally


# --- report -------------------------------------------------------------------------------------


def _below(value: float, limit: float, *, equal: bool = False) -> bool | None:
    if math.isnan(value) or math.isnan(limit):
        return None
    return value <= limit if equal else value < limit


def _verdict(ok: bool | None, yes: str = "yes", no: str = "no") -> str:
    return "not measured" if ok is None else yes if ok else no


def _race_figures(races: list[RaceRound], solo: dict[str, Any]) -> dict[str, Any]:
    """One layout's race rounds: moves, deliveries, and the moves over the solo ones."""
    race_moves = [v for r in races for v in r.tally.latencies]
    delivery = [v for r in races for v in r.delivery]
    from_sent = [v for r in races for v in r.from_sent]
    race_fig, delivery_fig = figures(race_moves), figures(delivery)
    return {
        "race_moves": race_fig,
        "race_moves_outside_rereads": figures([v for r in races for v in calm_moves(r)]),
        "over_solo": {
            "p50": round(race_fig["p50_ms"] / solo["p50_ms"], 2) if solo["p50_ms"] else None,
            "p99": round(race_fig["p99_ms"] / solo["p99_ms"], 2) if solo["p99_ms"] else None,
        },
        "delivery": delivery_fig
        | {
            "from_send_p50_ms": round(percentile(from_sent, 50), 2),
            "from_send_p99_ms": round(percentile(from_sent, 99), 2),
            "progress_events": sum(r.progress for r in races),
            "unmatched_events": sum(r.unmatched for r in races),
            "missing": sum(r.missing for r in races),
            "resyncs": sum(r.resyncs for r in races),
            "rereads": sum(len(r.rereads) for r in races),
        },
        "games": {
            "won": sum(r.tally.won for r in races),
            "lost": sum(r.tally.lost for r in races),
        },
        "moves": sum(r.tally.moves for r in races),
        "goals": {  # None: nothing measured
            "delivery_p99_under_50ms": _below(delivery_fig["p99_ms"], GOAL_DELIVERY_P99_MS),
            "race_p50_within_goal": _below(
                race_fig["p50_ms"], GOAL_OVER_SOLO * solo["p50_ms"], equal=True
            ),
            "race_p99_within_goal": _below(
                race_fig["p99_ms"], GOAL_OVER_SOLO * solo["p99_ms"], equal=True
            ),
        },
        "round_p99s": {
            "race_moves": [round(percentile(r.tally.latencies, 99), 1) for r in races],
            "race_moves_outside_rereads": [round(percentile(calm_moves(r), 99), 1) for r in races],
            "delivery": [round(percentile(r.delivery, 99), 1) for r in races],
        },
    }


def summarize(
    races: dict[str, list[RaceRound]],
    solos: list[Tally],
    args: argparse.Namespace,
    timed_s: float,
) -> dict[str, Any]:
    solo_fig = figures([v for s in solos for v in s.latencies])
    errors: dict[str, int] = {}
    for tally in [*(r.tally for rounds in races.values() for r in rounds), *solos]:
        for kind, n in tally.errors.items():
            errors[kind] = errors.get(kind, 0) + n
    return {
        "config": {
            "bots": BOTS,
            "spectators": args.spectators,
            "level": LEVEL,
            "rounds": args.races,
            "think_ms": args.think_ms,
            "layouts": {name: LAYOUTS[name] for name in races},
            "servers": "gunicorn 2 sync workers (REST) + uvicorn 2 workers (the players' "
            "sockets, race clock thread) + uvicorn 1 worker (the watch pool), PostgreSQL, "
            "Redis, DEBUG off",
        },
        "layouts": {name: _race_figures(rounds, solo_fig) for name, rounds in races.items()},
        "solo_moves": solo_fig,
        "solo_games": {"won": sum(s.won for s in solos), "lost": sum(s.lost for s in solos)},
        "moves": {
            "solo": sum(s.moves for s in solos),
            "total": sum(r.tally.moves for rounds in races.values() for r in rounds)
            + sum(s.moves for s in solos),
            "guesses": sum(r.tally.guesses for rounds in races.values() for r in rounds)
            + sum(s.guesses for s in solos),
        },
        "errors": errors,
        "round_p99s": {"solo_moves": [round(percentile(s.latencies, 99), 1) for s in solos]},
        "timed_s": timed_s,
    }


def report(result: dict[str, Any]) -> None:
    say("\n## Results (docs/PERFORMANCE.md, section Races)\n")
    spectators = result["config"]["spectators"]
    rows = []
    for name, fig in result["layouts"].items():
        for label, key in (
            (f"race moves, {name} (send -> own `move`)", "race_moves"),
            (f"race moves, {name}, overlapping no re-read", "race_moves_outside_rereads"),
            (f"progress to {spectators} spectators, {name}", "delivery"),
        ):
            each = " / ".join(f"{v:.1f}" for v in fig["round_p99s"][key])
            rows.append([*latency_row(label, fig[key]), each])
    solo_each = " / ".join(f"{v:.1f}" for v in result["round_p99s"]["solo_moves"])
    rows.append([*latency_row("solo moves (send -> own `move`)", result["solo_moves"]), solo_each])
    show(table([*LATENCY_HEAD, "p99 of each round"], rows, "lrrrrl"))
    m = result["moves"]
    say(
        f"\nMoves: {m['total']:,} ({m['solo']:,} solo; {m['guesses']:,} guesses). Solo games "
        f"{result['solo_games']['won']} won / {result['solo_games']['lost']} lost. "
        f"Errors: {result['errors'] or 'none'}."
    )
    for name, fig in result["layouts"].items():
        d, goals, ratio = fig["delivery"], fig["goals"], fig["over_solo"]
        say(
            f"{name} ({result['config']['layouts'][name]}): race / solo p50 {ratio['p50']} x, "
            f"p99 {ratio['p99']} x (goal ≤ {GOAL_OVER_SOLO} x: p50 "
            f"{_verdict(goals['race_p50_within_goal'])}, p99 "
            f"{_verdict(goals['race_p99_within_goal'])}); {fig['moves']:,} race moves, games "
            f"{fig['games']['won']} won / {fig['games']['lost']} lost; progress events matched "
            f"{d['progress_events']:,} (unmatched {d['unmatched_events']}), delivery from the "
            f"move's sending p50 {d['from_send_p50_ms']:.1f} / p99 {d['from_send_p99_ms']:.1f} ms, "
            f"missing {d['missing']}, fresh `state` frames {d['resyncs']} in {d['rereads']} "
            f"re-read(s); delivery p99 < {GOAL_DELIVERY_P99_MS:.0f} ms: "
            f"{_verdict(goals['delivery_p99_under_50ms'], 'met', 'NOT met')}."
        )
    say(
        f"Load average (1/5/15 min) before {result['run']['load_before']}, after "
        f"{result['run']['load_after']}; timed part {result['timed_s']:.0f} s."
    )


# --- main ---------------------------------------------------------------------------------------


async def run(args: argparse.Namespace, stack: Stack) -> None:
    with stack.pair(lifespan=True) as (http, ws):
        watch = (
            stack.server("uvicorn", workers=1, lifespan=True) if "split" in args.layouts else None
        )
        try:
            if watch is not None:
                watch.wait_ready()
                say(f"  the watch pool: uvicorn 1 worker :{watch.port}")
            await _rounds(args, stack, http.port, ws.port, watch.port if watch else ws.port)
        finally:
            if watch is not None:
                watch.stop()


async def _rounds(
    args: argparse.Namespace, stack: Stack, http_port: int, ws_port: int, watch_port: int
) -> None:
    bots = register_bots(http_port, BOTS, "rbot")
    _, me = api_json(http_port, "GET", "/api/me", token=bots[0].token)
    say(f"  {len(bots)} bots registered through the API (kind {me.get('kind')!r})")
    races: dict[str, list[RaceRound]] = {name: [] for name in args.layouts}
    solos: list[Tally] = []
    record = Run("races")
    t0 = time.perf_counter()
    parts = [*args.layouts, "solo"]
    for r in range(args.races):
        seed = 1000 * r
        for part in parts[r % len(parts) :] + parts[: r % len(parts)]:  # each part leads in turn
            if part == "solo":
                say(f"\n  round {r + 1}/{args.races}: solo, {BOTS} bots")
                started = time.perf_counter()
                t = await solo_round(http_port, ws_port, bots, args, seed + 500)
                solos.append(t)
                say(
                    f"    solo over in {time.perf_counter() - started:.1f} s: {t.moves} moves, "
                    f"{t.won} won / {t.lost} lost; move p50 {percentile(t.latencies, 50):.1f} / "
                    f"p99 {percentile(t.latencies, 99):.1f} ms; errors {t.errors or 'none'}"
                )
                continue
            say(
                f"\n  round {r + 1}/{args.races}: race, {BOTS} bots, {args.spectators} "
                f"spectators, {part} layout"
            )
            dump = stack.logs / f"race-{r + 1}-{part}.jsonl"
            port = watch_port if part == "split" else ws_port
            rr = await race_round(http_port, ws_port, bots, args, seed, dump, watch_port=port)
            races[part].append(rr)
            t = rr.tally
            say(
                f"    race over in {rr.race_s:.1f} s: {t.moves} moves, {t.won} won / "
                f"{t.lost} lost; move p50 {percentile(t.latencies, 50):.1f} / p99 "
                f"{percentile(t.latencies, 99):.1f} ms; delivery p50 {percentile(rr.delivery, 50):.1f} / "
                f"p99 {percentile(rr.delivery, 99):.1f} ms ({len(rr.delivery):,} deliveries, "
                f"{rr.missing} missing); errors {t.errors or 'none'}"
            )
    timed_s = round(time.perf_counter() - t0, 1)
    report(record.write(summarize(races, solos, args, timed_s), stack.logs / "results.json"))


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--races", type=int, default=5, help="rounds: one race + one solo (5)")
    parser.add_argument(
        "--think-ms", type=float, default=100, help="a bot's pause before each move (100)"
    )
    parser.add_argument(
        "--spectators", type=int, default=SPECTATORS, help=f"race watchers ({SPECTATORS})"
    )
    parser.add_argument(
        "--layouts",
        type=layouts,
        default=list(LAYOUTS),
        help="where the spectators watch, comma-separated: shared (the players' sockets' "
        "server), split (a watch pool of its own); each round races once in each (both)",
    )
    parser.add_argument(
        "--spectators-nice",
        type=int,
        default=SPECTATORS_NICE,
        help="the spectators' process's niceness: they stand for other machines, and here "
        f"share two cores with the servers measured ({SPECTATORS_NICE}; 0: as the servers)",
    )
    parser.add_argument("--quick", action="store_true", help="one round")
    args = parser.parse_args()
    if args.quick:
        args.races = 1

    stack = Stack.shared("races", ports=PORTS, prefix="rbench")
    if stack is None:
        return
    asyncio.run(run(args, stack))


if __name__ == "__main__":
    main()
