"""How the browser tests launch Debian's Chromium: a module of its own, free of Django, so that
the suite's page bench (bench/suite/bench_browser_page.py) launches it the same way."""

from __future__ import annotations

import shutil

CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
