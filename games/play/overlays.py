"""The replay's probability overlay as the server keeps and shows it (docs/ANALYSIS.md, The
probability overlay): :func:`store` writes a game's overlay (games.play.probabilities) beside its
analysis, in the analysis worker's transaction, off the request path; GET
/api/games/{id}/probabilities?step=N answers one step of it.

It is shown where the analysis is and nowhere else: never before the end (409
`game_not_over`, to everyone, the player included), never for a race or daily game still
sealed (403 `race_running` / `daily_running`, its own player included: a race's racers share
one layout, and a finished racer's chances would be a solver's help to a racer still playing
it), and 404 `not_found` until the analysis has stored it (or for a game analysed before the
overlay was kept)."""

from __future__ import annotations

import logging
import time
from typing import Any

from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.serializers import ErrorOut
from games.engine import Board
from games.errors import GameError
from games.play import probabilities, selectors
from games.play.analysis import MoveIn
from games.play.models import Game, GameProbabilities, Move

log = logging.getLogger(__name__)


def build(game: Game) -> probabilities.Overlay:
    """The overlay of an ended game, from its stored layout and moves."""
    layout = Board.decode(bytes(game.board)).to_ascii()
    moves = [
        MoveIn(seq, action, x, y, flagged)
        for seq, action, x, y, flagged in Move.objects.filter(game_id=game.pk)
        .order_by("seq")
        .values_list("seq", "action", "x", "y", "flagged")
    ]
    return probabilities.overlay(width=game.width, height=game.height, layout=layout, moves=moves)


def store(game: Game) -> None:
    """Compute and keep `game`'s overlay (inside the caller's transaction). A failure is
    logged and keeps nothing: the analysis it rides with is stored all the same."""
    started = time.perf_counter()
    try:
        with transaction.atomic():
            made = build(game)
            offsets, at = [], 0
            for chunk in made.chunks:
                offsets.append(at)
                at += len(chunk)
            GameProbabilities.objects.update_or_create(
                game=game,
                defaults={
                    "steps": made.steps,
                    "chunk": probabilities.CHUNK,
                    "offsets": offsets,
                    "data": b"".join(made.chunks),
                    "exact": made.exact,
                    "compute_ms": round((time.perf_counter() - started) * 1000),
                },
            )
    except Exception:
        log.exception("the probability overlay of game %s failed", game.pk)


def backlog() -> Any:
    """The ids of the analysed games without an overlay (analysed before it was kept), oldest
    end first: what `manage.py analyse_games --overlays` gives one."""
    return (
        Game.objects.filter(analysis__isnull=False, probabilities__isnull=True, sealed=False)
        .order_by("ended_at", "id")
        .values_list("id", flat=True)
    )


def backfill(game_id: Any) -> bool:
    """Give one analysed game its overlay, once (its row claimed as the worker claims it)."""
    with transaction.atomic():
        game = selectors.claim_game(game_id, analysis__isnull=False, probabilities__isnull=True)
        if game is None:
            return False
        store(game)
    return GameProbabilities.objects.filter(game_id=game_id).exists()


def step_dict(game: Game, row: GameProbabilities, step: int) -> dict[str, Any]:
    """One step of a stored overlay as the API answers it."""
    data = bytes(row.data)
    index = step // row.chunk
    end = row.offsets[index + 1] if index + 1 < len(row.offsets) else len(data)
    grid = probabilities.step_grid(
        data[row.offsets[index] : end], step % row.chunk, game.width * game.height
    )
    return {
        "game": str(game.id),
        "step": step,
        "steps": row.steps,
        "width": game.width,
        "height": game.height,
        "exact": row.exact,
        "p_mine": probabilities.chances(grid, game.width),
    }


def _step(raw: str | None, steps: int) -> int:
    if raw is None or not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        raise GameError("invalid", "step must be an integer from 0.")
    step = int(raw)
    if step >= steps:
        raise GameError("invalid", f"This game's steps are 0 to {steps - 1}.")
    return step


class ProbabilitiesOut(serializers.Serializer[Any]):
    """One step of an ended game's replay with every closed cell's chance of being a mine,
    given the numbers open then and the count of mines (docs/ANALYSIS.md, The probability
    overlay)."""

    game = serializers.CharField(help_text="The game's id.")
    step = serializers.IntegerField(
        help_text="The position after the game's first `step` moves, pauses and resumes left out (0: before the first tap)."
    )
    steps = serializers.IntegerField(help_text="How many steps the game has (0 to steps - 1).")
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    exact = serializers.BooleanField(
        help_text="False when ms-toollib's routine answered a step too large to enumerate."
    )
    p_mine = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(allow_null=True)),
        help_text="Rows of cells: a closed cell's chance of a mine (0 to 1, to the half percentage point; 0 and 1 only for a certainty), null for an opened cell. Flagged cells are closed cells.",
    )


class ProbabilitiesView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "step", int, required=True, description="The step, from 0 to `steps` - 1."
            )
        ],
        responses={
            200: ProbabilitiesOut,
            400: ErrorOut,
            403: ErrorOut,
            404: ErrorOut,
            409: ErrorOut,
        },
        operation_id="games_probabilities",
        tags=["games"],
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id=game_id)
        viewer_id = request.user.pk if request.user.is_authenticated else None
        selectors.check_moves_visible(game=game, viewer_id=viewer_id)
        if not game.ended:
            raise GameError("game_not_over", "The probabilities are shown once the game has ended.")
        if game.sealed:  # its own player too (the module's docstring)
            raise selectors.sealed_error(game)
        row = GameProbabilities.objects.filter(game_id=game.pk).first()
        if row is None:
            raise GameError("not_found", "This game's probabilities are not there (yet).")
        return Response(step_dict(game, row, _step(request.query_params.get("step"), row.steps)))


__all__ = [
    "ProbabilitiesOut",
    "ProbabilitiesView",
    "backfill",
    "backlog",
    "build",
    "step_dict",
    "store",
]
