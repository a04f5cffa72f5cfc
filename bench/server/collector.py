"""What a full garbage collection costs a server process, with its loaded application frozen
(demineur_site.collector) and without: in process, no server.

    .venv/bin/python -m bench.server.collector [--rounds 7]   # `make bench-collector`

It loads the application as a server process does (demineur_site.wsgi and demineur_site.asgi
imported, the URL patterns resolved, the REST schema's views imported), then times `--rounds`
full collections (`gc.collect()`, wall and the process's CPU) and counts the objects the
collector tracks; then freezes what is loaded as the entry points do
(`collector.freeze_loaded_application`) and does the same again. A full collection runs in
whichever thread allocates when the collector's thresholds are crossed, so its time is added
whole to whatever that thread serves (a socket's move on a live process's event loop).
"""

from __future__ import annotations

import gc
import importlib
import os
import tempfile
import time
from pathlib import Path

from bench import cli
from bench.harness.report import Run, say, show, table
from bench.harness.timing import median


def _load() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
    os.environ.setdefault("DEBUG", "1")  # the placeholder secret key, no server started
    os.environ.setdefault("SQLITE_PATH", str(Path(tempfile.mkdtemp()) / "db.sqlite3"))
    os.environ.setdefault("RACE_CLOCK", "off")
    from django.urls import get_resolver

    importlib.import_module("demineur_site.asgi")  # the socket stack and the lifespan
    importlib.import_module("demineur_site.wsgi")  # freezes on import: undone below

    get_resolver().url_patterns  # noqa: B018  (every door imported)
    gc.unfreeze()  # measured first as it was before freezing


def _collections(rounds: int) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for _ in range(rounds):
        w, c = time.perf_counter(), time.process_time()
        gc.collect()
        wall.append((time.perf_counter() - w) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
    return wall, cpu


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--rounds", type=int, default=7, help="full collections each way (7)")
    cli.results_option(parser, "server-collector")
    args = parser.parse_args()
    record = Run("server-collector")
    say("bench/server/collector: loading the application as a server process does")
    _load()
    from demineur_site import collector

    results: dict[str, dict[str, object]] = {}
    for label in ("loaded", "frozen"):
        if label == "frozen":
            frozen = collector.freeze_loaded_application()
            say(f"  frozen: {frozen:,} objects")
        tracked = len(gc.get_objects())
        wall, cpu = _collections(args.rounds)
        say(f"  {label}: {tracked:,} tracked objects, a full collection {median(wall):.2f} ms")
        results[label] = {
            "tracked_objects": tracked,
            "frozen_objects": gc.get_freeze_count(),
            "full_collection_ms": {"wall": wall, "cpu": cpu},
        }
    rows = []
    for label, found in results.items():
        times = found["full_collection_ms"]
        assert isinstance(times, dict)
        rows.append(
            [
                label,
                f"{found['tracked_objects']:,}",
                f"{found['frozen_objects']:,}",
                f"{median(times['wall']):.2f}",
                f"{max(times['wall']):.2f}",
                f"{median(times['cpu']):.2f}",
            ]
        )
    show(
        table(
            ["application", "tracked", "frozen", "full collection ms (median)", "max", "CPU ms"],
            rows,
            "lrrrrr",
        )
    )
    record.write(results, args.results)


if __name__ == "__main__":
    main()
