"""live.js, the one socket helper of the game page, the race page and the lobby
(docs/FRONTEND.md, How a game page works): numbered messages keep their order and a gap makes
one re-read, however many gaps follow before it is back; a closed socket is opened again after
1 s, 2 s ... 6 s, counted again once the socket says it is live. Run by Node on the module
itself, with a stand-in WebSocket and clock (the browser tests drive the real ones)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

LIVE_JS = Path(__file__).resolve().parents[2] / "frontend/static/frontend/js/live.js"

SCRIPT = r"""
const timers = [];
const delays = [];
let polling = 0;
globalThis.setTimeout = (fn, ms) => { delays.push(ms); timers.push(fn); return timers.length; };
globalThis.clearTimeout = () => {};
globalThis.setInterval = () => { polling += 1; return 1; };
globalThis.clearInterval = () => { polling = 0; };
globalThis.window = globalThis;
globalThis.location = { protocol: "http:", host: "example.test" };
const sockets = [];
class FakeSocket {
  static OPEN = 1;
  constructor(url) { this.url = url; this.readyState = 0; this.on = {}; this.sent = []; sockets.push(this); }
  addEventListener(type, fn) { (this.on[type] ||= []).push(fn); }
  emit(type, event) { for (const fn of this.on[type] || []) fn(event); }
  send(data) { this.sent.push(data); }
  close() { this.readyState = 3; this.emit("close", {}); }
}
globalThis.WebSocket = FakeSocket;
const { followSocket, SeqOrder } = await import(process.argv[1]);
const out = {};

// --- SeqOrder ---
let rereads = 0;
let finish = null;
const order = new SeqOrder(() => { rereads += 1; return new Promise((r) => (finish = r)); });
order.seq = 5;
out.where = [order.where(4), order.where(5), order.where(6), order.where(9)];
out.current = [order.current(4), order.current(5), order.current(7)];
out.next = [order.step(6), order.seq];
out.gaps = [order.step(9), order.step(10), order.step(12), order.seq];
await Promise.resolve();
out.rereadsWhileOneIsOut = rereads;
finish();
await new Promise((r) => queueMicrotask(r));
await new Promise((r) => queueMicrotask(r));
order.step(20);
await Promise.resolve();
out.rereadsAfterItCame = rereads;

// --- followSocket ---
const frames = [];
let done = false;
const follow = followSocket("/ws/games/g1", {
  onFrame: (f) => frames.push(f.type),
  poll: () => {},
  keepFollowing: () => !done,
});
out.url = sockets[0].url;
const closeLast = () => sockets[sockets.length - 1].close();
const reconnect = () => timers[timers.length - 1]();
for (let i = 0; i < 7; i++) { closeLast(); reconnect(); }
out.waitsWhileDown = delays.slice();
out.pollingWhileDown = polling > 0;
const live = sockets[sockets.length - 1];
live.readyState = 1;
live.emit("message", { data: "not json" });
out.upBeforeState = follow.isUp();
live.emit("message", { data: JSON.stringify({ type: "state", seq: 3 }) });
out.up = [follow.isUp(), follow.send("x"), live.sent, polling];
live.emit("message", { data: JSON.stringify({ type: "move", seq: 4 }) });
out.frames = frames;
delays.length = 0;
closeLast();
out.waitAfterBeingLive = delays.slice();
out.sendWhileDown = follow.send("y");
done = true;
reconnect();
out.socketsAfterTheEnd = sockets.length;
closeLast();
out.waitsAfterTheEnd = delays.slice();
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(
    shutil.which("node") is None, reason="Node.js is not installed (apt-get install nodejs)"
)
def test_the_socket_helper_keeps_order_and_waits_longer_each_time() -> None:
    run = subprocess.run(
        ["node", "--input-type=module", "-e", SCRIPT, LIVE_JS.as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["where"] == ["old", "old", "next", "gap"]
    assert got["current"] == [False, True, True]
    assert got["next"] == ["next", 6]
    # Three gaps in a row: the order stays put and the game (or race) is read once.
    assert got["gaps"] == ["gap", "gap", "gap", 6]
    assert got["rereadsWhileOneIsOut"] == 1
    assert got["rereadsAfterItCame"] == 2
    assert got["url"] == "ws://example.test/ws/games/g1"
    assert got["waitsWhileDown"] == [1000, 2000, 3000, 4000, 5000, 6000, 6000]
    assert got["pollingWhileDown"] is True
    assert got["upBeforeState"] is False
    assert got["up"] == [True, True, ["x"], 0]  # live: requests go on it, polling stopped
    assert got["frames"] == ["state", "move"]  # the frame that is not JSON is dropped
    assert got["waitAfterBeingLive"] == [1000]
    assert got["sendWhileDown"] is False
    assert got["socketsAfterTheEnd"] == 8  # nothing more to follow: no new socket
    assert got["waitsAfterTheEnd"] == [1000]
