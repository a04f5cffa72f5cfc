"""Settings for the test suite: the real settings with a test-only secret key."""

import os
from typing import Any

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("THROTTLE_ANON", "100000/min")
# Race tests drive the race clock themselves (games.races.services.race_clock_tick); the servers the
# suite starts (tests/support/services.py) run it as production does.
os.environ.setdefault("RACE_CLOCK", "off")
# A no-guess search ends on its draws (MAX_TRIES), not on the clock: the suite checks boards,
# and a loaded machine must not fail it (docs/TESTING.md).
os.environ.setdefault("NOGUESS_BUDGET_S", "60")
# Opening a PostgreSQL connection waits for the server, not for 2 s: on a loaded machine 25
# threads connecting at once timed out and answered 503 (tests that mean an outage set their
# own timeout for the servers they start: tests/client/test_outages.py).
os.environ.setdefault("DB_CONNECT_TIMEOUT", "20")
# The server's own arenas would appear in every test's database: tests/arenas sets them.
os.environ.setdefault("ARENA_SCHEDULE", "")
os.environ.setdefault("THROTTLE_USER", "100000/min")
os.environ.setdefault("THROTTLE_AUTH", "100000/min")
os.environ.setdefault("THROTTLE_AUTH_USERNAME", "100000/min")
os.environ.setdefault("THROTTLE_RESET_EMAIL", "100000/min")
os.environ.setdefault("THROTTLE_RESET_ADDRESS", "100000/min")
os.environ.setdefault("THROTTLE_GAMES_EXPORT", "100000/min")
os.environ.setdefault("THROTTLE_EMAIL_RECIPIENT", "100000/min")
os.environ.setdefault("THROTTLE_EMAIL_ACCOUNT", "100000/min")
# The suite makes every account from one address: the account caps stay out of its way
# (0: off); tests/accounts/test_account_caps.py sets them to test them.
os.environ.setdefault("ACCOUNT_GUESTS_PER_ADDRESS_DAY", "0")
os.environ.setdefault("ACCOUNT_SIGNUPS_PER_ADDRESS_DAY", "0")
os.environ.setdefault("ACCOUNT_NEW_PER_HOUR", "0")
# Staff sign in to the admin without a second factor in the suite (DEBUG is off here);
# tests/accounts/test_two_factor.py turns the production rule on to test it.
os.environ.setdefault("STAFF_REQUIRE_TOTP", "0")
# Tests play at machine speed: the superhuman limits stay out of their way, and
# the fair play tests set the shipped defaults back (tests/support/fairplay.py) to test them.
os.environ.setdefault("FAIRPLAY_MAX_MOVES_PER_SECOND", "1000000")
os.environ.setdefault("FAIRPLAY_MIN_MEDIAN_INTERVAL_MS", "0")
os.environ.setdefault("FAIRPLAY_MIN_INTERVAL_VARIATION", "-1")
os.environ.setdefault("FAIRPLAY_FLURRY_GAP_MS", "0")
os.environ.setdefault("FAIRPLAY_PACE_WINS", "0")
os.environ.setdefault("FAIRPLAY_PERFECT_WINS", "0")
# Puzzles solved at machine speed: no attempt is machine-paced (tests/puzzles sets them back).
os.environ.setdefault("PUZZLE_MIN_THINK_MS", "0")
os.environ.setdefault("PUZZLE_MIN_GAP_MS", "0")
os.environ.setdefault(
    "FAIRPLAY_MAX_BBBV_PER_S",
    ",".join(
        f"{level}:1e9"
        for level in ("beginner", "intermediate", "hard", "expert", "extreme", "marathon")
    ),
)

# pytest-xdist runs the suite in several processes on one Redis. A prefix is not enough: the
# cache's clear() (tests call it to reset throttle counts) is a FLUSHDB, so each worker takes a
# database of its own, 1 to 15 (gw0 -> 1, gw1 -> 2, ...; more than 15 workers share them), and
# keys its channel layer and cache apart as well (Pub/Sub ignores the database number). The
# servers a test starts inherit this environment.
_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    from urllib.parse import urlsplit, urlunsplit

    _db = 1 + int(_worker.removeprefix("gw") or 0) % 15
    for _name in ("REDIS_URL", "REDIS_URLS"):
        if os.environ.get(_name):
            os.environ[_name] = ",".join(
                urlunsplit(urlsplit(url.strip())._replace(path=f"/{_db}"))
                for url in os.environ[_name].split(",")
            )
    os.environ.setdefault("CHANNELS_PREFIX", f"demineur-test-{_worker}")
    os.environ.setdefault("CACHE_PREFIX", f"demineur-test-{_worker}")

from .settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Mailed links point at SITE_URL, as in production (with DEBUG off and no SITE_URL nothing is
# mailed: docs/ACCOUNTS.md); the suite reads only their path and token.
# tests/accounts/test_mailed_link_host.py unsets it to test the rule without it.
SITE_URL = SITE_URL or "http://testserver"  # noqa: F405

# The suite serves the ASGI application on a thread of its own process (tests/support/browser.py),
# where a persistent connection per request thread is never closed until garbage collection
# (docs/LIVE.md, "DB_POOL=1 under uvicorn"): across a whole run they reached PostgreSQL's 100
# connections. Production's ASGI processes use the pool; the suite's server closes each request's
# connection at its end instead (Django's `CONN_MAX_AGE = 0`). A pooled alias keeps its pool.
for _alias in DATABASES.values():  # noqa: F405
    _options = _alias.get("OPTIONS")
    if not (isinstance(_options, dict) and _options.get("pool")):
        _alias["CONN_MAX_AGE"] = 0

# SQLite's default test database is in memory with a shared cache, where concurrent requests
# (the browser tests' server threads) take table locks that the busy timeout never retries:
# "database table is locked" behind 500s. The suite uses a file instead, in the system's temp
# folder (never the repository), with the same WAL + BEGIN IMMEDIATE + busy timeout as `make
# run`; pytest-xdist gives each worker its own file (suffix _gw0, _gw1, ...). The process id
# keeps two runs on one machine apart.
_default: dict[str, Any] = DATABASES["default"]  # noqa: F405
if str(_default["ENGINE"]).endswith("sqlite3"):
    import tempfile

    _test: dict[str, Any] = _default.setdefault("TEST", {})
    _test.setdefault(
        "NAME", os.path.join(tempfile.gettempdir(), f"demineur-test-{os.getpid()}.sqlite3")
    )
    # A test database is thrown away: no fsync per commit.
    _default["OPTIONS"]["init_command"] = "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
