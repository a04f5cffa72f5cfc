"""The bot runner as an operator runs it (demineur_client.bot, bot_config.py): a TOML file
says where, as what and how much to play, and which solver; three bots started from their
files play an arena against the real server until it ends; a signal stops the command cleanly
(it leaves the queue it waited in, and says so in one line, not one per request)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from demineur_client import AsyncClient, BotRunner, Client, DeductionSolver, NotFound
from demineur_client.bot import play, read_token
from demineur_client.bot_config import ConfigError, load_config, load_solver, parse_config
from django.utils import timezone

from games.arenas.models import Arena, ArenaEntry
from tests.support.personas import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "clients" / "python" / "src"


def _wait_for(condition: Any, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _bot_token(base: str) -> tuple[str, str]:
    """A new bot account on the server at `base`: its name and an API token."""
    name = f"cb{uuid.uuid4().hex[:10]}"
    with Client(base) as api:
        api.accounts.register(name, PASSWORD, kind="bot")
        api.accounts.sign_in(name, PASSWORD)
        return name, api.tokens.create("runner")["token"]


def test_the_config_file_is_read_and_its_mistakes_named(tmp_path: Path) -> None:
    config = parse_config(
        """
        [server]
        url = "https://demineur.example"
        token_env = "MY_BOT_TOKEN"
        [bot]
        mode = "quick"
        levels = ["beginner", "intermediate"]
        games = 3
        solver = "demineur_client.solver:DeductionSolver"
        """
    )
    assert (config.url, config.token_env, config.mode, config.how_many()) == (
        "https://demineur.example",
        "MY_BOT_TOKEN",
        "quick",
        3,
    )
    assert [config.level(n) for n in range(3)] == ["beginner", "intermediate", "beginner"]
    assert parse_config('[bot]\nmode = "arena"\narena = "Q4T7WZ"').how_many() == 0
    assert isinstance(load_solver(config.solver), DeductionSolver)
    for text, named in [
        ('[server]\ntoken = "dmn_x"', "token_env"),
        ("[bot]\ngamse = 5", "gamse"),
        ('[bot]\nmode = "blitz"', "solo, quick, arena"),
        ('[bot]\nmode = "arena"', "bot.arena"),
        ('[bot]\ngames = "five"', "bot.games"),
        ('[bot]\nsolver = "no_such_module:Solver"', None),
        ("[bots]", "bots"),
    ]:
        with pytest.raises(ConfigError) as refused:
            load_solver(parse_config(text).solver)
        assert named is None or named in str(refused.value)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(str(tmp_path / "missing.toml"))
    assert read_token(None, {"MY_BOT_TOKEN": " key \n"}, "MY_BOT_TOKEN") == "key"


def test_three_bots_from_their_config_files_play_an_arena_to_its_end(
    live: str, race_clock: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots = [_bot_token(live) for _ in range(3)]
    # Scheduled an hour ahead, brought to now once the three are in (the controlled clock), so
    # the first pairing takes all three at once.
    starts = (timezone.now() + timedelta(hours=1)).isoformat()
    with Client(live, token=bots[0][1]) as api:
        arena = api.arenas.create(
            "beginner", minutes=20, no_guess=True, starts_at=starts, players="bots"
        )
    paths = []
    for number, (_, token) in enumerate(bots):
        monkeypatch.setenv(f"ARENA_BOT_{number}", token)
        path = tmp_path / f"bot{number}.toml"
        # The first bot finds the arena by its code, the others by its id.
        where = arena["code"] if number == 0 else arena["id"]
        path.write_text(
            f'[server]\nurl = "{live}"\ntoken_env = "ARENA_BOT_{number}"\n'
            f'[bot]\nmode = "arena"\narena = "{where}"\nlevels = ["beginner"]\n'
            'solver = "demineur_client.solver:DeductionSolver"\n'
        )
        paths.append(path)
    lines: list[list[str]] = [[], [], []]
    runners: list[BotRunner] = []
    failures: list[BaseException] = []

    async def run(number: int) -> None:
        config = load_config(str(paths[number]))
        token = read_token(None, os.environ, config.token_env)
        async with AsyncClient(config.url, token=token) as api:
            runner = BotRunner(api, solver=load_solver(config.solver))
            runners.append(runner)
            await play(config, runner, report=lines[number].append)

    def run_all() -> None:
        async def gather() -> None:
            await asyncio.gather(*(run(number) for number in range(3)))

        try:
            asyncio.run(gather())
        except BaseException as exc:  # shown by the test, not lost in the thread
            failures.append(exc)

    playing = threading.Thread(target=run_all, daemon=True)
    playing.start()
    try:
        entries = ArenaEntry.objects.filter(arena_id=arena["id"])
        assert _wait_for(lambda: entries.count() == 3 or failures), failures
        now = timezone.now()
        Arena.objects.filter(pk=arena["id"]).update(starts_at=now, deadline=now)
        assert _wait_for(lambda: all(lines) or failures), (lines, failures)
        # Every bot has played a race: the arena's end brought to now.
        end = timezone.now() + timedelta(seconds=1)
        Arena.objects.filter(pk=arena["id"]).update(ends_at=end, deadline=end)
        playing.join(timeout=60)
        assert not playing.is_alive(), "a runner went on after the arena's end"
    finally:
        for runner in runners:
            runner.stop()
        playing.join(timeout=30)
    assert not failures, failures
    for number, bot_lines in enumerate(lines):
        # One line per race game: "arena <its id or code> <game> <won|lost> <ms> ms ...".
        where = arena["code"] if number == 0 else arena["id"]
        assert bot_lines and all(line.startswith(f"arena {where} ") for line in bot_lines)
        assert all(line.split()[3] in ("won", "lost") for line in bot_lines)
    with Client(live) as api:
        assert api.arenas.get(arena["id"])["state"] == "finished"
        rows = list(api.arenas.iter_standings(arena["id"], page_size=2))
    assert sorted(r["player"] for r in rows) == sorted(name for name, _ in bots)
    assert all(r["races"] >= 1 for r in rows)


def _start(base: str, token: str, tmp_path: Path, bot_table: str) -> subprocess.Popen[str]:
    """The bot command on a config file of `bot_table`'s keys, as a process of its own."""
    config = tmp_path / "bot.toml"
    config.write_text(
        f'[server]\nurl = "{base}"\ntoken_env = "QUIET_BOT_TOKEN"\n[bot]\n{bot_table}\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "DEMINEUR_TOKEN"}
    # This tree's client, and the tests' idle solver (tests/client/idle_solver.py).
    env.update(PYTHONPATH=f"{SOURCE}{os.pathsep}{ROOT}", QUIET_BOT_TOKEN=token)
    command = [sys.executable, "-m", "demineur_client.bot", "--config", str(config)]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_a_signal_stops_the_command_cleanly(live: str, tmp_path: Path) -> None:
    _, token = _bot_token(live)
    bot = _start(live, token, tmp_path, 'mode = "quick"\nlevels = ["expert"]\ngames = 0')

    def waiting(api: Client) -> bool:
        try:
            return api.races.queue_place().get("state") == "waiting"
        except NotFound:
            return False

    try:
        with Client(live, token=token) as api:
            # Alone in the expert queue, it waits for a match that never comes.
            assert _wait_for(lambda: waiting(api) or bot.poll() is not None, timeout=30)
            assert bot.poll() is None, bot.communicate()
            bot.send_signal(signal.SIGTERM)
            out, err = bot.communicate(timeout=30)
            assert bot.returncode == 0, err
            assert not waiting(api)  # it left the queue on its way out
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.communicate()
    assert "SIGTERM" in err and "stopped" in err and "Traceback" not in err
    assert "HTTP Request" not in err  # no line per request unless --verbose
    assert out == ""  # no game was played


def test_a_second_signal_resigns_the_game_in_play(live: str, tmp_path: Path) -> None:
    _, token = _bot_token(live)
    # A solver that never moves: after its first reveal the game stays in play for ever.
    solver = 'solver = "tests.client.idle_solver:Idle"'
    bot = _start(live, token, tmp_path, f'mode = "solo"\nlevels = ["expert"]\n{solver}')
    assert bot.stderr is not None and bot.stdout is not None
    err: list[str] = []
    stderr = bot.stderr
    reader = threading.Thread(target=lambda: err.extend(stderr), daemon=True)
    reader.start()
    try:
        with Client(live, token=token) as api:

            def in_play() -> list[Any]:
                return list(api.games.iter_mine(state="playing"))

            assert _wait_for(lambda: in_play() or bot.poll() is not None, timeout=30)
            assert bot.poll() is None, err
            (game,) = in_play()
            bot.send_signal(signal.SIGINT)  # the game in play would be finished first...
            # (A second signal sent before the first is handled would merge with it.)
            assert _wait_for(lambda: any("stopping after" in line for line in err), 30), err
            bot.send_signal(signal.SIGINT)  # ...but a second one resigns it
            assert bot.wait(timeout=30) == 0, err
            reader.join(timeout=10)
            ended = api.games.get(game["id"])
            assert (ended["state"], ended["end_reason"]) == ("lost", "resigned")
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    text = "".join(err)
    assert "stopping now" in text and f"resigned {game['id']}" in text
    assert "Traceback" not in text and bot.stdout.read() == ""
