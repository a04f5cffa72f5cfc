"""`make run` (uvicorn, SQLite, DEBUG=1) under concurrency.

One player sends many moves on one game and many game creations at once, from threads, to a
real uvicorn process on a temporary SQLite file. No answer may be a 500 ("database is locked"
came back as Django's HTML debug page): every move is applied with its own seq and the seqs
of the game have no gap."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.support.personas import PASSWORD

from .http_servers import Server, migrated_sqlite

FLAGS = 24
CREATIONS = 12


def _call(url: str, method: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            status, raw = int(answer.status), answer.read()
    except urllib.error.HTTPError as error:
        status, raw = int(error.code), error.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")[:300]


def test_concurrent_moves_and_creations_on_sqlite_never_answer_500(tmp_path: Path) -> None:
    template = migrated_sqlite()
    with Server("uvicorn", tmp_path / "run", template, DEBUG="1", DB_POOL="1") as server:
        base = server.url
        status, _ = _call(
            f"{base}/api/auth/register",
            "POST",
            {"username": "racer", "password": PASSWORD},
        )
        assert status == 201
        status, body = _call(
            f"{base}/api/auth/token",
            "POST",
            {"username": "racer", "password": PASSWORD},
        )
        assert status == 200
        token = body["token"]
        status, game = _call(f"{base}/api/games", "POST", {"level": "marathon"}, token)
        assert status == 201
        status, first = _call(
            f"{base}/api/games/{game['id']}/reveal", "POST", {"x": 40, "y": 20}, token
        )
        assert status == 200, first
        closed = [
            (x, y)
            for y, row in enumerate(first["game"]["board"])
            for x, ch in enumerate(row)
            if ch == "#"
        ][:FLAGS]
        assert len(closed) == FLAGS

        barrier = threading.Barrier(FLAGS + CREATIONS)

        def flag(cell: tuple[int, int]) -> tuple[str, int, Any]:
            barrier.wait()
            x, y = cell
            return (
                "flag",
                *_call(
                    f"{base}/api/games/{game['id']}/flag",
                    "POST",
                    {"x": x, "y": y, "flagged": True},
                    token,
                ),
            )

        def create(i: int) -> tuple[str, int, Any]:
            barrier.wait()
            level = ("beginner", "intermediate", "hard")[i % 3]
            return ("create", *_call(f"{base}/api/games", "POST", {"level": level}, token))

        with ThreadPoolExecutor(max_workers=FLAGS + CREATIONS) as pool:
            futures = [pool.submit(flag, c) for c in closed] + [
                pool.submit(create, i) for i in range(CREATIONS)
            ]
            results = [f.result() for f in futures]

        status, moves = _call(
            f"{base}/api/games/{game['id']}/moves?page_size=200", "GET", None, token
        )
        server.stop()
        output = server.output()

    errors = [(kind, status, body) for kind, status, body in results if status >= 500]
    assert errors == [], (errors, output[-3000:])
    assert [status for kind, status, _ in results if kind == "flag"] == [200] * FLAGS
    assert [status for kind, status, _ in results if kind == "create"] == [201] * CREATIONS
    flag_seqs = sorted(body["seq"] for kind, _, body in results if kind == "flag")
    assert flag_seqs == list(range(2, FLAGS + 2))  # the first tap was seq 1
    assert status == 200
    assert [m["seq"] for m in moves["results"]] == list(range(1, FLAGS + 2))
    assert "database is locked" not in output
