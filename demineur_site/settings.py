"""Settings, all from the environment.

With no DATABASE_URL / REDIS_URL the site runs on SQLite and the in-memory channel layer;
with them, on PostgreSQL and Redis. DEBUG is off unless asked for, and with DEBUG off the
site refuses to start on the placeholder SECRET_KEY.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from .env import database_from_url, env_bool, env_int, env_list, env_str

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

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "channels",
    "accounts",
    "games",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "demineur_site.middleware.RejectNulCharactersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
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
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL, pool=env_bool("DB_POOL", False))}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": {"timeout": 20},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
if str(DATABASES["default"]["ENGINE"]).endswith("sqlite3"):
    # Covering indexes (INCLUDE) are a PostgreSQL feature; SQLite, for development only,
    # simply builds them without the extra columns.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]

# --- Channels -----------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")


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
            "CONFIG": {"hosts": [REDIS_URL], "prefix": env_str("CHANNELS_PREFIX", _redis_prefix())},
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

# --- REST framework -----------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "accounts.authentication.SessionAuthentication401",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "demineur_site.pagination.Pagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "demineur_site.api_errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", "600/min"),
        "user": env_str("THROTTLE_USER", "6000/min"),
        "auth": env_str("THROTTLE_AUTH", "30/min"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
if DEBUG:
    REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"].append(  # type: ignore[attr-defined]
        "rest_framework.renderers.BrowsableAPIRenderer"
    )

SPECTACULAR_SETTINGS = {
    "TITLE": "Démineur API",
    "DESCRIPTION": "The public REST API of Démineur. Contract: shared/API.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "demineur_site.schema_views.paths_as_written",
    ],
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Game service -------------------------------------------------------------------------
# Hours after which an untouched started game is closed as abandoned (RULES.md, Statistics).
GAME_IDLE_HOURS = env_int("GAME_IDLE_HOURS", 24)
# Messages a player may send over one game socket: a second on average, and in a burst.
WS_MESSAGES_PER_SECOND = env_int("WS_MESSAGES_PER_SECOND", 50)
WS_MESSAGES_BURST = env_int("WS_MESSAGES_BURST", 100)
# Test-only: a fixed seed makes mine layouts deterministic. Never set in production.
GAME_TEST_SEED = env_str("GAME_TEST_SEED", "")
if GAME_TEST_SEED and not DEBUG:
    raise ImproperlyConfigured(
        "GAME_TEST_SEED makes mine layouts predictable: it is refused with DEBUG off."
    )

# --- i18n ---------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("pl", _("Polish")),
    ("ms", _("Malay")),
    ("ca", _("Catalan")),
    ("nl", _("Dutch")),
    ("th", _("Thai")),
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

DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}

if not DEBUG:
    SESSION_COOKIE_HTTPONLY = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"
