"""Lighthouse on the site as served in production: `make lighthouse`.

    make serve-prod                      # in another terminal (PORT 8080)
    make lighthouse                      # LIGHTHOUSE_URL=http://127.0.0.1:8080 by default

Lighthouse (npm, pinned in package.json) drives Debian's Chromium (CHROME_PATH) on four pages
-- the home page, a game in play, the leaderboards and a player's profile -- as a phone (its
default: a mid-range phone on a slow 4G link, simulated) and as a desktop (`--preset=desktop`),
and prints a Markdown table of the four categories' scores with the page's CLS and LCP, the
table docs/FRONTEND.md ("Lighthouse") keeps. The player and the game are made through the
public API first (a new player each run). Run it on a quiet machine: Lighthouse times the
page's scripts, so a busy CPU lowers the Performance score.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
FORMS = {"phone": [], "desktop": ["--preset=desktop"]}


def _call(base: str, method: str, path: str, body: dict[str, Any], token: str = "") -> Any:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method=method,
        headers={"Content-Type": "application/json"}
        | ({"Authorization": f"Token {token}"} if token else {}),
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def pages(base: str) -> dict[str, str]:
    """The four pages, with a new player and a Beginner game of theirs in play."""
    name = "lh" + secrets.token_hex(4)
    password = secrets.token_urlsafe(16)
    _call(base, "POST", "/api/auth/register", {"username": name, "password": password})
    token = _call(base, "POST", "/api/auth/token", {"username": name, "password": password})
    game = _call(base, "POST", "/api/games", {"level": "beginner"}, token["token"])
    _call(base, "POST", f"/api/games/{game['id']}/reveal", {"x": 4, "y": 4}, token["token"])
    return {
        "home": "/",
        "game": f"/games/{game['id']}",
        "leaderboards": "/leaderboards",
        "profile": f"/players/{name}",
    }


def audit(url: str, form: str, out: Path, attempts: int = 3) -> dict[str, Any]:
    """One Lighthouse run: its JSON report. A run Lighthouse itself gives up on (a trace it
    could not record, NO_NAVSTART, seen on a busy machine) is run again, up to `attempts`."""
    argv = [
        str(LIGHTHOUSE),
        url,
        *FORMS[form],
        "--only-categories=" + ",".join(CATEGORIES),
        "--output=json",
        f"--output-path={out}",
        "--chrome-flags=--headless --no-sandbox --disable-gpu",
        "--quiet",
    ]
    for attempt in range(attempts):
        if subprocess.run(argv).returncode == 0:
            break
        if attempt == attempts - 1:
            raise SystemExit(f"Lighthouse failed {attempts} times on {url} ({form})")
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def row(page: str, form: str, report: dict[str, Any]) -> str:
    scores = [round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES]
    audits = report["audits"]
    cls = audits["cumulative-layout-shift"]["numericValue"]
    lcp = audits["largest-contentful-paint"]["numericValue"] / 1000
    cells = [page, form, *map(str, scores), f"{cls:.3f}", f"{lcp:.1f} s"]
    return "| " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("LIGHTHOUSE_URL", "http://127.0.0.1:8080"))
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        sys.exit("Lighthouse is not installed: npm ci")
    if not os.environ.get("CHROME_PATH"):
        chromium = shutil.which("chromium")
        if not chromium:
            sys.exit("Debian's Chromium is needed: apt-get install -y chromium")
        os.environ["CHROME_PATH"] = chromium
    base = args.url.rstrip("/")
    rows = [
        "| page | as | Performance | Accessibility | Best Practices | SEO | CLS | LCP |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for page, path in pages(base).items():
            for form in FORMS:
                report = audit(base + path, form, Path(tmp) / f"{page}-{form}.json")
                rows.append(row(page, form, report))
                print(rows[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
