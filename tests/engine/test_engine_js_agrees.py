"""One set of rules on both sides: the page's copy (engine.js, for replays and How to play)
gives what games/engine.py gives on every committed case (tests/engine/engine_cases.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.engine.engine_cases import CASES_FILE, make_cases

ENGINE_JS = Path(__file__).resolve().parents[2] / "frontend/static/frontend/js/engine.js"

# Replays every case through LocalBoard and prints the first disagreement, or "ok N".
REPLAY_JS = """
import { readFileSync } from "node:fs";
const { LocalBoard } = await import(process.argv[1]);
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const key = (c) => `${c[0]},${c[1]},${c[2]}`;
let moves = 0;
for (const [n, c] of cases.entries()) {
  const board = new LocalBoard(c.width, c.height, new Set(c.mines.map(([x, y]) => y * c.width + x)));
  for (const [s, step] of c.steps.entries()) {
    const m = step.move;
    const before = board.rows().join("/");
    const got = m.action === "reveal" ? board.reveal(m.x, m.y)
      : m.action === "flag" ? board.flag(m.x, m.y, m.flagged)
      : board.chord(m.x, m.y);
    const where = `case ${n} step ${s} ${JSON.stringify(m)}`;
    const changes = got.map((g) => key([g.x, g.y, g.v])).sort();
    if (step.refused !== undefined) {
      if (changes.length || board.rows().join("/") !== before) {
        console.log(`${where}: the server refuses it (${step.refused}), the page changed the board`);
        process.exit(1);
      }
      continue;
    }
    const want = step.changes.map(key).sort();
    if (JSON.stringify(changes) !== JSON.stringify(want)) {
      console.log(`${where}: changes ${changes} != ${want}`);
      process.exit(1);
    }
    if (board.state !== step.state) {
      console.log(`${where}: state ${board.state} != ${step.state}`);
      process.exit(1);
    }
    const view = board.state === "playing" ? board.rows() : board.finalRows();
    if (view.join("/") !== step.view.join("/")) {
      console.log(`${where}: view ${view.join("/")} != ${step.view.join("/")}`);
      process.exit(1);
    }
    moves++;
  }
}
console.log(`ok ${moves}`);
"""


def test_the_committed_cases_are_what_the_server_engine_answers_today() -> None:
    # A rules change in games/engine.py fails here first; regenerate the cases on purpose
    # (python -m tests.engine.engine_cases) and engine.js is then checked against them.
    assert json.loads(CASES_FILE.read_text()) == json.loads(json.dumps(make_cases()))


def test_the_cases_cover_every_kind_of_move_and_end() -> None:
    cases = json.loads(CASES_FILE.read_text())
    steps = [s for c in cases for s in c["steps"]]
    assert {s["move"]["action"] for s in steps} == {"reveal", "flag", "chord"}
    assert {c["steps"][-1]["state"] for c in cases} == {"won", "lost"}
    assert any("refused" in s for s in steps)
    assert any(s["move"]["action"] == "chord" and len(s.get("changes", [])) > 1 for s in steps)
    assert any(s["move"]["action"] == "flag" and s["move"].get("flagged") is False for s in steps)


@pytest.mark.skipif(
    shutil.which("node") is None, reason="Node.js is not installed (apt-get install nodejs)"
)
def test_engine_js_replays_every_case_as_the_server_engine_did() -> None:
    result = subprocess.run(
        ["node", "--input-type=module", "-e", REPLAY_JS, ENGINE_JS.as_uri(), str(CASES_FILE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    moves = sum(
        len(c["steps"]) - sum("refused" in s for s in c["steps"])
        for c in json.loads(CASES_FILE.read_text())
    )
    assert result.stdout.strip() == f"ok {moves}"
