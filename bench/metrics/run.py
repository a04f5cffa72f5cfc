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

import functools
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable

from bench import cli
from bench.harness.database import ROOT, setup_django
from bench.harness.report import say
from bench.harness.timing import interleaved, median

ROUNDS, CALLS = 15, 20_000


def measure() -> dict[str, float]:
    # make run's settings (DEBUG on), without a database: nothing here reads one.
    setup_django(
        {"DEBUG": "1", "LOG_LEVEL": "ERROR"}, drop=("DATABASE_URL", "REDIS_URL"), migrate=False
    )
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

    chains: dict[str, Callable[[HttpRequest], HttpResponse]] = {
        "view alone": view,
        "with the metrics middleware": metrics.RequestMetricsMiddleware(view),
        "with request id + metrics": logs.RequestIdMiddleware(
            metrics.RequestMetricsMiddleware(view)
        ),
    }
    cases = {name: functools.partial(chain, request) for name, chain in chains.items()}
    timed = interleaved(cases, ROUNDS, calls=CALLS, warmup=0)["wall"]
    result = {name: median(times) * 1e6 for name, times in timed.items()}
    metrics.register_in_progress("races", dict)  # no database here: an empty reading
    scrapes = interleaved({"scrape": metrics.exposition}, 200, warmup=0)["wall"]["scrape"]
    result["one scrape (ms)"] = median(scrapes) * 1e3
    return result


def run_mode(multiprocess: bool) -> dict[str, float]:
    """`measure` in a fresh interpreter: prometheus-client chooses its mode at import."""
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
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
    parser = cli.parser(__doc__)
    parser.add_argument("--child", action="store_true", help="one mode, in this process")
    if parser.parse_args().child:
        say(json.dumps(measure()))
        return
    say(f"bench/metrics: {ROUNDS} rounds x {CALLS:,} calls per variant, medians (µs/request)")
    for multiprocess in (False, True):
        mode = "multiprocess (PROMETHEUS_MULTIPROC_DIR)" if multiprocess else "in-process"
        say(f"  {mode} ...")
        r = run_mode(multiprocess)
        alone = r["view alone"]
        for name, value in r.items():
            if name.endswith("(ms)"):
                say(f"    {name}: {value:.2f} ms")
            else:
                say(f"    {name}: {value:.2f} µs (+{value - alone:.2f})")


if __name__ == "__main__":
    main()
