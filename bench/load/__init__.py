"""Load benchmark: solver bots play whole games through the public API, over HTTP and over the
game socket, against the production layout; and the scaling curve.

    python -m bench.load.run      one run (docs/perf/LOAD.md)
    python -m bench.load.curve    workers x players, a table and docs/perf/scaling.png
"""
