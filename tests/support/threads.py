"""Concurrent callers for the row-lock tests: each in a thread of its own, on a database
connection of its own (Django opens one per thread), closed when the thread ends."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connections


def in_threads(*calls: Callable[[], object], timeout: float | None = None) -> None:
    """Each of `calls` in a thread of its own; back when every one has ended (or, with a
    `timeout`, when each has had that many seconds to)."""

    def run(call: Callable[[], object]) -> None:
        try:
            call()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)


def at_once(count: int, call: Callable[[], object]) -> None:
    """`call` in `count` threads released together (a barrier), as tabs or retries would."""
    barrier = threading.Barrier(count)

    def released() -> None:
        barrier.wait()
        call()

    in_threads(*[released] * count)
