"""Settings, all from the environment.

With no DATABASE_URL / REDIS_URL the site runs on SQLite and the in-memory channel layer;
with them, on PostgreSQL and Redis. DEBUG is off unless asked for, and with DEBUG off the
site refuses to start on the placeholder SECRET_KEY.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import django
from django.conf.locale import LANG_INFO
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from .env import (
    database_from_url,
    env_bool,
    env_float,
    env_int,
    env_levels,
    env_list,
    env_str,
    redis_urls,
)

BASE_DIR = Path(__file__).resolve().parent.parent

PLACEHOLDER_SECRET_KEY = "insecure-placeholder-change-me"
DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", PLACEHOLDER_SECRET_KEY)
if not DEBUG and SECRET_KEY == PLACEHOLDER_SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY is the placeholder and DEBUG is off: set SECRET_KEY (or DEBUG=1 for development)."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# --- The HTTP edge (docs/SECURITY.md) -----------------------------------------------------
# How many reverse proxies in front of the servers append to X-Forwarded-For. 0 (the default,
# and `make run`): the client address is the connection's peer and X-Forwarded-For is ignored,
# so a client cannot pick its own throttle key. Behind one proxy that sets the header, 1.
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0)
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured("TRUSTED_PROXIES must be 0 or more")
# Served over HTTPS (directly or behind a trusted TLS-terminating proxy): HSTS, Secure cookies
# and a redirect of plain HTTP. Off for `make run` on http://127.0.0.1.
HTTPS = env_bool("HTTPS", False)
if HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", True)
if TRUSTED_PROXIES > 0:
    # Only a proxy we trust may say the client spoke HTTPS to it.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Bodies above this are refused with 413 at the edge, before Django reads them
# (demineur_site.middleware: ASGI and WSGI wrappers).
MAX_REQUEST_BYTES = env_int("MAX_REQUEST_BYTES", 64 * 1024)
# The games export, served by the ASGI processes, is cut this many seconds after its first
# line when its reader has not taken it all (games.play.export; docs/SECURITY.md).
GAMES_EXPORT_TIME_LIMIT = env_float("GAMES_EXPORT_TIME_LIMIT", 600.0)
# Wall time one no-guess search may take before the game falls back to a classic layout
# (games.play.noguess; docs/NOGUESS.md). The test settings raise it: a loaded machine must not
# turn a correct search into a failed test.
NOGUESS_BUDGET_S = env_float("NOGUESS_BUDGET_S", 0.5)

INSTALLED_APPS = [
    # The staff view of fair-play reviews is the Django admin (docs/FAIRPLAY.md); it needs
    # the messages framework for its notices.
    "django.contrib.admin",
    "django.contrib.messages",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    # "Sign in with Démineur": the OAuth 2.0 authorization server (docs/API-CLIENTS.md).
    "oauth2_provider",
    "accounts",
    "games",
    "frontend",
]

MIDDLEWARE = [
    # The request id on every log line of the request and in X-Request-Id (demineur_site.logs).
    "demineur_site.logs.RequestIdMiddleware",
    # Requests and latency per route (URL name) for Prometheus (demineur_site.metrics).
    "demineur_site.metrics.RequestMetricsMiddleware",
    # Under /api/ an unexpected error is the JSON 500 body, DEBUG or not.
    "demineur_site.middleware.ApiServerErrorMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "demineur_site.middleware.ContentSecurityPolicyMiddleware",
    "demineur_site.middleware.RejectNulCharactersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Where the account is signed in: each session's row, last seen (accounts.sessions).
    "accounts.sessions.SignedInSessionMiddleware",
    # X-OAuth-Scopes on every answer to a token (accounts.scopes).
    "accounts.scopes.ScopeHeadersMiddleware",
    # With a replica: a client's reads go to the primary right after its own writes.
    "demineur_site.db_router.ReadYourWritesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "demineur_site.urls"
WSGI_APPLICATION = "demineur_site.wsgi.application"
ASGI_APPLICATION = "demineur_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
# The move's hot statements (demineur_site.rawsql.run) are bound by the server and prepared by
# psycopg after a few runs on a connection: less work per move in the worker. Turn it off
# behind a PgBouncer older than 1.21 in transaction mode (no prepared statements there).
DB_PREPARED_HOT_PATH = env_bool("DB_PREPARED_HOT_PATH", True)
# PostgreSQL: a move that neither starts nor ends its solo game is stored by a compare-and-set
# on the game's seq, without a transaction or a row lock (games.play.move_store,
# docs/PERFORMANCE.md "The move without a lock"); off, every move takes the locked path.
DB_MOVE_COMPARE_AND_SET = env_bool("DB_MOVE_COMPARE_AND_SET", True)
# Connection options of every PostgreSQL alias (the primary and its replica alike).
DATABASE_OPTIONS: dict[str, Any] = {
    "pool": env_bool("DB_POOL", False),
    "pool_max": env_int("DB_POOL_MAX", 16),
    "conn_max_age": env_int("CONN_MAX_AGE", 600),
    # PostgreSQL down or unreachable: errors (503) within seconds, never a hung worker
    # (docs/RELIABILITY.md, "PostgreSQL outage").
    "connect_timeout": env_int("DB_CONNECT_TIMEOUT", 2),
    "pool_timeout": env_float("DB_POOL_TIMEOUT", 3.0),
    "pool_check": env_bool("DB_POOL_CHECK", True),
    "pool_reconnect_timeout": env_float("DB_POOL_RECONNECT_TIMEOUT", 5.0),
}
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL, **DATABASE_OPTIONS)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # Development only (`make run`), but concurrent requests must not fail: WAL lets
            # readers run beside the writer, IMMEDIATE takes the write lock when a transaction
            # starts (no failed lock upgrade mid-transaction, which the busy timeout cannot
            # retry), and the timeout makes a writer wait for the lock instead of failing.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL;",
            },
        }
    }
# A streaming replica of the primary (docs/DEPLOYMENT.md): the reads that may lag go there
# (demineur_site.db_router); writes, transactions and a client's reads right after its own
# writes (REPLICA_PIN_SECONDS) stay on the primary. Same options as the primary.
DATABASE_REPLICA_URL = env_str("DATABASE_REPLICA_URL")
if DATABASE_REPLICA_URL:
    if not DATABASE_URL:
        raise ImproperlyConfigured("DATABASE_REPLICA_URL needs DATABASE_URL (the primary)")
    DATABASES["replica"] = database_from_url(DATABASE_REPLICA_URL, **DATABASE_OPTIONS)
    # Tests never build a second test database: the replica alias mirrors the primary's.
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["demineur_site.db_router.PrimaryReplicaRouter"]
REPLICA_PIN_SECONDS = env_int("REPLICA_PIN_SECONDS", 5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
if str(DATABASES["default"]["ENGINE"]).endswith("sqlite3"):
    # Covering indexes (INCLUDE) are a PostgreSQL feature; SQLite, for development only,
    # simply builds them without the extra columns.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]

# --- Channels -----------------------------------------------------------------------------
# REDIS_URLS (comma-separated) spreads the live events over several Redis hosts (channels-redis
# shards channels by name); REDIS_URL alone is one host. The first host also holds the cache
# (throttle counts, read-your-writes markers) and the socket caps (docs/DEPLOYMENT.md).
REDIS_URLS = redis_urls(env_list("REDIS_URLS", []), env_str("REDIS_URL"))
REDIS_URL = REDIS_URLS[0] if REDIS_URLS else ""


def _redis_prefix() -> str:
    db = urlparse(REDIS_URL).path.strip("/") or "0"
    return f"demineur{db}"


if REDIS_URL:
    # The PubSub layer: one PUBLISH per event and local fan-out in each server process
    # (shared/perf: -3% throughput instead of -20% for the core layer). Live events are
    # fire-and-forget by design; a watcher that misses one sees the gap in `seq`.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # Pub/Sub channels ignore the Redis database number: fold it into the prefix so
            # that two deployments (or test runs) on one Redis never hear each other.
            "CONFIG": {
                "hosts": list(REDIS_URLS),
                "prefix": env_str("CHANNELS_PREFIX", _redis_prefix()),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Auth ---------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/signin"

# "Sign in with Démineur" (docs/API-CLIENTS.md): public clients, the authorization code with
# PKCE (S256) and refresh tokens; its scopes are the four of a personal token (accounts.scopes).
# Each access token is also a row of the token table, so it works wherever a personal token
# does and is refused the moment it or its app is revoked (accounts.oauth).
OAUTH2_PROVIDER = {
    "OAUTH2_VALIDATOR_CLASS": "accounts.oauth.Validator",
    "SCOPES": {
        "game:play": "Play games",
        "race:play": "Race",
        "account:read": "Read the account",
        "account:write": "Change the account",
    },
    "DEFAULT_SCOPES": ["account:read"],
    "PKCE_REQUIRED": True,
    # What the metadata document (/.well-known/oauth-authorization-server) offers: only this.
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none"],
    # `dmo_` before an access token's key, as `dmn_` before a personal one's (secret scanners).
    "ACCESS_TOKEN_GENERATOR": "accounts.oauth.access_token_key",
    "REFRESH_TOKEN_GENERATOR": "oauthlib.oauth2.rfc6749.tokens.random_token_generator",
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": env_int("OAUTH_ACCESS_TOKEN_SECONDS", 3600),
    "REFRESH_TOKEN_EXPIRE_SECONDS": env_int("OAUTH_REFRESH_TOKEN_SECONDS", 30 * 24 * 3600),
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    # The consent page asks every time (no silent re-grant to an app that asks again).
    "REQUEST_APPROVAL_PROMPT": "force",
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
    # RFC 9700's recommendations: S256 only, no implicit or password grant, tokens in the
    # Authorization header only, `iss` in the answer, tokens stored as checksums only (and http
    # redirect URIs on loopback hosts only, below).
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
}
# Plain http redirect URIs are for a native app's loopback callback only (RFC 8252, 7.3):
# accounts.oauth accepts http on 127.0.0.1, [::1] and localhost only, when an app is registered
# and on every request, so the library's deploy warning about http (W008) is answered there.
SILENCED_SYSTEM_CHECKS = [*globals().get("SILENCED_SYSTEM_CHECKS", []), "oauth2_provider.W008"]
# The library's own models, named because accounts.ApiToken points at its access token (Django
# resolves a swappable model's setting when a foreign key of ours refers to it).
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"

# --- Accounts: names, sign-in and how many are made (docs/SECURITY.md) -----------
# Sign-in finds a name as players type it (accounts.names: NFKC, case, look-alikes).
AUTHENTICATION_BACKENDS = ["accounts.backends.NameBackend"]
# Where the Django admin lives (staff only); its sign-in has the API's sign-in throttles.
ADMIN_PATH = env_str("ADMIN_PATH", "admin/")
_TAKEN_PATHS = ("", "api", "ws", "static", "i18n")  # the site's own roots
if not ADMIN_PATH.endswith("/") or ADMIN_PATH.startswith("/") or ADMIN_PATH[:-1] in _TAKEN_PATHS:
    raise ImproperlyConfigured(
        f"ADMIN_PATH is a path of its own ending in /, e.g. `admin/`, not {ADMIN_PATH!r}."
    )
# New accounts per client address (accounts/throttles.py; 0 turns one off): guests (POST
# /api/auth/guest) per rolling day, and sign-ups (POST /api/auth/register without a guest) per
# rolling hour and per rolling day. The hour lets a school class sign up in one lesson behind
# its school's one address, and a refusal by it waits an hour at most; the day is the
# address's ceiling. Unset, the hourly rate is half the daily ceiling, so a deployment that
# raises or turns off the ceiling moves it too (docs/ACCOUNTS.md, Limits).
ACCOUNT_GUESTS_PER_ADDRESS_DAY = env_int("ACCOUNT_GUESTS_PER_ADDRESS_DAY", 50)
ACCOUNT_SIGNUPS_PER_ADDRESS_DAY = env_int("ACCOUNT_SIGNUPS_PER_ADDRESS_DAY", 60)
ACCOUNT_SIGNUPS_PER_ADDRESS_HOUR = env_int(
    "ACCOUNT_SIGNUPS_PER_ADDRESS_HOUR", -(-ACCOUNT_SIGNUPS_PER_ADDRESS_DAY // 2)
)
# The site-wide ceiling of new accounts per rolling hour: over it every address is refused
# (429) and the alarm goes off (a WARNING line, accounts.throttles.new_account_ceiling_refusals).
ACCOUNT_NEW_PER_HOUR = env_int("ACCOUNT_NEW_PER_HOUR", 2000)
# manage.py remove_stale_guests (docs/GUESTS.md): a guest that never played goes after this
# many idle days; one that played (never signed up) after this many, its games handed over to
# the anonymous player.
GUEST_UNPLAYED_IDLE_DAYS = env_int("GUEST_UNPLAYED_IDLE_DAYS", 7)
GUEST_PLAYED_IDLE_DAYS = env_int("GUEST_PLAYED_IDLE_DAYS", 30)
# --- The account's lifecycle (docs/ACCOUNTS.md) ---------------------------------------------
# Outgoing mail (accounts.mail: an outbox sent after the commit): SMTP when EMAIL_HOST is set,
# else Django's console backend, which writes each message to the server's standard output
# (`make run`). EMAIL_BACKEND names any other Django backend.
_EMAIL_HOST = env_str("EMAIL_HOST", "")
_EMAIL_PORT = env_int("EMAIL_PORT", 587)
_EMAIL_BACKEND = env_str("EMAIL_BACKEND", "") or (
    "django.core.mail.backends.smtp.EmailBackend"
    if _EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
_EMAIL_SMTP = {
    "host": _EMAIL_HOST,
    "port": _EMAIL_PORT,
    "username": env_str("EMAIL_HOST_USER", ""),
    "password": env_str("EMAIL_HOST_PASSWORD", ""),
    "use_tls": env_bool("EMAIL_USE_TLS", _EMAIL_PORT == 587),
    "use_ssl": env_bool("EMAIL_USE_SSL", _EMAIL_PORT == 465),
    "timeout": env_int("EMAIL_TIMEOUT", 10),
}
if django.VERSION >= (6, 1):  # Django 6.1's MAILERS (its EMAIL_* settings are deprecated)
    MAILERS = {
        "default": {
            "BACKEND": _EMAIL_BACKEND,
            "OPTIONS": _EMAIL_SMTP if _EMAIL_BACKEND.endswith("smtp.EmailBackend") else {},
        }
    }
else:  # Django 5.2 (Python 3.11)
    EMAIL_BACKEND = _EMAIL_BACKEND
    EMAIL_HOST, EMAIL_PORT = _EMAIL_HOST, _EMAIL_PORT
    EMAIL_HOST_USER, EMAIL_HOST_PASSWORD = _EMAIL_SMTP["username"], _EMAIL_SMTP["password"]
    EMAIL_USE_TLS, EMAIL_USE_SSL = _EMAIL_SMTP["use_tls"], _EMAIL_SMTP["use_ssl"]
    EMAIL_TIMEOUT = _EMAIL_SMTP["timeout"]
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Démineur <noreply@localhost>")
# The site's address in mailed links (`https://demineur.example`). Unset, a link points at the
# request's own origin only when it is one the site declared (an entry of CSRF_TRUSTED_ORIGINS,
# port included) or, with DEBUG on, when its Host names the port the request arrived on; else
# nothing is mailed (accounts.email_links.site_origin). `manage.py check --deploy` requires it
# with DEBUG off (accounts.E001).
SITE_URL = env_str("SITE_URL", "").rstrip("/")
# How long a verification link, and a password-reset link, stay valid.
EMAIL_VERIFY_HOURS = env_int("EMAIL_VERIFY_HOURS", 48)
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_MINUTES", 60) * 60
# Two-factor sign-in is required of staff accounts (the admin refuses a staff session that did
# not sign in with a code) unless this is 0; on by default with DEBUG off.
STAFF_REQUIRE_TOTP = env_bool("STAFF_REQUIRE_TOTP", not DEBUG)
# Closing an account: signing in within this many days reopens it; a deletion happens this
# many days after it was asked for (`manage.py delete_closed_accounts`, the scheduler).
ACCOUNT_REOPEN_DAYS = env_int("ACCOUNT_REOPEN_DAYS", 30)
ACCOUNT_DELETE_GRACE_DAYS = env_int("ACCOUNT_DELETE_GRACE_DAYS", 7)
for _name in (
    "ACCOUNT_GUESTS_PER_ADDRESS_DAY",
    "ACCOUNT_SIGNUPS_PER_ADDRESS_DAY",
    "ACCOUNT_SIGNUPS_PER_ADDRESS_HOUR",
    "ACCOUNT_NEW_PER_HOUR",
):
    if globals()[_name] < 0:
        raise ImproperlyConfigured(f"{_name} must be 0 (off) or more")
for _name in ("GUEST_UNPLAYED_IDLE_DAYS", "GUEST_PLAYED_IDLE_DAYS"):
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1")


def _per(count: int, period: str) -> str | None:
    """A DRF rate, or None (no limit) for 0."""
    return f"{count}/{period}" if count else None


# --- REST framework -----------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "accounts.authentication.SessionAuthentication401",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # JSON nested too deep for Python's parser is 400 malformed_json, not a RecursionError.
    "DEFAULT_PARSER_CLASSES": ["demineur_site.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "demineur_site.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "demineur_site.api_errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_CLASSES": [
        # DRF's anon and user rates, each check one atomic Redis call (demineur_site.throttling).
        "demineur_site.throttling.AnonThrottle",
        "demineur_site.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", "600/min"),
        "user": env_str("THROTTLE_USER", "6000/min"),
        # Sign-up and sign-in per client address, and sign-in per submitted username
        # (accounts/throttles.py).
        "auth": env_str("THROTTLE_AUTH", "30/min"),
        "auth_username": env_str("THROTTLE_AUTH_USERNAME", "10/min"),
        # New accounts (accounts/throttles.py; the Accounts block above).
        "guest_day": _per(ACCOUNT_GUESTS_PER_ADDRESS_DAY, "day"),
        "signup_hour": _per(ACCOUNT_SIGNUPS_PER_ADDRESS_HOUR, "hour"),
        "signup_day": _per(ACCOUNT_SIGNUPS_PER_ADDRESS_DAY, "day"),
        "new_accounts": _per(ACCOUNT_NEW_PER_HOUR, "hour"),
        # Password-reset requests per submitted address and per client address
        # (accounts/throttles.py), and the games export per client (docs/ACCOUNTS.md).
        "reset_email": env_str("THROTTLE_RESET_EMAIL", "3/hour"),
        "reset_address": env_str("THROTTLE_RESET_ADDRESS", "20/hour"),
        "games_export": env_str("THROTTLE_GAMES_EXPORT", "10/hour"),
        # Verification mails of POST /api/me/email per recipient (hashed) and per account
        # (accounts/throttles.py; docs/ACCOUNTS.md, Limits).
        "email_recipient": env_str("THROTTLE_EMAIL_RECIPIENT", "5/day"),
        "email_account": env_str("THROTTLE_EMAIL_ACCOUNT", "10/day"),
    },
    # The client address DRF throttles on: the peer, or X-Forwarded-For behind trusted proxies.
    "NUM_PROXIES": TRUSTED_PROXIES,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
if DEBUG:
    REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"].append(  # type: ignore[attr-defined]
        "rest_framework.renderers.BrowsableAPIRenderer"
    )

SPECTACULAR_SETTINGS = {
    # ASCII: a client generator makes its package name from the title (demineur-api-client).
    "TITLE": "Demineur API",
    "DESCRIPTION": (
        "The public REST API of Démineur, an online Minesweeper. The contract is API.md; the "
        "prose this schema cites, API.md, RULES.md and docs/, is on the site: "
        "[the API reference](/reference/).\n\n"
        "**Auth**: `Authorization: Token <key>` or `Authorization: Bearer <key>` (a key from "
        "`POST /api/auth/token`), or the site's session cookie with its CSRF token. Public "
        "reads need none. A token carries scopes (`game:play`, `race:play`, `account:read`, "
        "`account:write`); each operation names those it accepts (`x-scopes`), and a token "
        "without one is 403 `missing_scope` with `X-OAuth-Scopes` and "
        "`X-Accepted-OAuth-Scopes`. An app acting for other players gets their token by "
        "OAuth 2.0 (`oauth2`: the authorization code with PKCE at `/oauth/authorize/`, "
        "docs/API-CLIENTS.md), with the scopes they allowed.\n\n"
        '**Errors**: every error is `{"error": {"code", "message", "details"}}` with '
        "a stable `code`; 429 and 503 carry `Retry-After`.\n\n"
        "**Boards**: a Game's `board` is one string per row, one character per cell: `#` "
        "closed, `F` flag, `0`-`8` opened; after the end `*` a mine, `X` the mine opened, `!` "
        "a wrong flag. Coordinates: `x` is the column, `y` the row, from 0.\n\n"
        "**Live**: `/ws/games/{id}`, `/ws/races/{id}`, `/ws/arenas/{id}` (WebSockets, "
        "docs/LIVE.md) and the NDJSON streams under `/api/stream/`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI and Redoc from drf-spectacular-sidecar's static files, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two choice sets share the field name `kind`; named here so that the schema (and
    # `check --deploy --fail-level WARNING`) has no naming collision.
    "ENUM_NAME_OVERRIDES": {
        "AccountKindEnum": ["human", "bot", "guest"],
        "ChosenKindEnum": ["human", "bot"],
        "RaceStateEnum": ["open", "countdown", "running", "finished", "cancelled"],
        "RacerStateEnum": ["waiting", "racing", "won", "lost", "left"],
        "QueueStateEnum": ["waiting", "matched"],
        "PuzzleThemeEnum": ["single", "subset", "pattern", "chain", "mines_left"],
        "PuzzleAttemptStateEnum": ["playing", "solved", "failed"],
        "PuzzleRunStateEnum": ["running", "ended"],
        # "mode" is a game's (classic or no-guess) in the statistics and a puzzle attempt's way in.
        "GameModeEnum": ["classic", "no_guess"],
        "PuzzleAttemptModeEnum": ["rated", "daily", "practice", "streak", "storm"],
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "demineur_site.schema_views.paths_as_written",
        # The NDJSON streams, served by the ASGI application before Django's URLs.
        "games.live.streams.schema_paths",
        # Every operation's error answers, with the API.md error body: a client generated
        # from the schema handles them.
        "demineur_site.schema_views.document_errors",
        # Summaries and descriptions in API.md's words, scopes, headers, links, per-board
        # leaderboard paths, and the cited Markdown linked to the site's API reference.
        "demineur_site.schema_reference.describe",
    ],
}

# How long one call of the throttles' cache may wait on Redis (connect, then each reply).
# redis-py's default is 5 s: a Redis that hangs instead of refusing (a partition, `docker
# pause`) made each request that retried it wait 5 s, about one a second per process (found by
# make compose-test). A throttle call answers in well under a millisecond.
REDIS_SOCKET_TIMEOUT = env_float("REDIS_SOCKET_TIMEOUT", 0.25)

if REDIS_URL:
    # Throttle counts are shared by every worker process (a per-process cache multiplies
    # each limit by the number of workers).
    CACHES = {
        "default": {
            # Falls back to a per-process cache while Redis is away (demineur_site/cache.py).
            "BACKEND": "demineur_site.cache.RedisCacheWithFallback",
            # One host, the first of REDIS_URLS: Django's RedisCache treats further LOCATIONs
            # as read replicas of the first (writes to the first, reads anywhere), which a
            # set of independent shards is not; a throttle count read from another host would
            # be wrong. The cache's load is one INCR-sized call per request.
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_PREFIX", _redis_prefix()),
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Game service -------------------------------------------------------------------------
# Hours after which an untouched started game is closed as abandoned (RULES.md, Statistics).
GAME_IDLE_HOURS = env_int("GAME_IDLE_HOURS", 24)
# Messages a player may send over one game socket: a second on average, and in a burst.
WS_MESSAGES_PER_SECOND = env_int("WS_MESSAGES_PER_SECOND", 50)
WS_MESSAGES_BURST = env_int("WS_MESSAGES_BURST", 100)
# The WebSocket edge (games.live.guard): the largest frame read (a move is under 200 bytes;
# keep uvicorn's --ws-max-size the same), and open sockets per account and per address
# (0 turns a cap off; the count is shared through Redis when REDIS_URL is set).
WS_MAX_FRAME_BYTES = env_int("WS_MAX_FRAME_BYTES", 4096)
# NDJSON streams (games.live.streams): an empty line after this many idle seconds (API.md: 7).
STREAM_KEEPALIVE_SECONDS = 7.0
WS_MAX_SOCKETS_PER_USER = env_int("WS_MAX_SOCKETS_PER_USER", 20)
WS_MAX_SOCKETS_PER_ADDRESS = env_int("WS_MAX_SOCKETS_PER_ADDRESS", 50)
# Test-only: a fixed seed makes mine layouts deterministic. Never set in production.
GAME_TEST_SEED = env_str("GAME_TEST_SEED", "")
if GAME_TEST_SEED and not DEBUG:
    raise ImproperlyConfigured(
        "GAME_TEST_SEED makes mine layouts predictable: it is refused with DEBUG off."
    )

# The daily challenge (games.daily, docs/DAILY.md): a day's six layouts and start cells are
# drawn from an HMAC of the day and level under this secret, so nobody can compute tomorrow's
# boards. Defaults to a key derived from SECRET_KEY; a day already dealt keeps its layout.
DAILY_SECRET = (
    env_str("DAILY_SECRET", "") or hashlib.sha256(f"daily:{SECRET_KEY}".encode()).hexdigest()
)

# Measurement switch, not a feature: LIVE_EVENTS=0 publishes nothing, so bench/live can price
# the publish on the move endpoint (games.play.events). Always on in real deployments.
LIVE_EVENTS = env_bool("LIVE_EVENTS", True)

# The race clock (games.races.clock, docs/RACES.md): countdowns, starts and time limits happen
# on the server without waiting for a request. `thread` runs it inside every ASGI process
# (make run, the live workers); `off` leaves it to `manage.py race_clock` (or, in tests, to
# calls of games.races.services.race_clock_tick with a controlled clock). Several clocks are safe.
RACE_CLOCK = env_str("RACE_CLOCK", "thread")
if RACE_CLOCK not in ("thread", "off"):
    raise ImproperlyConfigured(f"RACE_CLOCK is `thread` or `off`, not {RACE_CLOCK!r}.")
RACE_CLOCK_INTERVAL_MS = env_int("RACE_CLOCK_INTERVAL_MS", 100)
# Each level's race time limit in seconds (RULES.md, Races; docs/RACES.md says why these),
# fixed on a race when it is created: `level:seconds,...` replaces some of them.
RACE_TIME_LIMITS_S = env_levels(
    "RACE_TIME_LIMITS_S",
    {
        "beginner": 300.0,
        "intermediate": 600.0,
        "hard": 900.0,
        "expert": 1200.0,
        "extreme": 1800.0,
        "marathon": 3600.0,
    },
)

# The server's own arenas (games.arenas.services.schedule_arenas, docs/ARENAS.md): a comma-
# separated list of `level:every_minutes:minutes[:no_guess][:bots]`; each makes the next arena
# of its slot (slots start at whole multiples of the period from midnight UTC). Empty: none.
ARENA_SCHEDULE: list[tuple[str, int, int, bool, str]] = []
for _slot in env_str("ARENA_SCHEDULE", "beginner:60:30,expert:1440:120").split(","):
    if not _slot.strip():
        continue
    _parts = _slot.strip().split(":")
    _flags = set(_parts[3:])
    if len(_parts) < 3 or not _parts[1].isdigit() or not _parts[2].isdigit():
        raise ImproperlyConfigured(f"ARENA_SCHEDULE: {_slot!r} is not level:every:minutes.")
    if not 20 <= int(_parts[2]) <= 180 or int(_parts[1]) < 1 or _flags - {"no_guess", "bots"}:
        raise ImproperlyConfigured(f"ARENA_SCHEDULE: {_slot!r} (minutes 20-180; no_guess, bots).")
    ARENA_SCHEDULE.append(
        (
            _parts[0],
            int(_parts[1]),
            int(_parts[2]),
            "no_guess" in _flags,
            "bots" if "bots" in _flags else "humans",
        )
    )

# --- Fair play (RULES.md, Fair play; the defaults and their sources: docs/FAIRPLAY.md) -------
# A human's won game beyond any of these limits is held for review (games.play.fairplay). The
# shipped defaults stay readable here (the fair play tests restore them); the environment may
# replace any of them.
FAIRPLAY_DEFAULTS: dict[str, Any] = {
    "MAX_BBBV_PER_S": {
        "beginner": 15.0,
        "intermediate": 12.0,
        "hard": 11.0,
        "expert": 10.0,
        "extreme": 10.0,
        "marathon": 9.0,
    },
    # The 3BV/s limit applies from this 3BV on: a tiny board gives any 3BV/s.
    "MIN_BBBV": {
        "beginner": 10,
        "intermediate": 20,
        "hard": 30,
        "expert": 40,
        "extreme": 40,
        "marathon": 100,
    },
    "MAX_MOVES_PER_SECOND": 25,
    "MIN_MEDIAN_INTERVAL_MS": 70,
    "MIN_INTERVAL_VARIATION": 0.1,
    "RHYTHM_MIN_MOVES": 30,
    # A run of FLURRY_RUN consecutive moves (or a whole game) each under FLURRY_GAP_MS apart.
    "FLURRY_GAP_MS": 40,
    "FLURRY_RUN": 8,
    # The account's last wins judged together (0: off): over PACE_WINS of them (at most 2,000
    # moves), a think time that does not grow with the hand's travel (a rank correlation
    # below MIN_PACE_CORRELATION, the flattest hand's, by 3 standard errors); over
    # PERFECT_WINS, clicks == 3BV with no flag on every one.
    "PACE_WINS": 100,
    "PACE_MIN_INTERVALS": 500,
    "MIN_PACE_CORRELATION": 0.09,
    "PERFECT_WINS": 20,
}
FAIRPLAY_MAX_BBBV_PER_S = env_levels("FAIRPLAY_MAX_BBBV_PER_S", FAIRPLAY_DEFAULTS["MAX_BBBV_PER_S"])
FAIRPLAY_MIN_BBBV = {
    k: int(v) for k, v in env_levels("FAIRPLAY_MIN_BBBV", FAIRPLAY_DEFAULTS["MIN_BBBV"]).items()
}
FAIRPLAY_MAX_MOVES_PER_SECOND = env_int(
    "FAIRPLAY_MAX_MOVES_PER_SECOND", FAIRPLAY_DEFAULTS["MAX_MOVES_PER_SECOND"]
)
FAIRPLAY_MIN_MEDIAN_INTERVAL_MS = env_int(
    "FAIRPLAY_MIN_MEDIAN_INTERVAL_MS", FAIRPLAY_DEFAULTS["MIN_MEDIAN_INTERVAL_MS"]
)
FAIRPLAY_MIN_INTERVAL_VARIATION = env_float(
    "FAIRPLAY_MIN_INTERVAL_VARIATION", FAIRPLAY_DEFAULTS["MIN_INTERVAL_VARIATION"]
)
FAIRPLAY_RHYTHM_MIN_MOVES = env_int(
    "FAIRPLAY_RHYTHM_MIN_MOVES", FAIRPLAY_DEFAULTS["RHYTHM_MIN_MOVES"]
)
FAIRPLAY_FLURRY_GAP_MS = env_int("FAIRPLAY_FLURRY_GAP_MS", FAIRPLAY_DEFAULTS["FLURRY_GAP_MS"])
FAIRPLAY_FLURRY_RUN = env_int("FAIRPLAY_FLURRY_RUN", FAIRPLAY_DEFAULTS["FLURRY_RUN"])
FAIRPLAY_PACE_WINS = env_int("FAIRPLAY_PACE_WINS", FAIRPLAY_DEFAULTS["PACE_WINS"])
FAIRPLAY_PERFECT_WINS = env_int("FAIRPLAY_PERFECT_WINS", FAIRPLAY_DEFAULTS["PERFECT_WINS"])
FAIRPLAY_PACE_MIN_INTERVALS = env_int(
    "FAIRPLAY_PACE_MIN_INTERVALS", FAIRPLAY_DEFAULTS["PACE_MIN_INTERVALS"]
)
FAIRPLAY_MIN_PACE_CORRELATION = env_float(
    "FAIRPLAY_MIN_PACE_CORRELATION", FAIRPLAY_DEFAULTS["MIN_PACE_CORRELATION"]
)
# Puzzles (docs/FAIRPLAY.md, Puzzles in machine time): an attempt is machine-paced when its
# first opening comes less than PUZZLE_MIN_THINK_MS after the puzzle was shown and each later
# one less than PUZZLE_MIN_GAP_MS after the one before; it moves no rating, and a human
# account with PUZZLE_HOLD_AFTER of them has its puzzle rating held until staff clear it.
PUZZLE_MIN_THINK_MS = env_int("PUZZLE_MIN_THINK_MS", 500)
PUZZLE_MIN_GAP_MS = env_int("PUZZLE_MIN_GAP_MS", 100)
PUZZLE_HOLD_AFTER = env_int("PUZZLE_HOLD_AFTER", 3)

# --- i18n ---------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
# The menu's languages, in its order. Their names are Django's (django.conf.locale.LANG_INFO),
# which Django's own catalogues translate; the menu itself shows each one's own name.
LANGUAGES = [
    (code, _(LANG_INFO[code]["name"]))
    for code in ("en", "fr", "es", "de", "pt-br", "zh-hans", "ja", "pl", "ms", "ca", "nl", "th")
]
LOCALE_PATHS = [BASE_DIR / "frontend" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files -------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES
# Django's CSRF refusals under /api/ are the JSON error body (403 csrf_failed).
CSRF_FAILURE_VIEW = "demineur_site.api_errors.csrf_failure"

# No secret in any log: every record is redacted (tokens in query strings, Authorization
# headers, passwords) by demineur_site.log_redaction, on our handlers and, once Django has
# configured logging, on the servers' own loggers too (uvicorn's and gunicorn's access logs).
# LOG_FORMAT=json: one JSON object per line (time, level, logger, message, request_id), the
# servers' own lines included once Django has started; `text` (the default) as before. Every
# line logged during a request carries its id either way (demineur_site.logs).
LOG_FORMAT = env_str("LOG_FORMAT", "text")
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT is `text` or `json`, not {LOG_FORMAT!r}.")
LOGGING_CONFIG = "demineur_site.log_redaction.configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "redact": {"()": "demineur_site.log_redaction.RedactSecretsFilter"},
        "request_id": {"()": "demineur_site.logs.RequestIdFilter"},
    },
    "formatters": {"json": {"()": "demineur_site.logs.JsonLines"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["redact", "request_id"],
            **({"formatter": "json"} if LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}

# Prometheus (demineur_site.metrics, docs/DEPLOYMENT.md "Metrics and logs"): GET /metrics on
# each app server's own port, never through the proxy; METRICS=0 turns it off. With several
# worker processes, PROMETHEUS_MULTIPROC_DIR names an empty directory of the server's where
# each worker writes its counts (prometheus-client reads the variable itself, too).
METRICS = env_bool("METRICS", True)
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR", "")

if not DEBUG:
    SESSION_COOKIE_HTTPONLY = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"
