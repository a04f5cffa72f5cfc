"""Timers and the figures of a run, with the rules every benchmark follows:

* wall time on the monotonic clock (`time.perf_counter`); CPU of this process or thread with
  `time.process_time` / `time.thread_time`, which the load of a shared machine does not
  inflate; CPU of other processes (servers, PostgreSQL) from /proc (`proc_cpu`, `CpuMeter`);
* warm up before timing (caches, pools, prepared plans): `interleaved`'s `warmup`;
* interleave: every case once a round, the rounds repeated, so that noise on the shared machine
  falls on all cases alike; compare two cases by the ratio of their medians, and show the ratio
  of each round (`ratios`);
* report the median (p50), a high percentile by nearest rank (p99) and the maximum
  (`figures`).
"""

from __future__ import annotations

import math
import os
import resource
import statistics
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .report import say

# --- figures --------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The `q`th percentile (0-100) by nearest rank: the smallest value with at least q % of
    the values at or below it; NaN when there is none."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = math.ceil(q / 100 * len(ordered) - 1e-9)
    return ordered[min(len(ordered), max(1, rank)) - 1]


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else math.nan


def figures(values_ms: Sequence[float], quantiles: Sequence[int] = (50, 99)) -> dict[str, Any]:
    """Latencies (ms) as every results file gives them: how many, the `quantiles` (p50 is the
    median) and the maximum, to 0.01 ms."""
    out: dict[str, Any] = {"n": len(values_ms)}
    for q in quantiles:
        value = median(values_ms) if q == 50 else percentile(values_ms, q)
        out[f"p{q}_ms"] = round(value, 2)
    out["max_ms"] = round(max(values_ms), 2) if values_ms else math.nan
    return out


