"""What permessage-deflate would cost the live servers: CPU a frame and memory a socket, with
and without it, through the framing code uvicorn's default WebSocket implementation uses
(`websockets`' sans-I/O `ServerProtocol`), in process, no server.

    .venv/bin/python -m bench.live.compression [--sockets 2000] [--rounds 7]  # `make bench-compression`

Browsers offer permessage-deflate on every socket (`permessage-deflate;
client_max_window_bits`), and uvicorn grants it unless told not to
(`--ws-per-message-deflate false`, deploy.processes.WS_OPTIONS). Granted, each socket keeps a
zlib stream of its own, so a fan-out compresses the same frame once per watcher.

Measured, for a race's `progress` frame and a game's `move` frame of 24 changes as API.md
spells them (the frames every spectator and watcher gets): the CPU (`time.process_time`) to
frame one for each of 100 sockets, deflate off and on, in interleaved rounds (a warm-up
first); the bytes on the wire a frame; and the resident memory `--sockets` sockets add once
each has sent one frame (two processes of their own, one for each setting, so that neither
sees the other's freed pages).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

from bench import cli
from bench.harness.report import Run, say, show, table
from bench.harness.timing import CPU_AND_WALL, interleaved, median

FAN_OUT = 100  # a race's spectators (bench.races)
# What a browser sends (Chromium and Firefox alike).
BROWSER_OFFER = "permessage-deflate; client_max_window_bits"

# The two frames as API.md spells them (Races: `progress`; WebSockets: `move`, whose
# `changes` are MoveResult's {"x", "y", "v"}): a reveal that opened 24 cells.
PROGRESS = {
    "type": "progress",
    "seq": 412,
    "player": "marguerite",
    "opened": 187,
    "flags": 12,
    "state": "playing",
    "elapsed_ms": 43100,
}
MOVE = {
    "type": "move",
    "seq": 18,
    "action": "reveal",
    "changes": [{"x": 11 + i % 6, "y": 7 + i // 6, "v": str(i % 4)} for i in range(24)],
    "state": "playing",
    "mines_left": 57,
    "elapsed_ms": 43100,
}
FRAMES = {"progress": PROGRESS, "move": MOVE}
# Each frame as the server writes it: compact JSON, UTF-8.
TEXTS = {name: json.dumps(frame, separators=(",", ":")).encode() for name, frame in FRAMES.items()}


def _socket(deflate: bool) -> Any:
    """A server side of an open socket, deflate negotiated as uvicorn negotiates it."""
    from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
    from websockets.headers import parse_extension
    from websockets.protocol import State
    from websockets.server import ServerProtocol

    protocol = ServerProtocol()
    protocol.state = State.OPEN
    if deflate:
        name, params = parse_extension(BROWSER_OFFER)[0]
        assert name == "permessage-deflate"
        _, extension = ServerPerMessageDeflateFactory().process_request_params(params, [])
        protocol.extensions = [extension]
    return protocol


def _fan_out(sockets: list[Any], text: bytes) -> int:
    sent = 0
    for protocol in sockets:
        protocol.send_text(text)
        sent += sum(len(chunk) for chunk in protocol.data_to_send())
    return sent


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_child(deflate: bool, count: int) -> None:
    """In a process of its own: the resident bytes `count` sockets add after one frame each."""
    before = _rss()
    kept = [_socket(deflate) for _ in range(count)]
    _fan_out(kept, TEXTS["progress"])
    print(json.dumps({"bytes": _rss() - before, "sockets": len(kept)}))


def memory(deflate: bool, count: int) -> float:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.live.compression",
            "--memory-child",
            str(int(deflate)),
            "--sockets",
            str(count),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(out.stdout)
    return float(found["bytes"]) / float(found["sockets"])


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--sockets", type=int, default=2000, help="sockets for memory (2000)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (7)")
    parser.add_argument("--calls", type=int, default=200, help="fan-outs a round (200)")
    cli.results_option(parser, "live-compression")
    parser.add_argument("--memory-child", type=int, choices=(0, 1), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child is not None:
        memory_child(bool(args.memory_child), args.sockets)
        return

    record = Run("live-compression")
    say(f"bench/live/compression: {FAN_OUT} sockets a fan-out, {args.rounds} rounds")
    cases: dict[tuple[str, bool], Any] = {}
    wire: dict[tuple[str, bool], float] = {}
    for name, text in TEXTS.items():
        for deflate in (False, True):
            sockets = [_socket(deflate) for _ in range(FAN_OUT)]
            wire[(name, deflate)] = _fan_out(sockets, text) / FAN_OUT
            cases[(name, deflate)] = lambda s=sockets, t=text: _fan_out(s, t)

    def progress(done: int, _: Any) -> None:
        say(f"  round {done}/{args.rounds}")

    clocks = interleaved(
        cases, args.rounds, calls=args.calls, clocks=CPU_AND_WALL, on_round=progress
    )
    say(f"  memory: {args.sockets} sockets, deflate off then on, each in a process of its own")
    per_socket = {deflate: memory(deflate, args.sockets) for deflate in (False, True)}

    rows, results = [], {}
    for name, text in TEXTS.items():
        raw = len(text)
        off = median(clocks["cpu"][(name, False)]) / FAN_OUT * 1e6
        on = median(clocks["cpu"][(name, True)]) / FAN_OUT * 1e6
        rows.append(
            [
                name,
                raw,
                f"{wire[(name, False)]:.0f}",
                f"{wire[(name, True)]:.0f}",
                f"{off:.2f}",
                f"{on:.2f}",
                f"{on / off:.2f}",
            ]
        )
        results[name] = {
            "json_bytes": raw,
            "wire_bytes": {"off": wire[(name, False)], "on": wire[(name, True)]},
            "cpu_us_a_frame": {"off": round(off, 3), "on": round(on, 3)},
            "rounds_cpu_us": {
                str(d): [round(v / FAN_OUT * 1e6, 3) for v in clocks["cpu"][(name, d)]]
                for d in (False, True)
            },
        }
    show(
        table(
            ["frame", "JSON bytes", "wire off", "wire on", "CPU µs off", "CPU µs on", "on / off"],
            rows,
            "lrrrrrr",
        )
    )
    say(
        f"memory a socket after one frame: off {per_socket[False] / 1024:.1f} KiB, "
        f"on {per_socket[True] / 1024:.1f} KiB ({args.sockets} sockets)"
    )
    results["memory_bytes_a_socket"] = {"off": per_socket[False], "on": per_socket[True]}
    record.write(results, args.results)


if __name__ == "__main__":
    main()
