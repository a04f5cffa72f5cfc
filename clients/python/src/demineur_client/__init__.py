"""Démineur's Python client (API.md): `Client` (sync) and `AsyncClient`, one attribute per
area (accounts, tokens, users, games, leaderboards, races, arenas, daily, puzzles, streams);
`GameSocket` and `RaceSocket` for the live frames; `DeductionSolver`, `PuzzleSolver` and
`BotRunner` for bots. Errors are exceptions
carrying API.md's codes (errors.py)."""

from ._transport import RetryPolicy
from .aio import AsyncClient
from .bot import BotRunner, PuzzleResult
from .client import Client
from .errors import (
    ApiError,
    BadRequest,
    Conflict,
    DemineurError,
    Forbidden,
    NotFound,
    NotSignedIn,
    RequestTimeout,
    StreamEnded,
    Throttled,
    TransportError,
    Unavailable,
)
from .sockets import GameSocket, RaceSocket
from .solver import Decision, DeductionSolver, PuzzleSolver, Solver

__all__ = [
    "ApiError",
    "AsyncClient",
    "BadRequest",
    "BotRunner",
    "Client",
    "Conflict",
    "Decision",
    "DeductionSolver",
    "DemineurError",
    "Forbidden",
    "GameSocket",
    "NotFound",
    "NotSignedIn",
    "PuzzleResult",
    "PuzzleSolver",
    "RaceSocket",
    "RequestTimeout",
    "RetryPolicy",
    "Solver",
    "StreamEnded",
    "Throttled",
    "TransportError",
    "Unavailable",
]
