"""Each server entry point freezes its loaded application out of the garbage collector's walks
(demineur_site.collector): a gunicorn worker on importing demineur_site.wsgi, a uvicorn
process at the ASGI lifespan's startup or, without one, at its first connection. Each case runs
in a fresh interpreter, as a server process starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.interpreter import run_fresh

# Django with every room loaded is about 125,000 tracked objects; what a started process keeps
# outside the permanent generation afterwards is a small part of that.
LOADED_AT_LEAST = 50_000

LIFESPAN = """
import asyncio, gc, json
from demineur_site import asgi

async def main():
    before = gc.get_freeze_count()
    inbox = asyncio.Queue()
    sent = []
    async def receive():
        return await inbox.get()
    async def send(message):
        sent.append(message["type"])
    await inbox.put({"type": "lifespan.startup"})
    server = asyncio.ensure_future(asgi.application({"type": "lifespan"}, receive, send))
    while not sent:
        await asyncio.sleep(0)
    after = gc.get_freeze_count()
    await inbox.put({"type": "lifespan.shutdown"})
    await server
    print(json.dumps({"before": before, "after": after, "tracked": len(gc.get_objects()),
                      "sent": sent}))

asyncio.run(main())
"""

WSGI = """
import gc, json
before = gc.get_freeze_count()
import demineur_site.wsgi
print(json.dumps({"before": before, "after": gc.get_freeze_count(),
                  "tracked": len(gc.get_objects())}))
"""


def _run(code: str, tmp_path: Path) -> dict[str, object]:
    result = run_fresh(code, tmp_path, RACE_CLOCK="off")
    assert result.returncode == 0, result.stderr[-2000:]
    found: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


@pytest.mark.parametrize("entry", ["wsgi", "asgi lifespan"])
def test_a_server_process_freezes_its_loaded_application(entry: str, tmp_path: Path) -> None:
    found = _run(WSGI if entry == "wsgi" else LIFESPAN, tmp_path)
    before, after, tracked = (int(str(found[key])) for key in ("before", "after", "tracked"))
    assert before < LOADED_AT_LEAST // 10  # (the interpreter's start may freeze a few hundred)
    assert after >= LOADED_AT_LEAST
    # What a full collection still walks: a tenth of what it walked before, at most.
    assert tracked < after // 10
    if entry != "wsgi":
        assert found["sent"] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
