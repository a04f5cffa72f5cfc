"""The scaling curve (issue 14, item 5): bench/load's run at every worker count x player count,
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

import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bench import cli
from bench.http.run import fmt_load, wait_for_quiet

from . import run

ROOT = Path(__file__).resolve().parents[2]
PNG = ROOT / "docs" / "perf" / "scaling.png"
say = run.say


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v]


def table(results: list[dict[str, Any]]) -> list[str]:
    out = [
        "| transport | workers | players | moves/s | games/s | move p50 ms | move p99 ms "
        "| errors | server CPU µs/move | PostgreSQL µs/move | generator cores | machine cores |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        m, cpu, cores = r["moves_all"], r["cpu_us_per_move"], r["cpu_cores"]
        server = (cpu["rest"] or 0) + (cpu["ws"] or 0) if r["moves"] else None
        out.append(
            f"| {r['transport']} | {r['workers']} | {r['players']} | **{r['moves_per_s']:.0f}** "
            f"| {r['games_per_s']:.2f} | {m['p50_ms']:.1f} | **{m['p99_ms']:.1f}** "
            f"| {sum(r['errors'].values())} | {server if server is not None else '-'} "
            f"| {cpu['pg'] if cpu['pg'] is not None else '-'} | {cores['generator']:.2f} "
            f"| {cores['machine']:.2f} |"
        )
    return out


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
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
    env = run.prepare(args)
    if env is None:
        return
    if args.load_wait:
        wait_for_quiet(1.0, args.load_wait)
    database = urlparse(env.database_url).path.lstrip("/")
    results: list[dict[str, Any]] = []
    accounts: run.Accounts | None = None
    started = time.perf_counter()
    load_before = fmt_load()
    done = 0
    for w in workers:
        servers = run.Servers.start(env, w, access_log=not args.no_access_log)
        try:
            if accounts is None:
                accounts = run.make_accounts(servers.rest.port, max(players), args.api_accounts)
            for cell_w, transport, n in cells:
                if cell_w != w:
                    continue
                done += 1
                say(f"\n[{done}/{len(cells)}] {transport}, {w} workers, {n} players")
                r = run.run_in_loop(
                    run.measure(
                        servers,
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
        finally:
            servers.stop()
    elapsed = time.perf_counter() - started
    lines = table(results)
    say("\n## Scaling curve (docs/perf/LOAD.md)\n")
    for line in lines:
        say(line)
    say(
        f"\n{len(results)} cells, {args.warmup:g} s warm-up + {args.seconds:g} s each, levels "
        f"{args.levels}; {elapsed:.0f} s in all; load average before {load_before}, after "
        f"{fmt_load()}."
    )
    title = (
        f"bench/load: solver bots, levels {args.levels}, {args.seconds:g} s a cell "
        f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})"
    )
    if args.note:
        title += f"\n{args.note}"
    plot(results, args.png, title)
    say(f"PNG: {args.png}")
    payload = {"bench": "load-curve", "results": results, "elapsed_s": round(elapsed, 1)}
    (env.logs / "curve.json").write_text(json.dumps(payload, indent=1))
    (env.logs / "curve.md").write_text("\n".join(lines) + "\n")
    if args.json:
        args.json.write_text(json.dumps(payload, indent=1))
    say(f"JSON: {env.logs / 'curve.json'}; table: {env.logs / 'curve.md'}")


if __name__ == "__main__":
    main()
