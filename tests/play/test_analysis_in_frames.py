"""The analysis over sockets and pages: a running game's `state` frame carries `analysis:
null` even when an analysis row exists, the `ended` frame carries null (it is made after
the commit), and a watcher who connects once it is made gets it in the `state`."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.play import services
from games.play.analysis_jobs import analyse_game
from games.play.models import GameAnalysis
from tests.support.sockets import connected, game_path, next_of, rest_move, socket

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.usefixtures("close_thread_connections")
async def test_frames_carry_the_analysis_only_once_the_game_has_ended(alice, new_game, client):
    game = await new_game(alice)
    await rest_move(alice, game, "reveal", 4, 4)
    await database_sync_to_async(GameAnalysis.objects.create)(game=game, moves=[])
    watcher = socket(game_path(game))
    state = await connected(watcher)
    assert state["game"]["state"] == "playing" and state["game"]["analysis"] is None
    page = await database_sync_to_async(client.get)(f"/games/{game.id}")
    assert b"p_mine" not in page.content and b"forced_guess" not in page.content
    await database_sync_to_async(GameAnalysis.objects.filter(game=game).delete)()

    await database_sync_to_async(services.game_resign)(game_id=game.id, player=alice)
    assert (await next_of(watcher, "move"))["action"] == "resign"
    ended = await next_of(watcher, "ended")
    assert ended["game"]["state"] == "lost" and ended["game"]["analysis"] is None
    await watcher.disconnect()

    assert await database_sync_to_async(analyse_game)(game.id)
    late = socket(game_path(game))
    analysis = (await connected(late))["game"]["analysis"]
    assert [m["seq"] for m in analysis["moves"]] == [1]  # the first tap; the resign is no move
    await late.disconnect()
