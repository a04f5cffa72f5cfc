"""A race's spectators in a process of their own, as real spectators are on other machines:
their frames are read and timestamped outside the racing bots' event loop, so the time a
hundred sockets' reading takes is not counted in the bots' moves.

    python -m bench.races.spectators --port P --race ID --count 100 --out frames.json

It opens `count` anonymous sockets on `/ws/races/{ID}`, prints `ready` once each has its
snapshot, then keeps every frame (arrival on `time.perf_counter()`, the system-wide monotonic
clock on Linux, so comparable with the bench's own timestamps; type; seq) until each socket has
seen the race's `ended` (or `--timeout` passes) and writes them to `--out` as JSON, one list of
frames a socket. `Spectators` is the bench's side of it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.harness.clients import Frame, RawSocket, open_watchers
from bench.harness.report import say


@dataclass
class Watched:
    """One spectator's frames, as the bench's delivery matching reads them (`frames`)."""

    frames: list[Frame]


class Spectators:
    """The bench's handle on a spectators process: `start` returns once every socket has
    its snapshot; `finish` waits for the process to write its frames and returns them."""

    def __init__(self, port: int, race_id: str, count: int, out: Path, *, niceness: int) -> None:
        self.port, self.race_id, self.count, self.out = port, race_id, count, out
        self.niceness = niceness
        self.process: asyncio.subprocess.Process | None = None
        self.connect_s = 0.0

    async def start(self, timeout: float = 120.0) -> None:
        started = time.perf_counter()
        self.process = await asyncio.create_subprocess_exec(
            *(["nice", "-n", str(self.niceness)] if self.niceness else []),
            sys.executable,
            "-m",
            "bench.races.spectators",
            f"--port={self.port}",
            f"--race={self.race_id}",
            f"--count={self.count}",
            f"--out={self.out}",
            stdout=asyncio.subprocess.PIPE,
        )
        assert self.process.stdout is not None
        while True:  # its progress lines, then `ready`
            line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
            if not line:
                raise SystemExit("the spectators process ended before it was ready")
            if line.strip() == b"ready":
                break
            say(line.decode().rstrip())
        self.connect_s = time.perf_counter() - started

    async def finish(self, timeout: float = 60.0) -> list[Watched]:
        assert self.process is not None
        code = await asyncio.wait_for(self.process.wait(), timeout)
        if code != 0:
            raise SystemExit(f"the spectators process exited with {code}")
        return [
            Watched([(float(t), str(kind), int(seq)) for t, kind, seq in frames])
            for frames in json.loads(self.out.read_text())
        ]


async def _watch(port: int, race_id: str, count: int, out: Path, timeout: float) -> None:
    sockets: list[RawSocket]
    sockets, _ = await open_watchers(port, [f"/ws/races/{race_id}"] * count, every=10**9)
    print("ready", flush=True)
    deadline = time.monotonic() + timeout
    read = [0] * len(sockets)  # frames of each socket already looked at
    ended = [False] * len(sockets)  # its `ended` came, or it closed

    while not all(ended) and time.monotonic() < deadline:
        for i, sock in enumerate(sockets):
            if not ended[i]:
                fresh, read[i] = sock.frames[read[i] :], len(sock.frames)
                ended[i] = sock.closed or any(kind == "ended" for _, kind, _ in fresh)
        await asyncio.sleep(0.05)
    for sock in sockets:
        sock.close()
    out.write_text(json.dumps([sock.frames for sock in sockets]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--race", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds at most (600)")
    args = parser.parse_args()
    asyncio.run(_watch(args.port, args.race, args.count, args.out, args.timeout))


if __name__ == "__main__":
    main()
