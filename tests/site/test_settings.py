"""Settings come from the environment and refuse unsafe combinations at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _start(**env: str) -> subprocess.CompletedProcess[str]:
    """Import the real settings in a fresh interpreter with exactly these variables."""
    clean = {
        k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "GAME_TEST_SEED"}
    }
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import demineur_site.settings as s; print(s.DATABASES['default']['ENGINE'])",
        ],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_placeholder_secret_key_is_refused_with_debug_off():
    result = _start(DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_a_real_secret_key_starts_with_debug_off():
    result = _start(DEBUG="0", SECRET_KEY="a-real-secret-for-this-test")
    assert result.returncode == 0, result.stderr


def test_the_test_seed_is_refused_outside_debug():
    result = _start(DEBUG="0", SECRET_KEY="a-real-secret-for-this-test", GAME_TEST_SEED="7")
    assert result.returncode != 0
    assert "GAME_TEST_SEED" in result.stderr
    assert _start(DEBUG="1", GAME_TEST_SEED="7").returncode == 0


def test_without_database_url_the_site_runs_on_sqlite():
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import demineur_site.settings as s; print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'])",
        ],
        cwd=ROOT,
        env={**{k: v for k, v in env.items() if k != "REDIS_URL"}, "DEBUG": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "sqlite3" in result.stdout and "InMemoryChannelLayer" in result.stdout


def test_a_bad_boolean_fails_loudly():
    result = _start(DEBUG="maybe")
    assert result.returncode != 0
    assert "DEBUG" in result.stderr
