"""Players per machine: how many socket players, each making about a move a second, the
production layout of one machine serves with every move's p99 under a limit and no error.

    .venv/bin/python -m bench.load.capacity                 # `make bench-capacity`: 2 workers,
                                                            # 64 players doubled, then bisected
    .venv/bin/python -m bench.load.capacity --start 16 --max 64 --seconds 5   # a smoke run

Each cell is bench/load's run (the same Stack, bots and figures; its docstring says what
differs from a deployment) over the socket with a think time of --think-ms before every move
(uniform between half and one and a half of it: a mean of one move a second at the default,
plus the move's own time). A cell passes when the p99 of every move (reveal, flag, chord; not
the games' creation or the sockets' connection) is under --p99-ms, no error was counted, and
the players made at least --rate of the moves their think time allows (a server that answers
in time but to fewer moves does not pass).

The players double from --start until a cell fails or --max is reached (halve first if --start
fails); then the interval between the largest passing and the smallest failing count is halved
until it is within --precision of the passing count. The answer is
the largest passing count. The load generator runs on the same two cores (its share is in the
table): the figure is the machine's with its own load generator, the same before and after a
change. The plot of p99 and moves a second against players goes to docs/perf/capacity.png.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench import cli
from bench.harness.report import load_average, save_plot, say, show, table
from bench.harness.servers import ROOT

from . import run

PNG = ROOT / "docs" / "perf" / "capacity.png"


def expected_moves_per_s(players: int, think_ms: float) -> float:
    """The moves a second `players` would make if every answer were instant."""
    return players * 1000 / think_ms if think_ms else float("inf")


def verdict(result: dict[str, Any], *, p99_ms: float, rate: float) -> str:
    """'' when the cell passes, else why it does not."""
    why = []
    p99 = result["moves_all"].get("p99_ms")
    if p99 is None or p99 >= p99_ms:
        why.append(f"p99 {p99} ms")
    errors = sum(result["errors"].values())
    if errors:
        why.append(f"{errors} errors")
    wanted = rate * expected_moves_per_s(result["players"], result["think_ms"])
    if result["moves_per_s"] < wanted:
        why.append(f"{result['moves_per_s']:.0f} moves/s < {wanted:.0f}")
    return ", ".join(why)


def next_count(
    outcomes: dict[int, bool], *, start: int, maximum: int, precision: float
) -> int | None:
    """The next player count to try, given each count tried so far and whether it passed:
    doubling from `start` until a count fails (halving first if `start` fails), then halving
    the interval between the largest pass and the smallest failure above it until it is within
    `precision` of the pass. None: the search is over."""
    if not outcomes:
        return start
    passes = [n for n, ok in outcomes.items() if ok]
    passed = max(passes) if passes else None
    above = [n for n, ok in outcomes.items() if not ok and (passed is None or n > passed)]
    failed = min(above) if above else None
    if failed is None:
        assert passed is not None
        return passed * 2 if passed * 2 <= maximum else None
    if passed is None:
        return failed // 2 if failed > 1 else None
    if failed - passed <= max(1, int(passed * precision)):
        return None
    return (passed + failed) // 2


def capacity_table(cells: list[dict[str, Any]]) -> list[str]:
    head = ["players", "moves/s (of the think time's)", "move p50 ms", "move p99 ms", "errors",
            "server CPU µs/move", "generator cores", "machine cores", "passes"]  # fmt: skip
    rows = []
    for c in sorted(cells, key=lambda c: c["players"]):
        m, cpu, cores = c["moves_all"], c["cpu_us_per_move"], c["cpu_cores"]
        server = (cpu["rest"] or 0) + (cpu["ws"] or 0) if c["moves"] else "-"
        expected = expected_moves_per_s(c["players"], c["think_ms"])
        rows.append([c["players"], f"{c['moves_per_s']:.0f} ({expected:.0f})",
                     f"{m.get('p50_ms', 0):.1f}", f"**{m.get('p99_ms', 0):.1f}**",
                     sum(c["errors"].values()), server, f"{cores['generator']:.2f}",
                     f"{cores['machine']:.2f}", c["why"] or "yes"])  # fmt: skip
    return table(head, rows, "rrrrrrrrl")


def plot(cells: list[dict[str, Any]], path: Path, title: str, p99_ms: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ordered = sorted(cells, key=lambda c: c["players"])
    xs = [c["players"] for c in ordered]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    right.plot(xs, [c["moves_all"].get("p99_ms", 0) for c in ordered], "-s", label="p99 of a move")
    right.axhline(p99_ms, color="tab:red", linestyle=":", label=f"limit {p99_ms:g} ms")
    left.plot(xs, [c["moves_per_s"] for c in ordered], "-o", label="moves a second")
    left.plot(xs, [expected_moves_per_s(c["players"], c["think_ms"]) for c in ordered], ":",
              color="grey", label="the think time's")  # fmt: skip
    for ax, ylabel in ((left, "moves per second"), (right, "p99 of a move, ms")):
        ax.set_xlabel("concurrent socket players, about a move a second each")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_ylim(bottom=0)
    save_plot(fig, path, title)


def main(argv: list[str] | None = None) -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn and uvicorn workers (2)")
    parser.add_argument("--start", type=int, default=64, help="the first player count (64)")
    parser.add_argument("--max", type=int, default=2048, help="never more players (2048)")
    parser.add_argument(
        "--precision", type=float, default=0.1, help="stop within this share of the answer (0.1)"
    )
    parser.add_argument("--p99-ms", type=float, default=50, help="a move's p99 limit (50)")
    parser.add_argument(
        "--rate", type=float, default=0.9, help="share of the think time's moves needed (0.9)"
    )
    parser.add_argument("--png", type=Path, default=PNG, help=f"the plot ({PNG.relative_to(ROOT)})")
    parser.add_argument("--note", default="", help="a line added to the plot's title")
    run.add_common_arguments(parser, seconds=20)
    parser.set_defaults(think_ms=1000, warmup=5)
    args = parser.parse_args(argv)
    prepared = run.ready(args, "load-capacity")
    if prepared is None:
        return
    stack, database, record = prepared
    cells: list[dict[str, Any]] = []
    started, load_before = time.perf_counter(), load_average()
    search = {"start": args.start, "maximum": args.max, "precision": args.precision}
    outcomes: dict[int, bool] = {}
    with stack.pair(args.workers, lifespan=True, access_log=not args.no_access_log) as (rest, ws):
        accounts = run.make_accounts(rest.port, args.max, args.api_accounts)
        while (count := next_count(outcomes, **search)) is not None:
            say(f"\n[cell {len(cells) + 1}] {count} socket players, {args.workers} workers")
            result = run.run_in_loop(
                run.measure(
                    rest,
                    ws,
                    accounts.accounts,
                    args,
                    transport="ws",
                    players=count,
                    seed=len(cells) + 1,
                    database=database,
                )
            )
            result["why"] = verdict(result, p99_ms=args.p99_ms, rate=args.rate)
            cells.append(result)
            outcomes[count] = not result["why"]
            say(run.one_line(result) + f"; passes: {result['why'] or 'yes'}")
    passed = max((n for n, ok in outcomes.items() if ok), default=None)
    failed = min((n for n, ok in outcomes.items() if not ok and n > (passed or 0)), default=None)
    lines = capacity_table(cells)
    say("\n## Players per machine (docs/PERFORMANCE.md)\n")
    show(lines)
    answer = "none of the counts tried" if passed is None else f"**{passed}** players"
    say(
        f"\nThe largest count that passes: {answer} (p99 < {args.p99_ms:g} ms, no error, at least "
        f"{args.rate:.0%} of the think time's moves; first failure: {failed}). {len(cells)} cells "
        f"of {args.warmup:g} + {args.seconds:g} s, think {args.think_ms:g} ms, levels "
        f"{args.levels}; {time.perf_counter() - started:.0f} s in all; load average before "
        f"{load_before}, after {load_average()}."
    )
    title = (
        f"bench/load capacity: {args.workers} workers, think {args.think_ms:g} ms, "
        f"{args.seconds:g} s a cell ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})"
    )
    if args.note:
        title += f"\n{args.note}"
    plot(cells, args.png, title, args.p99_ms)
    say(f"PNG: {args.png}")
    record.write(
        {"cells": cells, "passed": passed, "failed": failed},
        stack.logs / "capacity.json",
        args.json,
    )


if __name__ == "__main__":
    main()
