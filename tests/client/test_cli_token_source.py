"""The bot's command (demineur_client.bot) never takes its token on the command line, where
every local user can read it (`ps`): it reads DEMINEUR_TOKEN or `--token-file` (`-` for
standard input), refuses `--token` with a message that says where the token goes, and says
so when there is none. The command runs as a process of its own, from this tree's client,
against the real site."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from accounts.models import User
from accounts.services import token_issue

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "clients" / "python" / "src"
SECRET = "dmn_not-a-real-token-0123456789"


def _bot(
    *args: str, token_env: str | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DEMINEUR_TOKEN"}
    env["PYTHONPATH"] = str(SOURCE)  # this tree's client, whatever is installed
    if token_env is not None:
        env["DEMINEUR_TOKEN"] = token_env
    return subprocess.run(
        [sys.executable, "-m", "demineur_client.bot", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin if stdin is not None else "",
        timeout=120,
    )


@pytest.fixture
def bot_token(db: object) -> str:
    robot = User.objects.create_user(username="robot", password=None, kind="bot")
    return token_issue(user=robot)[1]


def _played_one_game(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("1/1 ")]
    assert line.split()[2] in ("won", "lost")


def test_a_token_on_the_command_line_is_refused_and_says_where_it_goes(live: str) -> None:
    for form in (["--token", SECRET], [f"--token={SECRET}"]):
        done = _bot("--url", live, *form)
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert "--token is refused" in done.stderr
        assert "DEMINEUR_TOKEN" in done.stderr and "--token-file" in done.stderr
        assert SECRET not in done.stderr + done.stdout  # the refusal never repeats it
    # Not even beside a good source of a token: the one on the command line is already seen.
    done = _bot("--url", live, "--token", SECRET, token_env=SECRET)
    assert done.returncode == 2 and "--token is refused" in done.stderr


def test_without_a_token_the_bot_says_where_to_put_one(live: str, tmp_path: Path) -> None:
    done = _bot("--url", live)
    assert done.returncode == 2
    assert "DEMINEUR_TOKEN" in done.stderr and "--token-file" in done.stderr
    empty = tmp_path / "token"
    empty.write_text("\n")
    missing = tmp_path / "nowhere"
    for path in (empty, missing):
        done = _bot("--url", live, "--token-file", str(path))
        assert done.returncode == 2 and str(path) in done.stderr
        assert "Traceback" not in done.stderr


def test_the_bot_plays_with_a_token_from_the_environment(live: str, bot_token: str) -> None:
    _played_one_game(_bot("--url", live, "--games", "1", token_env=bot_token))


def test_the_bot_plays_with_a_token_from_a_file_or_standard_input(
    live: str, bot_token: str, tmp_path: Path
) -> None:
    path = tmp_path / "token"
    path.write_text(f"{bot_token}\n")
    path.chmod(0o600)
    # The file wins over the environment (here a wrong token there).
    _played_one_game(_bot("--url", live, "--token-file", str(path), token_env=SECRET))
    _played_one_game(_bot("--url", live, "--token-file", "-", stdin=f"{bot_token}\n"))
