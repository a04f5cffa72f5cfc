"""`make run`'s server candidates measured against each other (docs/perf/SERVER.md)."""
