"""The committed Grafana dashboard drawn without Grafana (docs/DEPLOYMENT.md, "Metrics and logs").

Grafana is not among Debian's packages and its own downloads cannot be reached from the
machines this project is built on, so the screenshot in docs/screenshots/ is drawn here: every
panel of deploy/monitoring/grafana/dashboards/demineur.json, in its place on the dashboard's
grid, each target's PromQL asked of a real Prometheus (`/api/v1/query_range`) and drawn with
matplotlib, its legend from the target's `legendFormat`. `$__rate_interval` becomes RATE.

    python -m bench.monitoring.dashboard_png --prometheus http://127.0.0.1:9090 \\
        --start 1796190000 --end 1796190120 --png docs/screenshots/monitoring-dashboard.png
"""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from bench import cli
from bench.harness.report import say
from bench.harness.servers import ROOT

DASHBOARD = ROOT / "deploy" / "monitoring" / "grafana" / "dashboards" / "demineur.json"
UNITS = {"reqps": "requests/s", "ops": "per second", "s": "seconds", "short": ""}


def query_range(prometheus: str, expr: str, start: float, end: float, step: float) -> list[Any]:
    params = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": step})
    with urllib.request.urlopen(f"{prometheus}/api/v1/query_range?{params}", timeout=30) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(f"Prometheus refused {expr!r}: {body}")
    return list(body["data"]["result"])


def legend(template: str, labels: dict[str, str]) -> str:
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), template)


def render(
    prometheus: str,
    start: float,
    end: float,
    png: Path,
    *,
    rate: str = "5s",
    step: float = 1.0,
    note: str = "",
) -> dict[str, int]:
    """Draws the dashboard; returns how many series each panel got."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dashboard = json.loads(DASHBOARD.read_text())
    panels = dashboard["panels"]
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in panels) // 8
    figure = plt.figure(figsize=(16, 3.6 * rows), facecolor="#181b1f")
    grid = figure.add_gridspec(rows, 2)
    series_per_panel: dict[str, int] = {}
    for panel in panels:
        pos = panel["gridPos"]
        axes = figure.add_subplot(grid[pos["y"] // 8, pos["x"] // 12])
        axes.set_facecolor("#111217")
        axes.set_title(panel["title"], color="#d8d9da", fontsize=11, loc="left")
        axes.tick_params(colors="#8e8e8e", labelsize=8)
        for side in axes.spines.values():
            side.set_color("#2c3235")
        axes.grid(color="#2c3235", linewidth=0.6)
        count = 0
        for target in panel["targets"]:
            expr = target["expr"].replace("$__rate_interval", rate)
            for result in query_range(prometheus, expr, start, end, step):
                points = [(float(t) - start, float(v)) for t, v in result["values"]]
                points = [(t, v) for t, v in points if v == v]  # NaN: no data at that step
                if not points:
                    continue
                xs, ys = zip(*points, strict=True)
                axes.plot(
                    xs, ys, linewidth=1.4, label=legend(target["legendFormat"], result["metric"])
                )
                count += 1
        series_per_panel[panel["title"]] = count
        unit = UNITS.get(panel["fieldConfig"]["defaults"].get("unit", ""), "")
        axes.set_ylabel(unit, color="#8e8e8e", fontsize=8)
        axes.set_xlabel("seconds into the run", color="#8e8e8e", fontsize=8)
        axes.set_ylim(bottom=0)
        axes.set_xlim(0, end - start)  # every panel on the same time axis, as in Grafana
        if count:
            axes.legend(fontsize=7, loc="upper left", facecolor="#181b1f", labelcolor="#d8d9da",
                        edgecolor="#2c3235", ncol=2)  # fmt: skip
        else:
            axes.text(0.5, 0.5, "no data", color="#8e8e8e", ha="center", transform=axes.transAxes)
    title = (
        f"{dashboard['title']}: {DASHBOARD.relative_to(ROOT)} drawn from Prometheus's answers"
        " (a stand-in for Grafana, which cannot be installed here)"
    )
    figure.suptitle(title + (f"\n{note}" if note else ""), color="#d8d9da", fontsize=13)
    figure.tight_layout(rect=(0, 0, 1, 0.96))
    png.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(png, dpi=80, facecolor=figure.get_facecolor())
    plt.close(figure)
    return series_per_panel


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--prometheus", default="http://127.0.0.1:9090")
    parser.add_argument("--start", type=float, required=True, help="Unix time")
    parser.add_argument("--end", type=float, required=True, help="Unix time")
    parser.add_argument("--png", type=Path, required=True)
    parser.add_argument("--rate", default="5s", help="what $__rate_interval becomes (5s)")
    args = parser.parse_args()
    say(json.dumps(render(args.prometheus, args.start, args.end, args.png, rate=args.rate)))


if __name__ == "__main__":
    main()
