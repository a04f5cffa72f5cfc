# Démineur — the commands a newcomer needs. `make run` and `make test` are enough.
.DEFAULT_GOAL := help
SHELL := /bin/bash

VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
HOST ?= 127.0.0.1
# Django 6 needs Python >= 3.12; fall back to the newest python3 found (Django 5.2 then).
PYTHON ?= $(shell for p in python3.12 python3.13 $$HOME/.pyenv/versions/3.12*/bin/python3 $$HOME/.pyenv/versions/3.13*/bin/python3 python3; do \
	  command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { command -v $$p; break; }; done)

.PHONY: help venv run serve migrate test test-stack test-under-load test-fast screenshots lint format typecheck bench bench-engine bench-leaderboards bench-live bench-http bench-races bench-puzzles soak scale-demo images compose-test swarm-test lock serve-prod serve-prod-stop clean

help:
	@echo "make run       venv + install + migrate + serve http://$(HOST):$(PORT) (site, API, WebSockets)"
	@echo "make test      the suite (PostgreSQL/Redis when DATABASE_URL/REDIS_URL are set)"
	@echo "make test-fast   no browser, no stack (TESTS=tests/races for one room's tests)"
	@echo "make test-stack  the rest of it: own server processes, PostgreSQL/Redis outages"
	@echo "make test-under-load  make test RUNS times (3) beside two busy loops (docs/TESTING.md)"
	@echo "make screenshots refresh docs/screenshots/ from the browser tests"
	@echo "make lint      ruff check + ruff format --check"
	@echo "make typecheck mypy (engine and puzzle positions under --strict)"
	@echo "make bench     every benchmark under bench/"
	@echo "make soak      30 min soak (SOAK_MINUTES=N), crash test, long fuzzing (docs/RELIABILITY.md)"
	@echo "make scale-demo  replica + 3 Redis + 2 nodes on this machine, backup/restore (docs/DEPLOYMENT.md)"
	@echo "make images   the base images docker-compose.yml needs: pulled, or stand-ins where Docker Hub is out of reach"
	@echo "make compose-test  build the image, run docker-compose.yml for real, outages included (docs/DEPLOYMENT.md)"
	@echo "make swarm-test    the same compose file on a one-node Docker Swarm: rolling update, secrets"
	@echo "make serve-prod  production layout here: Caddy + gunicorn + uvicorn on PORT (8080) (docs/deploy/SERVING.md)"
	@echo "make serve-prod-stop  stop what serve-prod started"
	@echo "make lock      regenerate requirements/prod.txt (hashed runtime lock) from pyproject.toml"

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml
	@test -n "$(PYTHON)" || { echo "No Python >= 3.11 found"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -e clients/python
	@touch $@

venv: $(VENV)/.installed

# Development defaults: DEBUG on (the placeholder SECRET_KEY is refused with DEBUG off).
run migrate: export DEBUG := $(or $(DEBUG),1)

migrate: venv
	$(PY) manage.py migrate --noinput

# One command, one address, one process: uvicorn serves demineur_site.dev_server (HTTP through
# Django's WSGI handler in two threads, WebSockets and the lifespan through the ASGI
# application; chosen by measurement, docs/perf/SERVER.md).
run: migrate
	DB_POOL=$${DB_POOL:-1} $(VENV)/bin/uvicorn demineur_site.dev_server:application --host $(HOST) --port $(PORT) --no-access-log $$([ "$${TRUSTED_PROXIES:-0}" -gt 0 ] || echo --no-proxy-headers) --ws-max-size 4096 --ws-per-message-deflate false

# The suite, in two targets that together run every test: `test` (everything but the stack
# tests, browser tests included) and `test-stack`: the tests that start their own server
# processes or take PostgreSQL and Redis down (tests/conftest.py, STACK_MODULES). .ci/run runs
# `test` twice (SQLite + in-memory layer, then PostgreSQL + Redis) and `test-stack`. Timings
# are in docs/TESTING.md. TEST_WORKERS: pytest-xdist processes, twice the cores by default (on two
# cores six finished the SQLite suite 7 % sooner than four but each test ran longer, nearer its
# waits' bounds: docs/TESTING.md); each has its own test database, Redis database and prefix
# (demineur_site/settings_test.py).
TEST_WORKERS ?= $(shell echo $$(( 2 * $$(nproc 2>/dev/null || echo 1) )))
# --dist loadgroup: a worker is handed its next test when it is nearly done (xdist's plain `load`
# hands each a quarter of its share up front: with the long tests first, one worker got most of
# them), and the tests of a module that share a module-scoped fixture (a Chromium, a server) go
# to one worker together (tests/support/ordering.py; docs/TESTING.md, Shortening the run).
PYTEST_PARALLEL = -n $(TEST_WORKERS) --dist loadgroup
# `make test-fast TESTS=tests/races` runs one room's tests; TESTS is any pytest path or node id.
TESTS ?= tests

# The tests write their modules' bytecode (__pycache__/, ignored by git) even where the shell
# says not to: without it each worker and each server a test starts compiled the project and
# pytest rewrote the 600 test modules' asserts again (collecting took 17.4 s of CPU, not 8.0).
test test-fast test-stack screenshots test-under-load: export PYTHONDONTWRITEBYTECODE =

test: venv
	$(PY) -m pytest -q -m "not stack" $(PYTEST_PARALLEL) --durations=25 $(TESTS)

# No browser and no stack: the quick loop while changing one room.
test-fast: venv
	$(PY) -m pytest -q -m "not stack and not browser" $(PYTEST_PARALLEL) $(TESTS)

# The suite under load (docs/TESTING.md): two busy loops and `make test` RUNS times in a row.
test-under-load: venv
	RUNS=$${RUNS:-3} tests/under_load.sh

test-stack: venv
	$(PY) -m pytest -q -m stack --durations=10

# The documentation's screenshots (docs/screenshots/), refreshed on purpose: the browser tests
# run with SCREENSHOTS_DIR pointing there (a plain `make test` takes none).
screenshots: venv
	SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots $(PY) -m pytest -q -m "browser and not stack" $(PYTEST_PARALLEL) tests

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The npm packages the pages load, copied from node_modules into the static files and committed
# (the site serves them itself, no outside host; pinned in package.json): uPlot, the insights
# page's charts (docs/FRONTEND.md, Insights).
UPLOT_DIR := frontend/static/frontend/vendor/uplot
.PHONY: vendor
vendor:
	npm ci --no-audit --no-fund
	mkdir -p $(UPLOT_DIR)
	cp node_modules/uplot/dist/uPlot.esm.js node_modules/uplot/dist/uPlot.min.css node_modules/uplot/LICENSE $(UPLOT_DIR)/
	@# its types, named after the module so that TypeScript reads them for the page's import
	cp node_modules/uplot/dist/uPlot.d.ts $(UPLOT_DIR)/uPlot.esm.d.ts

typecheck: venv
	$(VENV)/bin/mypy games accounts demineur_site frontend
	$(VENV)/bin/mypy --strict games/engine.py games/clock.py games/puzzles/positions.py games/puzzles/rules.py
	$(VENV)/bin/mypy --strict clients/python/src/demineur_client
	@# The site's scripts: JSDoc types checked by TypeScript (pinned in package-lock.json; docs/FRONTEND.md, Types)
	@test -x node_modules/.bin/tsc || npm ci --no-audit --no-fund
	node_modules/.bin/tsc --noEmit -p tsconfig.json

bench: bench-engine bench-leaderboards bench-daily bench-live bench-http bench-races bench-arenas bench-noguess bench-analysis bench-streams bench-load bench-server bench-watchers bench-socketmove bench-racemove bench-capacity bench-metrics bench-clocks bench-puzzles bench-insights bench-overlay bench-compression bench-collector

bench-engine: venv
	$(PY) -m bench.engine.bench_engine

bench-leaderboards: venv
	@if [ -d bench/leaderboards ]; then $(PY) -m bench.leaderboards.run; else echo "bench/leaderboards: not present"; fi

bench-live: venv
	@if [ -d bench/live ]; then $(PY) -m bench.live.run; else echo "bench/live: not present"; fi

# Our move endpoint vs the perf-limits anchors C1/D12, interleaved in one run (needs wrk,
# PostgreSQL and Redis on 127.0.0.1; waits up to 10 min for a quiet machine).
bench-http: venv
	@if [ -d bench/http ]; then $(PY) -m bench.http.run; else echo "bench/http: not present"; fi

# The benchmarks that are one module, `make bench-NAME` = `python -m bench.NAME.run`:
# - races: eight bots race on Expert while 100 spectators watch, against the same bots solo
#   (needs PostgreSQL and Redis: DATABASE_URL, REDIS_URL; docs/PERFORMANCE.md, Races).
# - arenas: 200 bot players in one arena against the same bots solo: pairing delay, standings
#   update, moves, p50/p99 (docs/ARENAS.md, docs/PERFORMANCE.md).
# - clocks: what the race, daily and analysis clocks cost every live process, idle and busy
#   (docs/PERFORMANCE.md, The clocks).
# - daily: the daily board's reads with 100,000 players on one day, p50/p99 (docs/DAILY.md,
#   docs/PERFORMANCE.md).
# - analysis: the analysis of a finished game, p50/p99 per level (docs/ANALYSIS.md,
#   docs/PERFORMANCE.md).
# - overlay: the replay's counters and probability overlay per finished Marathon game, and one
#   step's answer, p50/p99 (docs/ANALYSIS.md, docs/PERFORMANCE.md).
# - noguess: no-guess generation per level, densities, uniformity (docs/NOGUESS.md).
# - streams: NDJSON streams against sockets: delivery p50/p99 of both from the same moves,
#   lines/s (docs/LIVE.md).
# - load: solver bots play whole games through the API, over HTTP and over the socket, 32
#   players on gunicorn + uvicorn with 2 workers each, PostgreSQL and Redis (docs/perf/LOAD.md).
#   The scaling curve (1, 2, 4 workers x 1, 8, 32, 128 players; docs/perf/scaling.png):
#   python -m bench.load.curve
# - metrics: what the request id and metrics middleware cost a request, in-process and in
#   prometheus-client's multiprocess mode (docs/PERFORMANCE.md).
# - insights: GET /api/users/{name}/insights for a player with 100,000 analysed games, p50/p99
#   (docs/STATS.md, Insights; docs/PERFORMANCE.md).
BENCH_RUNS := races arenas clocks daily analysis overlay noguess streams load metrics insights
BENCH_RUN_TARGETS := $(addprefix bench-,$(BENCH_RUNS))
.PHONY: $(BENCH_RUN_TARGETS)
$(BENCH_RUN_TARGETS): bench-%: venv
	$(PY) -m bench.$*.run

# Server CPU per move over the socket against over HTTP: whole games on bench/load's servers,
# their idle CPU taken off, 3 alternating rounds; then one move's CPU in process through each
# door (docs/PERFORMANCE.md).
.PHONY: bench-socketmove
bench-socketmove: venv
	$(PY) -m bench.load.run --rounds 3 --idle 6 --seconds 15
	$(PY) -m bench.http.inprocess --doors http,socket --n 500

# A racer's move against a solo move, in process (the service alone, PostgreSQL): CPU, wall
# and statements a move (docs/PERFORMANCE.md, Races).
.PHONY: bench-racemove
bench-racemove: venv
	$(PY) -m bench.races.inprocess

# Two in-process measures of a server's choices, each one module: what permessage-deflate would
# cost a live server (CPU a frame, memory a socket, bytes on the wire; docs/PERFORMANCE.md,
# Socket compression) and what a full garbage collection costs a server process, its loaded
# application frozen or not (docs/PERFORMANCE.md, Players per machine).
MODULE_bench-compression := bench.live.compression
MODULE_bench-collector := bench.server.collector
.PHONY: bench-compression bench-collector
bench-compression bench-collector: venv
	$(PY) -m $(MODULE_$@)

# Players per machine: socket players at about a move a second on bench/load's servers (2
# workers), doubled then bisected to the largest count whose every move's p99 stays under
# 50 ms with no error; the plot in docs/perf/capacity.png (docs/PERFORMANCE.md).
.PHONY: bench-capacity
bench-capacity: venv
	$(PY) -m bench.load.capacity

# One live process holding up to 10,000 sockets over 100 games: memory per socket and a
# move's push to them all (needs DATABASE_URL and REDIS_URL; docs/PERFORMANCE.md).
.PHONY: bench-watchers
bench-watchers: venv
	$(PY) -m bench.watchers.run --plots

# Puzzles (docs/PUZZLES.md): the generation's cost per finished game and what it yields, per
# level (no database); then the next-puzzle pick with 100,000 puzzles and 100,000 players, p99
# against 20 ms (PostgreSQL: BENCH_PUZZLES_DATABASE_URL, else DATABASE_URL's database with
# `_bench_puzzles`, seeded once and kept).
bench-puzzles: venv
	$(PY) -m bench.puzzles.run
	$(PY) -m bench.puzzles.pick

# The long form of the no-guess proof: 500 games per level through HTTP (docs/NOGUESS.md).
.PHONY: test-noguess
test-noguess: venv
	NOGUESS_HTTP_BOARDS=500 $(PY) -m pytest -q tests/play/test_no_guess_boards_need_no_guess.py

# The dashboard's screenshot from a short bench/load run scraped by Debian's prometheus
# (docs/DEPLOYMENT.md).
.PHONY: monitoring-screenshot
monitoring-screenshot: venv
	$(PY) -m bench.monitoring.run

# make run's server (one process, one port) against Django's ASGI handler and daphne, on SQLite
# as make run (docs/perf/SERVER.md; every candidate: python -m bench.server.run, ~30 min).
.PHONY: bench-server
bench-server: venv
	$(PY) -m bench.server.run --candidates uvicorn-asgi,uvicorn-bridge,daphne-asgi --debug 1

# Reliability (docs/RELIABILITY.md): bots on gunicorn + uvicorn with a private PostgreSQL and
# Redis for SOAK_MINUTES (30), memory and connections sampled; then the crash test
# (bench/soak/crash.py) and the long Schemathesis run when tests/reliability exposes one.
soak: venv
	$(PY) -m bench.soak.soak

# Past one machine, on this machine (docs/DEPLOYMENT.md): a private PostgreSQL primary and a
# streaming replica, three private Redis, two server processes; not part of `make test`.
scale-demo: venv
	$(PY) deploy/scale_demo.py

# The base images of docker-compose.yml and the Dockerfile on this engine: kept, pulled, or
# where Docker Hub is out of reach built from Debian's packages and tagged with the real names,
# after which `docker compose up -d --build` (or `docker-compose up -d --build`) works as
# printed (docs/deploy/SERVING.md). The system's python3, no virtualenv: an operator's first step.
images:
	python3 deploy/images.py

# docker-compose.yml built and run for real on this machine's Docker engine (docs/DEPLOYMENT.md,
# "The compose test"); stand-in base images from Debian when Docker Hub cannot be reached.
# Minutes, not part of `make test` (which skips these modules); each is bounded by a timeout.
COMPOSE_TEST_TIMEOUT ?= 1800

compose-test: venv
	COMPOSE_TEST=1 timeout $(COMPOSE_TEST_TIMEOUT) $(PY) -m pytest -q -s -p no:cacheprovider tests/deploy/test_compose_stack.py

swarm-test: venv
	SWARM_TEST=1 timeout $(COMPOSE_TEST_TIMEOUT) $(PY) -m pytest -q -s -p no:cacheprovider tests/deploy/test_swarm_stack.py

# The image's runtime lock (docs/deploy/SERVING.md): every runtime dependency pinned, with
# the hashes of its files, from pyproject.toml's [project] dependencies (no dev tools).
lock: venv
	$(VENV)/bin/pip-compile --quiet --generate-hashes --strip-extras --no-emit-index-url \
	  --no-emit-find-links --output-file requirements/prod.txt pyproject.toml

# Production layout on this machine, in the foreground (Ctrl-C stops it): Debian's caddy on
# PORT (8080), gunicorn with WEB_WORKERS (2), LIVE_WORKERS (2) uvicorn processes, DEBUG off,
# against DATABASE_URL and REDIS_URL (required). docs/deploy/SERVING.md.
serve-prod: venv
	PORT=$(if $(filter environment command line,$(origin PORT)),$(PORT),8080) $(PY) deploy/serve_prod.py

serve-prod-stop:
	$(PY) deploy/serve_prod.py stop

# Lighthouse (npm, pinned in package.json) with Debian's Chromium against a running
# `make serve-prod` (LIGHTHOUSE_URL, http://127.0.0.1:8080 by default): the home page, a game,
# the leaderboards and a profile, as a phone and as a desktop; prints the table
# docs/FRONTEND.md keeps. Minutes, on a quiet machine; not part of `make test`.
.PHONY: lighthouse
lighthouse: venv
	@test -x node_modules/.bin/lighthouse || npm ci --no-audit --no-fund
	CHROME_PATH=$${CHROME_PATH:-$$(command -v chromium)} $(PY) -m bench.lighthouse.run

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache db.sqlite3
