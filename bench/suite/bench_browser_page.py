"""What a browser test pays Chromium for each page it opens: the CPU of Playwright's driver and
Debian's Chromium (every process under this one) for a new context, a new page in it, a small
document in the page, and closing them, with the browser tests' own launch arguments
(tests/support/chromium.py) and with each variant below beside them. The cases run in
interleaved rounds, so the machine's load weighs on all alike; the medians are printed.

    .venv/bin/python -m bench.suite.bench_browser_page [--rounds 5] [--pages 10]

The variants are launch arguments that could make a page cheaper; docs/TESTING.md ("Where
the time goes", "A page's price in Chromium") keeps the figures and what was done with them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from bench import cli
from bench.harness.report import Progress, load_average, say, show, table
from bench.harness.timing import descendants_cpu, interleaved, median
from tests.support.chromium import CHROMIUM, CHROMIUM_ARGS

# Chromium runs the pages of a context in renderer processes of its own, and keeps a spare
# renderer started for the next page; Playwright's own list of disabled features is kept (a
# second --disable-features would replace it), with the spare renderer added.
_PLAYWRIGHTS_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,"
    "HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,"
    "ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,TcpPortRandomizationWin,"
    "OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch"
)
VARIANTS: dict[str, list[str]] = {
    "as the tests launch it": [],
    "no spare renderer": [
        f"--disable-features={_PLAYWRIGHTS_DISABLED},SpareRendererForSitePerProcess"
    ],
    "no GPU rasterization": ["--disable-gpu-rasterization"],
}
DOCUMENT = "<!doctype html><html lang=en><title>t</title><h1>A page</h1><p>Some text.</p>"


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pages", type=int, default=10, help="pages a case opens a round")
    args = parser.parse_args()
    if CHROMIUM is None:
        raise SystemExit("Debian's chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    me = os.getpid()
    say(f"load average before: {load_average()}")
    with sync_playwright() as pw:
        browsers = {
            name: pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + extra)
            for name, extra in VARIANTS.items()
        }

        def opening(browser: Any, step: str) -> Callable[[], None]:
            def run() -> None:
                for _ in range(args.pages):
                    context = browser.new_context(viewport={"width": 1280, "height": 860})
                    if step != "context":
                        page = context.new_page()
                        if step == "document":
                            page.set_content(DOCUMENT)
                    context.close()

            return run

        cases = {
            (name, step): opening(browser, step)
            for name, browser in browsers.items()
            for step in ("context", "page", "document")
        }
        progress = Progress(args.rounds, "rounds", every=1)
        clocks = {"cpu": lambda: descendants_cpu(me)}
        spent = interleaved(cases, args.rounds, clocks=clocks, on_round=progress.on_round)
        for browser in browsers.values():
            browser.close()
    per_page = {key: median(values) / args.pages for key, values in spent["cpu"].items()}
    rows = [
        [name, step, f"{per_page[name, step] * 1000:.0f}"]
        for name in VARIANTS
        for step in ("context", "page", "document")
    ]
    show(table(["launch", "a new context, then", "CPU ms (median)"], rows))
    base = per_page["as the tests launch it", "document"]
    for name in list(VARIANTS)[1:]:
        say(
            f"{name} / as the tests launch it (context, page, document): "
            f"{per_page[name, 'document'] / base:.2f}"
        )
    say(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
