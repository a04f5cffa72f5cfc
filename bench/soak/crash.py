"""Crash test: under a steady load of real moves, the production server processes are killed
with SIGKILL and restarted, and PostgreSQL is stopped in immediate mode and started again.
Every move that was acknowledged must be stored, and `manage.py verify_games` must pass.

    .venv/bin/python -m bench.soak.crash                 # `make soak` runs it (about 3 min)
    .venv/bin/python -m bench.soak.crash --seconds 45    # the short one of tests/reliability

Everything runs on a PRIVATE PostgreSQL (initdb in a temporary directory) and a PRIVATE Redis,
on ports 18500-18549: the machine's shared instances are never stopped. The servers are the
production ones (docs/LIVE.md): gunicorn with 2 sync workers for /api/ and uvicorn with 2
workers (DB_POOL=1) for /ws/, DEBUG=0.

One round of events, each followed by a pause under load:
  1. SIGKILL gunicorn worker 1, then worker 2 (the arbiter starts new ones);
  2. SIGKILL the gunicorn master and its group (a container dying), start it again;
  3. SIGKILL one uvicorn worker (its supervisor starts a new one);
  4. SIGKILL the uvicorn supervisor and its group, start it again;
  5. `pg_ctl stop -m immediate` (a PostgreSQL crash: no checkpoint), a few seconds down, start.
Rounds repeat while time is left; then a quiet tail, the load stops and the checks run.

Passes when: no acknowledged move is missing from the database (lost = 0), no client_move_id
was acknowledged with two different seqs, no answer outside the expected ones (an outage
explains refused or cut connections, 503 and no answer; anything else, such as 409 on a fresh
move, is unexpected), moves were acknowledged through both doors after the last event (the
service recovered without a restart), and verify_games passes.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench import cli
from bench.harness.report import say
from bench.harness.servers import AppServer, PrivatePostgres

from . import bots, checks
from .layout import PORTS, Layout, production_layout, seed

__all__ = ["PORTS", "STEP_NAMES", "Config", "Report", "main", "run", "seed"]

DATABASE = "demineur_crash"
# One round of events, in order (Chaos.steps).
STEP_NAMES = (
    "gunicorn worker 1",
    "gunicorn worker 2",
    "gunicorn master",
    "uvicorn worker",
    "uvicorn supervisor",
    "postgresql immediate stop",
)


@dataclass
class Config:
    seconds: float = 150.0  # the whole loaded part, events included
    players: int = 32
    socket_share: float = 0.4
    think: float = 0.05  # seconds a player waits between its moves
    warmup: float = 8.0
    gap: float = 6.0  # seconds of load after each event (after recovery)
    pg_down: float = 4.0
    tail: float = 8.0
    levels: tuple[str, ...] = bots.LEVELS


@dataclass
class Event:
    name: str
    at: float  # seconds since the load started
    recovered_s: float  # from the kill to every server ready again
    errors: Counter[str] = field(default_factory=Counter)  # errors until the next event
    acked_rest: int = 0  # acknowledgements until the next event
    acked_socket: int = 0


@dataclass
class Report:
    config: Config
    ledger: bots.Ledger
    events: list[Event]
    stored: checks.Stored | None = None
    verified: bool = False
    verify_output: str = ""
    acked_after_last: tuple[int, int] = (0, 0)  # (REST, socket) in the tail
    loaded_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def lines(self) -> list[str]:
        lg = self.ledger
        lost = len(self.stored.lost) if self.stored else "?"
        out = [
            f"load: {len(self.events)} events in {self.loaded_s:.0f} s, {self.config.players} "
            f"players ({round(self.config.players * self.config.socket_share)} on sockets)",
            f"moves sent: {lg.moves} (requests and frames, retries included: {lg.attempts})",
            f"acknowledged: {len(lg.acked)} (REST {lg.acked_rest}, socket {lg.acked_socket}; "
            f"acknowledged as replays of a retried client_move_id: {lg.replays})",
            f"lost (acknowledged, not stored): {lost}",
            f"games: {lg.games} started, {lg.games_ended} ended; levels {dict(lg.levels)}",
            f"verify_games: {'passed' if self.verified else 'FAILED'}: "
            + (self.verify_output.splitlines()[-1] if self.verify_output else ""),
            "errors seen, by event (until the next event):",
        ]
        for e in self.events:
            errors = ", ".join(f"{k} {v}" for k, v in e.errors.most_common()) or "none"
            out.append(
                f"  {e.at:6.1f} s  {e.name:<34} back in {e.recovered_s:4.1f} s; acked after: "
                f"REST {e.acked_rest}, socket {e.acked_socket}; errors: {errors}"
            )
        out.append("failures: " + ("; ".join(self.failures) if self.failures else "none"))
        return out


class Chaos:
    """The events, run one after another in a thread beside the load's event loop."""

    def __init__(
        self,
        web: AppServer,
        live: AppServer,
        pg: PrivatePostgres,
        cfg: Config,
        log: Callable[[str], None],
    ) -> None:
        self.web, self.live, self.pg, self.cfg, self.log = web, live, pg, cfg, log

    def wait_all_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while not (self.web.answers() and self.live.answers()):
            if time.monotonic() > deadline:
                raise RuntimeError(f"servers not ready {timeout} s after an event")
            time.sleep(0.2)
        self.web.wait_ready(timeout)
        self.live.wait_ready(timeout)

    def steps(self) -> list[tuple[str, Callable[[], str]]]:
        def web_worker(i: int) -> Callable[[], str]:
            return lambda: f"SIGKILL gunicorn worker {self.web.kill_worker(i)}"

        def web_master() -> str:
            pid = self.web.kill_master()
            self.web.start()
            return f"SIGKILL gunicorn master {pid} + group"

        def live_worker() -> str:
            return f"SIGKILL uvicorn worker {self.live.kill_worker(0)}"

        def live_master() -> str:
            pid = self.live.kill_master()
            self.live.start()
            return f"SIGKILL uvicorn {pid} + group"

        def pg_crash() -> str:
            self.pg.stop("immediate")
            time.sleep(self.cfg.pg_down)
            self.pg.start()
            return f"pg_ctl stop -m immediate, {self.cfg.pg_down:.0f} s down"

        actions = [web_worker(0), web_worker(1), web_master, live_worker, live_master, pg_crash]
        return list(zip(STEP_NAMES, actions, strict=True))


