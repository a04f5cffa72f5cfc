"""Where the suite's CPU goes, test by test: a pytest plugin and its summary.

Loaded with `-p bench.suite.cpu_per_test` and SUITE_CPU_DIR set, each pytest process (each
xdist worker) appends a line per test to SUITE_CPU_DIR/<worker>-<pid>.tsv: the test's id, the
CPU seconds of the process itself (the test, Playwright's client, the browser tests' site
thread), the test's wall seconds (set-up and teardown included), and the CPU seconds of the
processes below it (Playwright's driver and its Chromium; servers a test started and waited
for). Then

    .venv/bin/python -m bench.suite.cpu_per_test SUITE_CPU_DIR [--top 30]

prints the sums by folder of tests/ and the tests that cost the most. For example:

    SUITE_CPU_DIR=/tmp/cpu DATABASE_URL=... REDIS_URL=... \\
        .venv/bin/python -m pytest -p bench.suite.cpu_per_test -m "browser and not stack" \\
        -n 4 --dist loadgroup
"""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from bench import cli
from bench.harness.report import show, table
from bench.harness.timing import descendants_cpu

_out: IO[str] | None = None


def _below() -> float:
    """CPU seconds of the processes below this one: the live ones (with what they reaped) and
    the ones this process has reaped (a server a test started and stopped)."""
    reaped = os.times()
    return descendants_cpu(os.getpid()) + reaped.children_user + reaped.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Iterator[None]:
    global _out
    folder = os.environ.get("SUITE_CPU_DIR")
    if not folder:
        yield
        return
    if _out is None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _out = open(Path(folder) / f"{worker}-{os.getpid()}.tsv", "a")  # noqa: SIM115
    own, wall, below = time.process_time(), time.monotonic(), _below()
    yield
    own, wall, below = time.process_time() - own, time.monotonic() - wall, _below() - below
    _out.write(f"{item.nodeid}\t{own:.3f}\t{wall:.3f}\t{below:.3f}\n")
    _out.flush()


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    rows = [
        line.split("\t")
        for path in sorted(args.folder.glob("*.tsv"))
        for line in path.read_text().splitlines()
        if line.count("\t") == 3
    ]
    own: defaultdict[str, float] = defaultdict(float)
    below: defaultdict[str, float] = defaultdict(float)
    wall: defaultdict[str, float] = defaultdict(float)
    count: Counter[str] = Counter()
    for node, o, w, b in rows:
        parts = node.split("/")
        folder = parts[1] if len(parts) > 2 and parts[0] == "tests" else parts[0]
        own[folder] += float(o)
        below[folder] += float(b)
        wall[folder] += float(w)
        count[folder] += 1
    order = sorted(own, key=lambda f: own[f] + below[f], reverse=True)
    show(
        table(
            ["tests/", "tests", "own CPU s", "CPU below s", "wall s (summed)"],
            [[f, count[f], f"{own[f]:.1f}", f"{below[f]:.1f}", f"{wall[f]:.1f}"] for f in order],
        )
    )
    show([f"all: {sum(own.values()):.1f} s own CPU, {sum(below.values()):.1f} s below"])
    costly = sorted(rows, key=lambda r: float(r[1]) + float(r[3]), reverse=True)[: args.top]
    show(
        table(
            ["own + below s", "own s", "below s", "test"],
            [[f"{float(o) + float(b):.2f}", o, b, node[:110]] for node, o, _, b in costly],
        )
    )


if __name__ == "__main__":
    main()
