"""The bot runner's configuration file (TOML, read with tomllib), as an operator writes it:

    [server]
    url = "https://demineur.example"
    token_env = "DEMINEUR_TOKEN"     # the environment variable that holds the API token

    [bot]
    mode = "solo"                     # solo, quick (quick match) or arena
    levels = ["beginner", "intermediate"]   # played in turn
    no_guess = false
    games = 10                        # 0: until stopped; default 1 (an arena: 0, until it ends)
    arena = "Q4T7WZ"                  # mode arena: the arena's id or code
    solver = "demineur_client.solver:DeductionSolver"   # package.module:Class

The token itself is never in the file nor on the command line: the file names the environment
variable to read it from (a file kept beside the code is easily shared or committed)."""

from __future__ import annotations

import importlib
import tomllib
from dataclasses import dataclass, field
from typing import Any, cast

from .solver import Solver

MODES = ("solo", "quick", "arena")
DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_TOKEN_ENV = "DEMINEUR_TOKEN"
DEFAULT_SOLVER = "demineur_client.solver:DeductionSolver"


class ConfigError(ValueError):
    """A configuration the runner cannot use: the message names the key and what it takes."""


@dataclass
class BotConfig:
    url: str = DEFAULT_URL
    token_env: str = DEFAULT_TOKEN_ENV
    mode: str = "solo"
    levels: list[str] = field(default_factory=lambda: ["beginner"])
    no_guess: bool = False
    games: int | None = None  # None: the mode's default (1; an arena's races: until it ends)
    arena: str | None = None
    solver: str = DEFAULT_SOLVER

    def how_many(self) -> int:
        """Games (races, in an arena) to play: 0 for no limit."""
        if self.games is not None:
            return self.games
        return 0 if self.mode == "arena" else 1

    def level(self, number: int) -> str:
        """The level of the `number`-th game (from 0): the levels in turn."""
        return self.levels[number % len(self.levels)]


def _take(table: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = table.pop(key)
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        raise ConfigError(f"{where}.{key} must be a {kind.__name__}, not {value!r}")
    return value


def parse_config(text: str) -> BotConfig:
    """The configuration in `text` (TOML). Unknown keys are refused rather than ignored: a
    misspelt `gamse = 5` would otherwise play the default silently."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not TOML: {exc}") from None
    config = BotConfig()
    server = dict(data.pop("server", {}))
    bot = dict(data.pop("bot", {}))
    if data:
        raise ConfigError(f"unknown sections: {', '.join(sorted(data))} (server, bot)")
    if "token" in server or "token" in bot:
        raise ConfigError(
            "a token in the file is refused: name its environment variable (server.token_env)"
        )
    for key in ("url", "token_env"):
        if key in server:
            setattr(config, key, _take(server, key, str, "server"))
    fields: tuple[tuple[str, type], ...] = (
        ("mode", str),
        ("levels", list),
        ("no_guess", bool),
        ("games", int),
        ("arena", str),
        ("solver", str),
    )
    for key, kind in fields:
        if key in bot:
            setattr(config, key, _take(bot, key, kind, "bot"))
    for where, rest in (("server", server), ("bot", bot)):
        if rest:
            raise ConfigError(f"unknown keys in [{where}]: {', '.join(sorted(rest))}")
    check(config)
    return config


def check(config: BotConfig) -> None:
    if config.mode not in MODES:
        raise ConfigError(f"bot.mode must be one of {', '.join(MODES)}, not {config.mode!r}")
    if not config.levels or not all(isinstance(level, str) for level in config.levels):
        raise ConfigError("bot.levels must be a list of level names, as ['beginner']")
    if config.games is not None and config.games < 0:
        raise ConfigError("bot.games must be 0 (until stopped) or more")
    if config.mode == "arena" and not config.arena:
        raise ConfigError("bot.mode = 'arena' needs bot.arena: the arena's id or code")


def load_config(path: str) -> BotConfig:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    return parse_config(text)


def load_solver(spec: str) -> Solver:
    """A solver named `package.module:Class` (or `package.module:function`), called with no
    arguments; what it makes must have `decide(board, mines)`."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ConfigError(f"a solver is named package.module:Class, not {spec!r}")
    try:
        made = getattr(importlib.import_module(module_name), attribute)()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot load the solver {spec}: {exc}") from None
    if not callable(getattr(made, "decide", None)):
        raise ConfigError(f"the solver {spec} has no decide(board, mines) method")
    return cast(Solver, made)
