"""Settings read from files (Docker and Swarm secrets, docs/DEPLOYMENT.md "Swarm"): NAME_FILE
names a file whose content is the setting; a URL without a password takes DATABASE_PASSWORD or
DATABASE_PASSWORD_FILE. Checked on the reader and on a real start of the settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from demineur_site.env import database_from_url, env_str

ROOT = Path(__file__).resolve().parents[2]


def test_a_file_named_by_name_file_wins_over_the_variable(tmp_path, monkeypatch):
    secret = tmp_path / "secret_key"
    secret.write_text("from-the-file\n")
    monkeypatch.setenv("X_TEST_SECRET", "placeholder")
    assert env_str("X_TEST_SECRET") == "placeholder"
    monkeypatch.setenv("X_TEST_SECRET_FILE", str(secret))
    assert env_str("X_TEST_SECRET") == "from-the-file"


@pytest.mark.parametrize("content", [None, ""])
def test_a_missing_or_empty_secret_file_fails_at_start_up(tmp_path, monkeypatch, content):
    path = tmp_path / "secret"
    if content is not None:
        path.write_text(content)
    monkeypatch.setenv("X_TEST_SECRET_FILE", str(path))
    with pytest.raises(ImproperlyConfigured, match="X_TEST_SECRET_FILE"):
        env_str("X_TEST_SECRET")


def test_a_database_url_without_a_password_takes_the_password_secret(tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_PASSWORD", raising=False)
    monkeypatch.delenv("DATABASE_PASSWORD_FILE", raising=False)
    assert database_from_url("postgres://demineur@db:5432/demineur", pool=False)["PASSWORD"] == ""
    secret = tmp_path / "db_password"
    secret.write_text("s3cret:/@\n")
    monkeypatch.setenv("DATABASE_PASSWORD_FILE", str(secret))
    config = database_from_url("postgres://demineur@db:5432/demineur", pool=False)
    assert config["PASSWORD"] == "s3cret:/@" and config["USER"] == "demineur"
    # A password in the URL is the URL's own.
    assert database_from_url("postgres://u:inurl@db/d", pool=False)["PASSWORD"] == "inurl"


def test_the_settings_start_with_the_secret_key_and_password_from_files(tmp_path):
    key, password = tmp_path / "secret_key", tmp_path / "db_password"
    key.write_text("a-long-secret-key-read-from-a-file-0123456789\n")
    password.write_text("pw-from-file\n")
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DATABASE_PASSWORD"}}
    env.update(
        DEBUG="0",
        SECRET_KEY_FILE=str(key),
        DATABASE_URL="postgres://demineur@127.0.0.1:5432/demineur",
        DATABASE_PASSWORD_FILE=str(password),
        DJANGO_SETTINGS_MODULE="demineur_site.settings",
    )
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SECRET_KEY); print(s.DATABASES['default']['PASSWORD'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "a-long-secret-key-read-from-a-file-0123456789",
        "pw-from-file",
    ]
    # Without the file (and no SECRET_KEY), DEBUG off refuses the placeholder as before.
    env.pop("SECRET_KEY_FILE")
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr
