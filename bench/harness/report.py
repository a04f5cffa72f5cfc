"""What a benchmark shows and keeps: progress lines while it runs, Markdown tables, and its
results file.

Every results file has one format: a JSON object whose "bench" names the benchmark and whose
"run" says when it ran (UTC), the command, the machine, the load average before and after and
the seconds it took; the benchmark's own keys follow. Latency summaries in it are
`timing.figures` ({"n", "p50_ms", "p99_ms", "max_ms"}).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def say(text: str = "") -> None:
    """One line on stdout, at once (a long run is followed while it runs)."""
    print(text, flush=True)


def load_average() -> str:
    """The machine's 1, 5 and 15-minute load averages: other work on a shared machine."""
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())


def machine() -> str:
    """Cores, CPU model, system and Python, as a results file records them."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores ({model}), {platform.system()} {platform.release()},"
        f" {platform.python_implementation()} {platform.python_version()}"
    )


class Progress:
    """A step of `total` items: `step()` after each says `label done/total` every `every` items
    and at the last one."""

    def __init__(self, total: int, label: str, *, every: int, indent: str = "  ") -> None:
        self.total, self.label, self.every, self.indent = total, label, max(1, every), indent
        self.done = 0
        self.started = time.monotonic()

    def step(self, note: str = "") -> None:
        self.reached(self.done + 1, note)

    def reached(self, done: int, note: str = "") -> None:
        """`done` items so far, said when it is a multiple of `every` or the last one."""
        self.done = done
        if done % self.every == 0 or done == self.total:
            tail = f" {note}" if note else ""
            say(f"{self.indent}{self.label} {done:,}/{self.total:,}{tail}")

    def on_round(self, done: int, _so_far: object) -> None:
        """interleaved()'s `on_round(done, so_far)`: the rounds done so far."""
        self.reached(done)

    def elapsed(self) -> float:
        return time.monotonic() - self.started


class Ticker:
    """For a timed loop: `due()` is true once every `seconds`."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.last = time.monotonic()

    def due(self) -> bool:
        now = time.monotonic()
        if now - self.last < self.seconds:
            return False
        self.last = now
        return True


def table(head: Sequence[str], rows: Iterable[Sequence[object]], align: str = "") -> list[str]:
    """A Markdown table's lines: `align` has a letter per column, `l` left or `r` right (by
    default the first column left, the others right)."""
    align = align or "l" + "r" * (len(head) - 1)
    out = ["| " + " | ".join(head) + " |"]
    out.append("| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |")
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return out


# The columns of a latency table: one row a measure, from its `timing.figures`.
LATENCY_HEAD = ["measure", "samples", "p50 ms", "**p99 ms**", "max ms"]


def latency_row(label: str, figures: Mapping[str, Any]) -> list[str]:
    """The row of LATENCY_HEAD for one measure: its samples, p50, p99 (in bold) and max."""
    f = figures
    return [
        label,
        f"{f['n']:,}",
        f"{f['p50_ms']:.1f}",
        f"**{f['p99_ms']:.1f}**",
        f"{f['max_ms']:.1f}",
    ]


def show(lines: Iterable[str]) -> None:
    for line in lines:
        say(line)


def command() -> str:
    """How this process was started, as `python -m MODULE ARGS`."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    name = spec.name if spec is not None else sys.argv[0]
    return " ".join(["python -m", name, *sys.argv[1:]])


@dataclass
class Run:
    """One run of a benchmark, from its creation: `write` records it beside the results."""

    bench: str
    command: str = field(default_factory=command)
    at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    load_before: str = field(default_factory=load_average)
    started: float = field(default_factory=time.monotonic)

    def info(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "command": self.command,
            "machine": machine(),
            "load_before": self.load_before,
            "load_after": load_average(),
            "seconds": round(time.monotonic() - self.started, 1),
        }

    def write(self, results: Mapping[str, Any], *paths: Path | None) -> dict[str, Any]:
        """The results file at each of `paths` (None: skipped); the first one is said."""
        payload = {"bench": self.bench, "run": self.info(), **results}
        written = [path for path in paths if path is not None]
        for path in written:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(payload, indent=1) + "\n")
        if written:
            say(f"results: {written[0]}")
        return payload


def save_plot(fig: Any, path: Path, title: str) -> None:
    """A matplotlib figure with its title, laid out and written to `path` (its folder made),
    then closed."""
    import matplotlib.pyplot as plt

    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