async def drive(
    cfg: Config, layout: Layout, log: Callable[[str], None]
) -> tuple[bots.Ledger, list[Event], tuple[int, int], float]:
    load = bots.Load(layout.web.port, layout.live.port, cfg.levels, cfg.think)
    ledger, stop = load.ledger, load.stop
    players = bots.make_players(layout.accounts, load, socket_share=cfg.socket_share)
    tasks = [asyncio.create_task(p.run()) for p in players]
    started = time.monotonic()
    events: list[Event] = []
    chaos = Chaos(layout.web, layout.live, layout.pg, cfg, log)

    async def progress() -> None:
        last = 0
        while not stop.is_set():
            await asyncio.sleep(5)
            acked = len(ledger.acked)
            errors = sum(ledger.errors.values())
            log(
                f"  {time.monotonic() - started:6.1f} s  acked {acked} (+{(acked - last) / 5:.0f}/s)"
                f"  REST {ledger.acked_rest} socket {ledger.acked_socket}  games {ledger.games}"
                f"  errors {errors}"
            )
            last = acked

    reporter = asyncio.create_task(progress())
    mark = (Counter(ledger.errors), ledger.acked_rest, ledger.acked_socket)

    def close_window() -> None:
        nonlocal mark
        if events:
            e = events[-1]
            e.errors = Counter(ledger.errors) - mark[0]
            e.acked_rest = ledger.acked_rest - mark[1]
            e.acked_socket = ledger.acked_socket - mark[2]
        mark = (Counter(ledger.errors), ledger.acked_rest, ledger.acked_socket)

    await asyncio.sleep(cfg.warmup)
    deadline = started + cfg.seconds - cfg.tail
    steps = chaos.steps()
    i = 0
    # At least one whole round of events, then more while the time lasts.
    while i < len(steps) or time.monotonic() < deadline:
        name, action = steps[i % len(steps)]
        close_window()
        at = time.monotonic() - started
        t0 = time.monotonic()
        what = await asyncio.to_thread(action)
        await asyncio.to_thread(chaos.wait_all_ready)
        event = Event(name, at, time.monotonic() - t0)
        events.append(event)
        log(f"  {at:6.1f} s  EVENT {what}; every server ready after {event.recovered_s:.1f} s")
        i += 1
        await asyncio.sleep(cfg.gap)
    close_window()
    tail_rest, tail_socket = ledger.acked_rest, ledger.acked_socket
    await asyncio.sleep(cfg.tail)
    tail = (ledger.acked_rest - tail_rest, ledger.acked_socket - tail_socket)
    stop.set()
    loaded = time.monotonic() - started
    await asyncio.gather(*tasks)
    reporter.cancel()
    return ledger, events, tail, loaded


def run(cfg: Config, log: Callable[[str], None] = say, workdir: Path | None = None) -> Report:
    with production_layout(
        "crash", database=DATABASE, players=cfg.players, log=log, workdir=workdir
    ) as layout:
        ledger, events, tail, loaded = asyncio.run(drive(cfg, layout, log))
        layout.stop_servers()
        report = Report(cfg, ledger, events, acked_after_last=tail, loaded_s=loaded)
        log("crash: load stopped; checking the database")
        report.stored = checks.lost_moves(layout.database_url, ledger)
        report.verified, report.verify_output = checks.verify_games(layout.env)
    judge(report)
    for line in report.lines():
        log(line)
    return report


def judge(report: Report) -> None:
    f = report.failures
    lg = report.ledger
    if report.stored is None or report.stored.lost:
        lost = report.stored.lost if report.stored else ["not checked"]
        f.append(f"{len(lost)} acknowledged move(s) not stored: {lost[:5]}")
    if lg.conflicts:
        f.append(f"client_move_ids acknowledged twice with different seqs: {lg.conflicts[:5]}")
    if lg.unexpected:
        f.append(f"unexpected answers: {lg.unexpected[:5]}")
    if not report.verified:
        f.append(f"verify_games failed:\n{report.verify_output}")
    if not report.events:
        f.append("no event ran (the run was too short)")
    rest, socket = report.acked_after_last
    if rest == 0 or (socket == 0 and round(report.config.players * report.config.socket_share)):
        f.append(
            f"no recovery: moves acknowledged after the last event: REST {rest}, socket {socket}"
        )


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--seconds", type=float, default=Config.seconds)
    parser.add_argument("--players", type=int, default=Config.players)
    parser.add_argument("--socket-share", type=float, default=Config.socket_share)
    parser.add_argument("--think", type=float, default=Config.think)
    parser.add_argument("--gap", type=float, default=Config.gap, help="seconds after each event")
    # Each option is the Config field of the same name.
    report = run(Config(**vars(parser.parse_args())))
    say("crash: PASSED" if report.passed else "crash: FAILED")
    sys.exit(0 if report.passed else 1)


if __name__ == "__main__":
    main()
