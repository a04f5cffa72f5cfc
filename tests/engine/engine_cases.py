"""Cases that tie the page's copy of the rules (frontend/static/frontend/js/engine.js, used by
the replay viewer and How to play) to the server's engine (games/engine.py).

Each case is a board whose layout is known (as a finished game's is), a sequence of moves a
random player makes on it, and what games/engine.py answered to each: the changes, the
board a viewer sees, and the state. `tests/engine/test_engine_js_agrees.py` replays them
through engine.js and checks the committed file still matches the Python engine, so a change
to either engine that breaks their agreement fails CI.

Regenerate after a deliberate rules change (then read the diff):

    PYTHONPATH=. .venv/bin/python -m tests.engine.engine_cases
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from games.engine import Board, EngineError

CASES_FILE = Path(__file__).parent / "cases" / "engine_cases.json"
SIZES = [(9, 9, 10), (16, 10, 25), (8, 8, 20), (5, 4, 3), (30, 16, 60), (12, 3, 9), (4, 4, 6)]
CASES_PER_SIZE = 6


def _move(rng: random.Random, board: Board) -> dict[str, Any]:
    """What a random (not always sensible) player does next: mostly reveals and flags of
    closed cells, chords on numbers, and now and then a move the engine refuses."""
    view, hidden = board.render(), board.to_ascii()
    cells = [(x, y, view[y][x]) for y in range(board.height) for x in range(board.width)]
    closed = [(x, y) for x, y, v in cells if v == "#"]
    safe = [(x, y) for x, y in closed if hidden[y][x] == "."]
    mined = [(x, y) for x, y in closed if hidden[y][x] == "*"]
    flags = [(x, y) for x, y, v in cells if v == "F"]
    numbers = [(x, y) for x, y, v in cells if v in "12345678"]
    roll = rng.random()
    if roll < 0.45 and closed:
        # Mostly a good guess (so games last and some are won), now and then a mine.
        x, y = rng.choice(safe if safe and rng.random() < 0.9 else closed)
        return {"action": "reveal", "x": x, "y": y}
    if roll < 0.65 and closed:
        x, y = rng.choice(mined if mined and rng.random() < 0.8 else closed)
        return {"action": "flag", "x": x, "y": y, "flagged": rng.choice([None, True])}
    if roll < 0.72 and flags:
        x, y = rng.choice(flags)
        return {"action": "flag", "x": x, "y": y, "flagged": rng.choice([None, False, True])}
    if roll < 0.92 and numbers:
        x, y = rng.choice(numbers)
        return {"action": "chord", "x": x, "y": y}
    x, y = rng.randrange(board.width), rng.randrange(board.height)
    return {"action": rng.choice(["reveal", "flag", "chord"]), "x": x, "y": y, "flagged": None}


def _apply(board: Board, move: dict[str, Any]) -> dict[str, Any]:
    try:
        if move["action"] == "reveal":
            outcome = board.reveal(move["x"], move["y"])
        elif move["action"] == "flag":
            outcome = board.flag(move["x"], move["y"], move.get("flagged"))
        else:
            outcome = board.chord(move["x"], move["y"])
    except EngineError as exc:
        return {"refused": exc.code, "state": board.status, "view": board.render()}
    return {
        "changes": [[c.x, c.y, c.v] for c in outcome.changes],
        "state": board.status,
        "view": board.render(),
    }


def make_cases(seed: int = 2026) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for width, height, mines in SIZES:
        for _ in range(CASES_PER_SIZE):
            board = Board.new(width, height, mines)
            fx, fy = rng.randrange(width), rng.randrange(height)
            first = board.reveal(fx, fy, random.Random(rng.random()))
            layout = [
                [x, y]
                for y, row in enumerate(board.to_ascii())
                for x, ch in enumerate(row)
                if ch in "*MX"
            ]
            steps = [
                {
                    "move": {"action": "reveal", "x": fx, "y": fy},
                    "changes": [[c.x, c.y, c.v] for c in first.changes],
                    "state": board.status,
                    "view": board.render(),
                }
            ]
            while not board.ended and len(steps) < 150:
                move = _move(rng, board)
                steps.append({"move": move, **_apply(board, move)})
            cases.append({"width": width, "height": height, "mines": layout, "steps": steps})
    return cases


def main() -> None:
    cases = make_cases()
    CASES_FILE.write_text(json.dumps(cases, separators=(",", ":")) + "\n")
    steps = sum(len(c["steps"]) for c in cases)
    print(f"wrote {len(cases)} cases, {steps} moves, to {CASES_FILE}")


if __name__ == "__main__":
    main()
