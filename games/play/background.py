"""A daemon thread that loops until stopped: the race and daily clocks (games.races.clock) and
the analysis worker (games.play.analysis_jobs) start and stop the same way, and recover the
same way from a turn that failed (the database away)."""

from __future__ import annotations

import threading

from django.db import close_old_connections, connection


class BackgroundLoop:
    """`run` loops until `_stop` is set; `start` runs it in a daemon thread named `name` (once:
    a running loop is left alone), `stop` sets `_stop` and waits for the thread."""

    stop_timeout = 2.0  # how long `stop` waits for the thread, in seconds

    def __init__(self, *, name: str) -> None:
        self.name = name
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.stop_timeout if timeout is None else timeout)
            self._thread = None


def drop_connections() -> None:
    """After a failed turn: the thread's connection may be broken, the next turn opens a new one."""
    close_old_connections()
    connection.close()
