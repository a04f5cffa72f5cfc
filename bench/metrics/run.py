"""What the metrics cost a request (docs/DEPLOYMENT.md, "Metrics and logs").

    .venv/bin/python -m bench.metrics.run               # 15 rounds of 20,000 calls per variant

The middleware pair the settings put in front of every request (demineur_site.logs'
RequestIdMiddleware and demineur_site.metrics' RequestMetricsMiddleware) around a view that
does nothing but resolve the move URL, against that view alone, interleaved round by round in
one process; once with prometheus-client's in-process values (`make run`, the tests) and once
in its multiprocess mode (PROMETHEUS_MULTIPROC_DIR, every production server), each in a fresh
interpreter because the mode is chosen at import. Also the time of one scrape (`exposition()`)
in the multiprocess mode, this process's files only, without the database read of the races.
Medians of the rounds, microseconds per request.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROUNDS, CALLS = 15, 20_000


def measure() -> dict[str, float]:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demineur_site.settings")
    django.setup()
    from django.http import HttpRequest, HttpResponse
    from django.test import RequestFactory
    from django.urls import resolve

    from demineur_site import logs, metrics

    path = "/api/games/00000000-0000-4000-8000-000000000000/flag"
    match = resolve(path)
    request = RequestFactory().post(path)

    def view(req: HttpRequest) -> HttpResponse:
        req.resolver_match = match
        return HttpResponse(status=200)

    chains = {
        "view alone": view,
        "with the metrics middleware": metrics.RequestMetricsMiddleware(view),
        "with request id + metrics": logs.RequestIdMiddleware(
            metrics.RequestMetricsMiddleware(view)
        ),
    }
    rounds: dict[str, list[float]] = {name: [] for name in chains}
    for _ in range(ROUNDS):
        for name, chain in chains.items():
            started = time.perf_counter()
            for _ in range(CALLS):
                chain(request)
            rounds[name].append((time.perf_counter() - started) / CALLS * 1e6)
    result = {name: statistics.median(times) for name, times in rounds.items()}
    metrics.register_in_progress("races", dict)  # no database here: an empty reading
    scrapes = []
    for _ in range(200):
        started = time.perf_counter()
        metrics.exposition()
        scrapes.append((time.perf_counter() - started) * 1e3)
    result["one scrape (ms)"] = statistics.median(scrapes)
    return result


def run_mode(multiprocess: bool) -> dict[str, float]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "PROMETHEUS_MULTIPROC_DIR"}
    }
    env.update({"DEBUG": "1", "PYTHONPATH": str(ROOT), "LOG_LEVEL": "ERROR"})
    with tempfile.TemporaryDirectory() as counts:
        if multiprocess:
            env["PROMETHEUS_MULTIPROC_DIR"] = counts
        out = subprocess.run(
            [sys.executable, "-m", "bench.metrics.run", "--child"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    if "--child" in sys.argv:
        print(json.dumps(measure()))
        return
    print(f"bench/metrics: {ROUNDS} rounds x {CALLS:,} calls per variant, medians (µs/request)")
    for multiprocess in (False, True):
        mode = "multiprocess (PROMETHEUS_MULTIPROC_DIR)" if multiprocess else "in-process"
        print(f"  {mode} ...", flush=True)
        r = run_mode(multiprocess)
        alone = r["view alone"]
        for name, value in r.items():
            if name.endswith("(ms)"):
                print(f"    {name}: {value:.2f} ms")
            else:
                print(f"    {name}: {value:.2f} µs (+{value - alone:.2f})")


if __name__ == "__main__":
    main()
