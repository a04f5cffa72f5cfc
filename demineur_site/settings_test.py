"""Settings for the test suite: the real settings with a test-only secret key."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("THROTTLE_ANON", "100000/min")
os.environ.setdefault("THROTTLE_USER", "100000/min")
os.environ.setdefault("THROTTLE_AUTH", "100000/min")

from .settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