def ratios(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """a / b round by round, of two cases measured in interleaved rounds."""
    return [x / y for x, y in zip(a, b, strict=True)]


# --- interleaved rounds ---------------------------------------------------------------------

# A case: a call timed as it is, or (prepare, run): `prepare()` untimed, then `run(prepared)`.
Case = Callable[[], object] | tuple[Callable[[], Any], Callable[[Any], object]]
K = TypeVar("K", bound=Hashable)
WALL: Mapping[str, Callable[[], float]] = {"wall": time.perf_counter}
CPU_AND_WALL: Mapping[str, Callable[[], float]] = {
    "cpu": time.process_time,
    "wall": time.perf_counter,
}


def interleaved(
    cases: Mapping[K, Case],
    rounds: int,
    *,
    calls: int = 1,
    warmup: int = 1,
    clocks: Mapping[str, Callable[[], float]] = WALL,
    on_round: Callable[[int, dict[str, dict[K, list[float]]]], None] | None = None,
) -> dict[str, dict[K, list[float]]]:
    """Each case `warmup` times untimed, then `rounds` rounds of `calls` calls of every case in
    turn. By clock, then by case: one value a round, the clock's seconds a call (a batch of
    calls is timed whole; with a `prepare`, each call alone). `on_round(done, so_far)` after
    each round."""

    def run(case: Case) -> dict[str, float]:
        spent = dict.fromkeys(clocks, 0.0)
        if callable(case):
            before = {name: clock() for name, clock in clocks.items()}
            for _ in range(calls):
                case()
            for name, clock in clocks.items():
                spent[name] = clock() - before[name]
            return spent
        prepare, call = case
        for _ in range(calls):
            state = prepare()
            before = {name: clock() for name, clock in clocks.items()}
            call(state)
            for name, clock in clocks.items():
                spent[name] += clock() - before[name]
        return spent

    for _ in range(warmup):
        for case in cases.values():
            if callable(case):
                case()
            else:
                case[1](case[0]())
    out: dict[str, dict[K, list[float]]] = {name: {c: [] for c in cases} for name in clocks}
    for done in range(1, rounds + 1):
        for label, case in cases.items():
            for name, seconds in run(case).items():
                out[name][label].append(seconds / calls)
        if on_round is not None:
            on_round(done, out)
    return out


# --- CPU of other processes, from /proc -------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (field 3, the state, first)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def proc_cpu(pid: int) -> float:
    """utime + stime of a process, in seconds (OSError when it is gone)."""
    rest = _stat(pid)
    return (int(rest[11]) + int(rest[12])) / TICK


def _processes() -> Iterator[tuple[int, list[str]]]:
    """Every process now running: its pid and its /proc stat fields (`_stat`)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            yield int(entry.name), _stat(entry.name)
        except OSError:  # gone meanwhile
            continue


def tree_cpu(root: int) -> float:
    """utime + stime of a process and its direct children (a gunicorn master and its
    workers), in seconds."""
    total = 0
    for pid, rest in _processes():
        if pid == root or int(rest[1]) == root:
            total += int(rest[11]) + int(rest[12])
    return total / TICK


def descendants_cpu(root: int) -> float:
    """utime + stime of every live process below `root` at any depth (Playwright's driver, its
    Chromium and the renderers under that), with what each has reaped of its own children
    (cutime + cstime: a renderer that exited counts in the process that waited for it), in
    seconds. `root` itself is not counted."""
    parents: dict[int, list[int]] = {}
    spent: dict[int, int] = {}
    for pid, rest in _processes():
        parents.setdefault(int(rest[1]), []).append(pid)
        spent[pid] = sum(int(v) for v in rest[11:15])
    total, todo = 0, list(parents.get(root, []))
    while todo:
        pid = todo.pop()
        total += spent.get(pid, 0)
        todo.extend(parents.get(pid, []))
    return total / TICK


def machine_busy() -> float:
    """Busy CPU seconds of the whole machine (all but idle and iowait) since boot."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


def own_cpu() -> float:
    """This process's CPU seconds, every thread."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Spent:
    """CPU a server (its process tree) and the whole machine spent over `elapsed_s`."""

    server_s: float = 0.0
    machine_s: float = 0.0
    elapsed_s: float = 0.0

    @property
    def busy_cores(self) -> float:
        return self.machine_s / self.elapsed_s if self.elapsed_s else math.nan

    def per_request_us(self, requests: int) -> float:
        return 1e6 * self.server_s / max(requests, 1)


@contextmanager
def cpu_of(root: int) -> Iterator[Spent]:
    """What the process tree of `root` and the machine spend in the block (filled at its end)."""
    spent = Spent()
    s0, m0, t0 = tree_cpu(root), machine_busy(), time.monotonic()
    try:
        yield spent
    finally:
        spent.server_s = tree_cpu(root) - s0
        spent.machine_s = machine_busy() - m0
        spent.elapsed_s = time.monotonic() - t0


class CpuMeter:
    """CPU seconds by label: process groups (label -> group id), PostgreSQL (`pg`: the backends
    of `database`; `pg_all`: every `postgres:` process), redis-server (`redis`), this process
    (`generator`) and the whole machine. Sample every second or so: a process that exits keeps
    the ticks of its last sample."""

    def __init__(self, groups: Mapping[str, int], database: str) -> None:
        self.groups = dict(groups)
        self.database = f" {database} "
        self.first: dict[int, tuple[tuple[str, ...], int]] = {}
        self.last: dict[int, tuple[tuple[str, ...], int]] = {}
        self.busy = 0.0
        self.own = 0.0

    def _read(self) -> dict[int, tuple[tuple[str, ...], int]]:
        out = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    stat = f.read()
                comm = stat[stat.index("(") + 1 : stat.rindex(")")]
                rest = stat[stat.rindex(")") + 2 :].split()
                labels = [label for label, group in self.groups.items() if int(rest[2]) == group]
                if comm == "redis-server":
                    labels.append("redis")
                elif comm == "postgres":
                    with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                        cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
                    if cmdline.startswith("postgres:"):
                        labels.append("pg_all")
                        if self.database in cmdline:
                            labels.append("pg")
            except (OSError, ValueError, IndexError):
                continue
            if labels:
                out[int(entry.name)] = (tuple(labels), int(rest[11]) + int(rest[12]))
        return out

    def start(self) -> None:
        self.first = self._read()
        self.last = dict(self.first)
        self.busy = machine_busy()
        self.own = own_cpu()

    def sample(self) -> None:
        self.last.update(self._read())

    def stop(self) -> dict[str, float]:
        """CPU seconds by label since start()."""
        self.sample()
        ticks: Counter[str] = Counter()
        for pid, (labels, now) in self.last.items():
            before = self.first.get(pid)
            base = before[1] if before is not None and before[0] == labels else 0
            for label in labels:
                ticks[label] += now - base
        out = {label: ticks[label] / TICK for label in (*self.groups, "pg", "pg_all", "redis")}
        out["generator"] = own_cpu() - self.own
        out["machine"] = machine_busy() - self.busy
        return out


# --- the machine ------------------------------------------------------------------------------


def wait_for_quiet(limit: float, max_wait: float) -> float:
    """Until the 1-minute load average is below `limit` (others run tests on this machine);
    after `max_wait` seconds, measure anyway (the line says so). The load average it saw."""
    deadline = time.monotonic() + max_wait
    while True:
        load = os.getloadavg()[0]
        if load < limit:
            say(f"  load average {load:.2f} < {limit}: go")
            return load
        if time.monotonic() >= deadline:
            say(f"  load average still {load:.2f} after {max_wait:.0f} s: measuring anyway")
            return load
        left = deadline - time.monotonic()
        say(f"  load average {load:.2f} >= {limit}, waiting ({left:.0f} s left)")
        time.sleep(min(15.0, max(0.1, left)))
