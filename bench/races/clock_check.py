"""A race against a running server (e.g. `make run`): four racers ready, then no request for
3.6 s; prints how late the server started the race after its countdown (the race clock, not a
request, must start it), then the four racers flag all 81 cells at once and it prints the
statuses they got and the race's seq (docs/RACES.md).

    .venv/bin/python -m bench.races.clock_check [PORT]      # http://127.0.0.1:PORT, 8000
"""

from __future__ import annotations

import concurrent.futures as cf
import time
from collections import Counter
from datetime import datetime
from typing import Any

from bench import cli
from bench.harness.clients import api_json
from bench.harness.report import say

PASSWORD = "correct horse battery"


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def main(port: int) -> None:
    def call(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        return api_json(port, method, path, body, token or "")

    tokens = []
    stamp = int(time.time()) % 100_000
    for i in range(4):
        name = f"clock{stamp}x{i}"
        call("POST", "/api/auth/register", {"username": name, "password": PASSWORD})
        tokens.append(
            call("POST", "/api/auth/token", {"username": name, "password": PASSWORD})[1]["token"]
        )
    _, race = call("POST", "/api/races", {"level": "beginner"}, tokens[0])
    for token in tokens[1:]:
        call("POST", f"/api/races/{race['id']}/join", None, token)
    for token in tokens:
        _, race = call("POST", f"/api/races/{race['id']}/ready", {}, token)
    say(f"all ready: {race['state']}, starts_at {race['starts_at']}; no request for 3.6 s")
    time.sleep(3.6)
    _, race = call("GET", f"/api/races/{race['id']}")
    late_ms = (_at(race["started_at"]) - _at(race["starts_at"])).total_seconds() * 1000
    say(f"state {race['state']}: started {late_ms:.1f} ms after starts_at")
    games = [r["game"] for r in race["racers"]]

    def flag_everything(i: int) -> list[int]:
        cells = [(x, y) for y in range(race["height"]) for x in range(race["width"])]
        return [
            call("POST", f"/api/games/{games[i]}/flag", {"x": x, "y": y}, tokens[i])[0]
            for x, y in cells
        ]

    with cf.ThreadPoolExecutor(len(tokens)) as pool:
        statuses = Counter(s for batch in pool.map(flag_everything, range(4)) for s in batch)
    say(f"move statuses: {dict(statuses)}")
    _, race = call("GET", f"/api/races/{race['id']}")
    say(f"race seq {race['seq']} flags {[r['flags'] for r in race['racers']]}")
    for token in tokens:
        call("POST", f"/api/races/{race['id']}/leave", None, token)
    time.sleep(0.5)
    left = call("GET", f"/api/races/{race['id']}")[1]
    say(f"after everyone left: {left['state']}")


if __name__ == "__main__":
    parser = cli.parser(__doc__)
    parser.add_argument("port", type=int, nargs="?", default=8000)
    main(parser.parse_args().port)
