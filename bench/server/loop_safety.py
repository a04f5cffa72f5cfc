"""Why a WSGI bridge's threads must know the server's event loop (docs/perf/SERVER.md).

    .venv/bin/python -m bench.server.loop_safety
    PYTHONASYNCIODEBUG=1 .venv/bin/python -m bench.server.loop_safety

A channel waits on an InMemoryChannelLayer in the event loop; a plain thread (as a2wsgi's, or
any thread asgiref did not start) publishes to its group with async_to_sync(group_send), as
demineur_site.publish does with the in-memory layer. The thread runs group_send on a private loop, which
wakes the waiting Queue from the wrong thread: the receive is not woken (it sees the message
only when something else wakes the loop). Then the same from a thread started by asgiref's
sync_to_async, as demineur_site.dev_server's are: delivered at once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import InMemoryChannelLayer

from bench import cli
from bench.harness.report import say

WAIT_S = 3.0


async def deliver(how: str) -> str:
    layer = InMemoryChannelLayer()
    channel = await layer.new_channel()
    await layer.group_add("g", channel)

    def publish() -> None:
        async_to_sync(layer.group_send)("g", {"type": "x"})

    started = time.monotonic()
    if how == "plain thread":
        threading.Thread(target=publish).start()
        pending: Any = None
    else:
        run: Callable[[], Any] = sync_to_async(
            publish, thread_sensitive=False, executor=ThreadPoolExecutor(1)
        )
        pending = asyncio.ensure_future(run())
    try:
        await asyncio.wait_for(layer.receive(channel), WAIT_S)
        result = f"received after {1000 * (time.monotonic() - started):.0f} ms"
    except TimeoutError:
        result = f"NOT received within {WAIT_S:g} s"
    except RuntimeError as exc:
        result = f"RuntimeError: {exc}"
    if pending is not None:
        await pending
    return result


def main() -> None:
    import uvloop

    cli.parser(__doc__).parse_args()
    for how in ("plain thread", "asgiref thread"):
        say(f"asyncio, {how}: {asyncio.run(deliver(how))}")
        say(f"uvloop,  {how}: {uvloop.run(deliver(how))}")


if __name__ == "__main__":
    main()
