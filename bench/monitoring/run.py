"""The dashboard's screenshot from real traffic (docs/DEPLOYMENT.md, "Metrics and logs").

    .venv/bin/python -m bench.monitoring.run                # 20 s per transport, 16 players
    .venv/bin/python -m bench.monitoring.run --seconds 10 --players 8

1. Debian's `prometheus` (apt-get install prometheus) on a free port of 127.0.0.1, scraping
   every 2 s (a scrape waits for a free gunicorn worker like any request) the servers bench/load starts, found through the targets.json that
   `bench.load.run --metrics-dir` writes (file_sd: gunicorn as job `web`, uvicorn as `live`);
2. `python -m bench.load.run --metrics-dir ...`: solver bots over HTTP, then over the socket;
3. the committed dashboard drawn from that Prometheus over the run (bench/monitoring/
   dashboard_png.py) into docs/screenshots/monitoring-dashboard.png, and a few totals
   read back from Prometheus printed beside bench/load's own figures.

Needs PostgreSQL and Redis as bench/load does. Prometheus's data stays in a temporary
directory, removed at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bench import cli
from bench.harness.report import say
from bench.harness.servers import ROOT, NotReady, Server
from deploy.processes import free_port

from .dashboard_png import render

PNG = ROOT / "docs" / "screenshots" / "monitoring-dashboard.png"


def instant(prometheus: str, expr: str, at: float) -> float:
    params = urllib.parse.urlencode({"query": expr, "time": at})
    with urllib.request.urlopen(f"{prometheus}/api/v1/query?{params}", timeout=10) as r:
        result = json.load(r)["data"]["result"]
    return float(result[0]["value"][1]) if result else 0.0


def main() -> int:
    parser = cli.parser(__doc__)
    parser.add_argument("--seconds", type=float, default=20, help="per transport (20)")
    parser.add_argument("--players", type=int, default=16, help="bots (16)")
    parser.add_argument("--png", type=Path, default=PNG)
    args = parser.parse_args()
    binary = shutil.which("prometheus")
    if binary is None:
        say("bench/monitoring: skipped, no `prometheus` binary (apt-get install prometheus).")
        return 0
    work = Path(tempfile.mkdtemp(prefix="demineur-monitoring-"))
    metrics_dir = work / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "targets.json").write_text("[]")
    config = work / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\n"
        "scrape_configs:\n  - job_name: bench\n    metrics_path: /metrics\n"
        f"    file_sd_configs:\n      - files: ['{metrics_dir / 'targets.json'}']\n"
        "        refresh_interval: 1s\n"
    )
    port = free_port()
    prometheus = Server(
        "prometheus",
        [binary, f"--config.file={config}", f"--storage.tsdb.path={work / 'data'}",
         f"--web.listen-address=127.0.0.1:{port}"],
        port=port, env=dict(os.environ), logs=work, ready_path="/-/ready",
    )  # fmt: skip
    prometheus_url = prometheus.url
    prometheus.start()
    try:
        try:
            prometheus.wait_ready(20)
        except NotReady as exc:
            say(f"bench/monitoring: Prometheus did not start ({exc})")
            return 1
        say(f"bench/monitoring: Prometheus on {prometheus_url}, scraping every 2 s")
        start = time.time()
        bench = subprocess.run(
            [sys.executable, "-m", "bench.load.run", "--seconds", str(args.seconds),
             "--players", str(args.players), "--transport", "both",
             "--metrics-dir", str(metrics_dir)],
            cwd=ROOT, check=False,
        )  # fmt: skip
        end = time.time()
        if bench.returncode != 0:
            say(f"bench/monitoring: bench/load failed ({bench.returncode})")
            return bench.returncode
        time.sleep(2)
        moves = instant(prometheus_url, "sum(max_over_time(demineur_moves_total[10m]))", end)
        peak = instant(
            prometheus_url, "max_over_time(sum(rate(demineur_moves_total[10s]))[10m:2s])", end
        )
        sockets = instant(prometheus_url, "max_over_time(sum(demineur_sockets_open)[10m:2s])", end)
        p99 = instant(
            prometheus_url,
            "histogram_quantile(0.99, sum by (le) (increase("
            'demineur_http_request_duration_seconds_bucket{route="api-reveal"}[10m])))',
            end,
        )
        say(
            f"bench/monitoring: Prometheus saw {moves:.0f} moves, at most {peak:.0f} moves/s "
            f"(10 s rate), at most {sockets:.0f} sockets open, reveal p99 within its bucket "
            f"<= {p99 * 1000:.0f} ms"
        )
        drawn = render(
            prometheus_url,
            start,
            end,
            args.png,
            rate="10s",
            step=2.0,
            note=f"bench/load: {args.players} bots, {args.seconds:.0f} s over HTTP then "
            f"{args.seconds:.0f} s over the socket (python -m bench.monitoring.run)",
        )
        say(f"bench/monitoring: {args.png.relative_to(ROOT)}: {json.dumps(drawn)}")
        return 0
    finally:
        prometheus.stop(timeout=15)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
