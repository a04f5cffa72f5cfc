"""The race clock: calls games.races.services.race_clock_tick every RACE_CLOCK_INTERVAL_MS (100 ms), so
that countdowns end, races start and time limits strike within a tick of their instant
without waiting for any request (issue: "within 250 ms of their instant").

It runs as a daemon thread in each ASGI process (started by the lifespan of
demineur_site.asgi: `make run` and the live workers) when RACE_CLOCK is `thread`, or in the
foreground as `manage.py race_clock`. Every deadline is a stored column (Race.deadline) and
every action re-checks it under the race's row lock, so several clocks never act twice and a
restarted server catches up on its first tick.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import connection

from games.play.analysis_jobs import AnalysisWorker
from games.play.background import BackgroundLoop, drop_connections

log = logging.getLogger(__name__)


class RaceClock(BackgroundLoop):
    def __init__(
        self,
        *,
        interval_s: float,
        tick: Callable[[], int] | None = None,
        name: str = "race-clock",
    ) -> None:
        super().__init__(name=name)
        self.interval_s = interval_s
        self._tick = tick
        self.ticks = 0
        self.failures = 0

    def tick_once(self) -> int:
        from games.races.services import race_clock_tick

        return (self._tick or race_clock_tick)()

    def run(self, *, until: Callable[[], bool] | None = None) -> None:
        """Tick until stopped. A failing tick (the database away) is logged once a burst and
        retried on the next one; the clock itself never dies."""
        while not self._stop.is_set() and not (until is not None and until()):
            started = time.monotonic()
            try:
                self.tick_once()
                self.failures = 0
            except Exception:
                self.failures += 1
                if self.failures == 1 or self.failures % 100 == 0:
                    log.exception("%s tick failed (%d in a row)", self.name, self.failures)
                drop_connections()
            self.ticks += 1
            self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - started)))
        connection.close()


_clock: RaceClock | None = None
# The daily clock (games.daily.services.daily_tick, docs/DAILY.md): once a second, its own
# thread, since a day's end can take longer than a race tick.
_daily: RaceClock | None = None
DAILY_INTERVAL_S = 1.0
_analysis: AnalysisWorker | None = None  # started and stopped with the clock (docs/ANALYSIS.md)
_clock_lock = threading.Lock()
started = False  # start_in_process() was called in this process (whatever RACE_CLOCK says)


def _daily_tick() -> int:
    from games.daily.services import daily_tick

    return daily_tick()


def start_in_process() -> RaceClock | None:
    """Start this process's clock thread when RACE_CLOCK is `thread` (once per process), and
    beside it the analysis worker's thread (games.play.analysis_jobs): its own thread, since
    one Marathon analysis can take longer than a tick of the clock."""
    global _clock, _analysis, _daily, started
    started = True
    if settings.RACE_CLOCK != "thread":
        return None
    with _clock_lock:
        if _clock is None:
            _clock = RaceClock(interval_s=settings.RACE_CLOCK_INTERVAL_MS / 1000)
        _clock.start()
        if _daily is None:
            _daily = RaceClock(interval_s=DAILY_INTERVAL_S, tick=_daily_tick, name="daily-clock")
        _daily.start()
        if _analysis is None:
            _analysis = AnalysisWorker()
        _analysis.start()
        return _clock


def stop_in_process() -> None:
    with _clock_lock:
        if _clock is not None:
            _clock.stop()
        if _daily is not None:
            _daily.stop()
        if _analysis is not None:
            _analysis.stop()
