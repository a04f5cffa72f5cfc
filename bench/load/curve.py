"""The scaling curve: bench/load's run at every worker count x player count,
for both transports; a Markdown table and a PNG (throughput and p99 against players, one line
per worker count; HTTP solid, socket dashed).

    .venv/bin/python -m bench.load.curve                   # 1,2,4 workers x 1,8,32,128 players,
                                                           # http and ws, 12 s a cell (~7 min)
    .venv/bin/python -m bench.load.curve --workers 1,2 --players 1,8 --seconds 3   # a smoke run
    .venv/bin/python -m bench.load.curve --ws-workers 2    # the socket at 2 workers only

W workers = gunicorn with W sync workers and uvicorn with W workers, restarted for each W; the
same accounts (made once) and the same database throughout. Cells run in order: for each W,
HTTP at every player count, then the socket at every player count. The PNG goes to
docs/perf/scaling.png (--png), the table to stdout and, with the JSON, to the logs directory.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench import cli
from bench.harness.report import load_average, save_plot, say, show, table
from bench.harness.servers import ROOT

from . import run

PNG = ROOT / "docs" / "perf" / "scaling.png"


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v]


def curve_table(results: list[dict[str, Any]]) -> list[str]:
    head = ["transport", "workers", "players", "moves/s", "games/s", "move p50 ms", "move p99 ms",
            "errors", "server CPU µs/move", "PostgreSQL µs/move", "generator cores",
            "machine cores"]  # fmt: skip
    rows = []
    for r in results:
        m, cpu, cores = r["moves_all"], r["cpu_us_per_move"], r["cpu_cores"]
        server = (cpu["rest"] or 0) + (cpu["ws"] or 0) if r["moves"] else None
        rows.append([r["transport"], r["workers"], r["players"], f"**{r['moves_per_s']:.0f}**",
                     f"{r['games_per_s']:.2f}", f"{m['p50_ms']:.1f}", f"**{m['p99_ms']:.1f}**",
                     sum(r["errors"].values()), server if server is not None else "-",
                     cpu["pg"] if cpu["pg"] is not None else "-", f"{cores['generator']:.2f}",
                     f"{cores['machine']:.2f}"])  # fmt: skip
    return table(head, rows)


def plot(results: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    workers = sorted({r["workers"] for r in results})
    palette = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
    colours = {w: palette[i % len(palette)] for i, w in enumerate(workers)}
    players = sorted({r["players"] for r in results})
    for transport, style, name in (("http", "-", "HTTP"), ("ws", "--", "socket")):
        for w in workers:
            cells = sorted(
                (r for r in results if r["transport"] == transport and r["workers"] == w),
                key=lambda r: r["players"],
            )
            if not cells:
                continue
            xs = [r["players"] for r in cells]
            label = f"{name}, {w} worker{'s' if w > 1 else ''}"
            marker = "o" if transport == "http" else "s"
            left.plot(xs, [r["moves_per_s"] for r in cells], style, marker=marker,
                      color=colours[w], label=label)  # fmt: skip
            right.plot(xs, [r["moves_all"]["p99_ms"] for r in cells], style, marker=marker,
                       color=colours[w], label=label)  # fmt: skip
    for ax, ylabel in ((left, "moves per second"), (right, "p99 of a move, ms")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(players)
        ax.set_xticklabels([str(p) for p in players])
        ax.set_xlabel("concurrent players (closed loop, no think time)")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    right.set_yscale("log")
    right.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    right.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    right.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    left.set_ylim(bottom=0)
    left.legend(fontsize=8)
    save_plot(fig, path, title)


def main(argv: list[str] | None = None) -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--workers", default="1,2,4", help="worker counts (1,2,4)")
    parser.add_argument("--players", default="1,8,32,128", help="player counts (1,8,32,128)")
    parser.add_argument("--transport", default="http,ws", help="http, ws or both (http,ws)")
    parser.add_argument(
        "--ws-workers", default="", help="the socket only at these worker counts (default: all)"
    )
    parser.add_argument("--png", type=Path, default=PNG, help=f"the plot ({PNG.relative_to(ROOT)})")
    parser.add_argument("--note", default="", help="a line added to the plot's title")
    run.add_common_arguments(parser, seconds=12)
    args = parser.parse_args(argv)
    workers, players = _ints(args.workers), _ints(args.players)
    transports = [t for t in ("http", "ws") if t in args.transport.split(",")]
    ws_workers = set(_ints(args.ws_workers)) or set(workers)
    cells = [
        (w, t, n)
        for w in workers
        for t in transports
        if t == "http" or w in ws_workers
        for n in players
    ]
    per_cell = args.warmup + args.seconds + 1
    say(
        f"bench/load curve: {len(cells)} cells of {args.warmup:g} + {args.seconds:g} s "
        f"(about {len(cells) * per_cell / 60:.1f} min plus server starts)"
    )
    prepared = run.ready(args, "load-curve")
    if prepared is None:
        return
    stack, database, record = prepared
    results: list[dict[str, Any]] = []
    accounts: run.Accounts | None = None
    started = time.perf_counter()
    load_before = load_average()
    done = 0
    for w in workers:
        with stack.pair(w, lifespan=True, access_log=not args.no_access_log) as (rest, ws):
            if accounts is None:
                accounts = run.make_accounts(rest.port, max(players), args.api_accounts)
            for cell_w, transport, n in cells:
                if cell_w != w:
                    continue
                done += 1
                say(f"\n[{done}/{len(cells)}] {transport}, {w} workers, {n} players")
                r = run.run_in_loop(
                    run.measure(
                        rest,
                        ws,
                        accounts.accounts,
                        args,
                        transport=transport,
                        players=n,
                        seed=done,
                        database=database,
                    )
                )
                results.append(r)
                say(run.one_line(r))
    elapsed = time.perf_counter() - started
    lines = curve_table(results)
    say("\n## Scaling curve (docs/perf/LOAD.md)\n")
    show(lines)
    say(
        f"\n{len(results)} cells, {args.warmup:g} s warm-up + {args.seconds:g} s each, levels "
        f"{args.levels}; {elapsed:.0f} s in all; load average before {load_before}, after "
        f"{load_average()}."
    )
    title = (
        f"bench/load: solver bots, levels {args.levels}, {args.seconds:g} s a cell "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})"
    )
    if args.note:
        title += f"\n{args.note}"
    plot(results, args.png, title)
    say(f"PNG: {args.png}")
    (stack.logs / "curve.md").write_text("\n".join(lines) + "\n")
    say(f"table: {stack.logs / 'curve.md'}")
    record.write({"results": results}, stack.logs / "curve.json", args.json)


if __name__ == "__main__":
    main()
