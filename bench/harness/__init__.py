"""What every benchmark uses (bench/README.md):

* `servers`: the processes a benchmark starts and stops (the application's servers on the
  shared or on private PostgreSQL and Redis, the anchors, Prometheus) and the one way to wait
  until a server is ready; what /proc says of them.
* `clients`: the HTTP and WebSocket clients of the benchmarks and their bots, in-process
  requests through Django's WSGI handler, and wrk.
* `timing`: percentiles, medians, interleaved rounds and their ratios, CPU read from /proc,
  the wait for a quiet machine.
* `report`: progress lines, Markdown tables and the results file (one format for all).
* `database`: the benchmark's own PostgreSQL database, and Django set up in its process.
"""
