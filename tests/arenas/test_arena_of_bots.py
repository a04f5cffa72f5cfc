"""A whole arena of nine bots over the real server (uvicorn on a thread of the test process,
tests/support/browser.py) with the race clock running beside it as in a server's process
(tests/support/races.py): they join over HTTP, the clock pairs them with no request, each
bot plays the race it is given through the Games endpoints, the test brings the arena's end
forward (the controlled clock), and the podium stands in REST, on the arena's socket feed and
on each bot's event stream."""

from __future__ import annotations

import json
import threading
import time
import uuid
from datetime import timedelta
from typing import Any

import httpx
from demineur_client import DeductionSolver
from django.utils import timezone

from games.arenas import rules
from games.arenas.models import Arena, ArenaEntry, ArenaResult
from games.races.models import Race, Racer
from tests.support.personas import PASSWORD

BOTS = 9  # the first pairing splits them 5 + 4 (split_sizes: from nine on, races of four or more)
# Races each bot is given before the end is brought forward. One: the first pairing of the
# whole pool is this test's subject; pairings of players back in the pool, rematches included,
# are tests/arenas/test_arena_flow.py's, and a second race in two browsers is
# tests/browser/test_arenas.py's.
ROUNDS = 1
WORKERS = 4  # threads stepping the bots


def _bot(base: str, name: str) -> httpx.Client:
    api = httpx.Client(base_url=base, timeout=20)
    made = api.post("/api/auth/register", json={"username": name, "password": PASSWORD})
    assert made.status_code == 201, made.text
    token = api.post("/api/auth/token", json={"username": name, "password": PASSWORD}).json()
    api.headers["Authorization"] = f"Token {token['token']}"
    assert api.patch("/api/me", json={"kind": "bot"}).status_code == 200
    return api


class Bot:
    """One bot, stepped by a worker thread with others (a few requests at a time, not twenty:
    the test database's connections are shared). It plays to win with the client's deduction
    solver (a no-guess arena: it never needs to guess), or reveals one cell of its own and
    resigns. No bot reads the database."""

    def __init__(self, api: httpx.Client, name: str, *, win: bool) -> None:
        self.api, self.name, self.win = api, name, win
        self.played: list[str] = []
        self.game: str | None = None
        self.done = False
        self.resets = 0  # requests lost to a reset connection, tried again
        # Races a resigning bot won all the same: its one reveal opened the last safe cells of
        # a board the race's opening had nearly cleared (no resign is left to make then).
        self.won_anyway: list[str] = []
        # Races that ended before this bot's resign reached the server (it did not leave them).
        self.ended_first: list[str] = []
        self.solver = DeductionSolver()

    def step(self, arena_id: str) -> None:
        if self.game is not None:
            self._move()
            return
        arena = self.api.get(f"/api/arenas/{arena_id}").json()
        if arena.get("state") == "finished":
            self.done = True
            return
        race_id = (arena.get("me") or {}).get("race")
        if race_id and race_id not in self.played:
            race = self.api.get(f"/api/races/{race_id}").json()
            if race.get("state") == "running":
                self.game = next(r["game"] for r in race["racers"] if r["player"] == self.name)
                self.played.append(race_id)

    def _move(self) -> None:
        game = self.api.get(f"/api/games/{self.game}").json()
        decision = (
            self.solver.decide(game["board"], game["mines_left"])
            if game.get("state") == "playing"
            else None
        )
        cells = (sorted(decision.reveal) or [decision.guess]) if decision else []
        if not cells or cells == [None]:
            self.game = None
            return
        for x, y in cells if self.win else cells[:1]:
            moved = self.api.post(f"/api/games/{self.game}/reveal", json={"x": x, "y": y})
        if not self.win:
            if moved.status_code == 200 and moved.json()["game"]["state"] == "won":
                self.won_anyway.append(self.played[-1])
            else:
                resigned = self.api.post(f"/api/games/{self.game}/resign")
                if resigned.status_code == 409:
                    # The race ended before the resign arrived (a winner cleared their board
                    # first: on a busy machine a bot's two requests can take that long). The
                    # game is over already, and the bot did not leave it.
                    state = self.api.get(f"/api/games/{self.game}").json()["state"]
                    assert state != "playing", (resigned.text, state)
                    self.ended_first.append(self.played[-1])
                else:
                    assert resigned.status_code == 200, (resigned.text, moved.text)
            self.game = None


def _work(bots: list[Bot], arena_id: str, halt: threading.Event, errors: list[str]) -> None:
    """Step the bots until they are done, or the test is over (passed or not: a worker left
    running would go on loading the server under the tests that follow)."""
    while not halt.is_set() and not all(b.done for b in bots):
        playing = any(b.game is not None for b in bots)
        for bot in bots:
            if not bot.done and not halt.is_set():
                try:
                    bot.step(arena_id)
                except httpx.TransportError:
                    # A kept-alive connection the server closed as the bot reused it (a
                    # reset): a client tries again, at its next step.
                    bot.resets += 1
                except Exception as exc:  # anything else fails the test, with what it was
                    errors.append(f"{bot.name}: {exc!r}")
                    return
        # Between races a bot only asks whether it was paired: a few times a second is enough
        # (asked fifty times a second by nine bots, the polls took the server's time from the
        # moves of the bots that were racing).
        time.sleep(0.02 if playing else 0.25)


def _pool_view(arena_id: str) -> list[tuple[Any, ...]]:
    """What the server holds of each entry: for the message of a failed wait."""
    return list(
        ArenaEntry.objects.filter(arena_id=arena_id)
        .order_by("player__username")
        .values_list("player__username", "active", "race_id", "waiting_since", "eligible_at")
    )


def _read_stream(
    base: str, token: str, out: list[dict[str, Any]], stop: threading.Event, up: threading.Event
) -> None:
    headers = {"Authorization": f"Token {token}"}
    with httpx.stream("GET", base + "/api/stream/event", headers=headers, timeout=60) as answer:
        # The answer's headers leave the server once the stream has joined the player's group:
        # from here on no event of theirs is missed.
        up.set()
        for line in answer.iter_lines():
            if line.strip():
                out.append(json.loads(line))
            if stop.is_set() or (out and out[-1]["type"] == "arena_end"):
                return


def test_nine_bots_race_an_arena_from_the_start_to_the_podium(live: str, race_clock: Any) -> None:
    prefix = uuid.uuid4().hex[:6]
    clients = [_bot(live, f"ab{prefix}{i:02d}") for i in range(BOTS)]
    # It starts in an hour; once everyone is in the pool the test brings the start to now
    # (the controlled clock), so the first pairing splits nine: 5 + 4.
    starts = (timezone.now() + timedelta(hours=1)).isoformat()
    body = {"level": "beginner", "minutes": 20, "no_guess": True, "starts_at": starts}
    arena = clients[0].post("/api/arenas", json=body).json()
    assert arena["state"] == "scheduled" and arena["players"] == "bots"
    # One bot follows its event stream throughout.
    events: list[dict[str, Any]] = []
    stop, up = threading.Event(), threading.Event()
    token = clients[1].headers["Authorization"].split()[1]
    reader = threading.Thread(
        target=_read_stream, args=(live, token, events, stop, up), daemon=True
    )
    reader.start()
    assert up.wait(timeout=30), "the event stream never answered"
    for api in clients:
        assert api.post(f"/api/arenas/{arena['id']}/join").status_code == 200
    assert clients[0].get(f"/api/arenas/{arena['id']}").json()["state"] == "scheduled"
    now = timezone.now()
    Arena.objects.filter(pk=arena["id"]).update(starts_at=now, deadline=now)
    names = [f"ab{prefix}{i:02d}" for i in range(BOTS)]
    bots = [Bot(api, names[i], win=i % 4 == 0) for i, api in enumerate(clients)]
    halt = threading.Event()
    errors: list[str] = []
    threads = [
        threading.Thread(
            target=_work, args=(bots[i::WORKERS], arena["id"], halt, errors), daemon=True
        )
        for i in range(WORKERS)
    ]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 240
        while (
            min(len(b.played) for b in bots) < ROUNDS and time.monotonic() < deadline and not errors
        ):
            time.sleep(0.2)
        assert not errors, errors
        assert min(len(b.played) for b in bots) >= ROUNDS, (
            [len(b.played) for b in bots],
            _pool_view(arena["id"]),
        )
        # The controlled clock: the arena's end brought to now. Races still on end and count.
        end = timezone.now() + timedelta(seconds=1)
        Arena.objects.filter(pk=arena["id"]).update(ends_at=end, deadline=end)
        while Arena.objects.get(pk=arena["id"]).state != "finished" and time.monotonic() < deadline:
            time.sleep(0.2)
        for thread in threads:
            thread.join(timeout=30)
    finally:
        halt.set()
        stop.set()
    reader.join(timeout=15)
    assert not errors, errors

    final = clients[0].get(f"/api/arenas/{arena['id']}").json()
    assert final["state"] == "finished" and final["joined"] == BOTS
    # Every race of the arena: 2-8 bots, rated among the bots, the first round 5 + 4.
    races = list(Race.objects.filter(arena_id=arena["id"]).order_by("created_at"))
    sizes = [Racer.objects.filter(race=r).count() for r in races]
    assert sorted(sizes[:2], reverse=True) == [5, 4]
    assert all(2 <= s <= 8 for s in sizes)
    assert all(r.rated and r.state in ("finished", "cancelled") for r in races)
    # The standings are the points rules' fold of each bot's results, in order.
    page = clients[5].get(f"/api/arenas/{arena['id']}/standings", params={"page_size": 200})
    rows = page.json()["results"]
    assert [r["rank"] for r in rows] == list(range(1, BOTS + 1))
    for row in rows:
        entry = ArenaEntry.objects.get(arena_id=arena["id"], player__username=row["player"])
        results = ArenaResult.objects.filter(entry=entry).order_by("started_at", "id")
        folded = rules.standing(
            [rules.RaceResult(r.place, r.takers, r.took_part, r.left) for r in results]
        )
        assert (row["score"], row["races"], row["wins"]) == (
            folded.score,
            folded.races,
            folded.wins,
        )
        assert entry.final_rank == row["rank"]
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]
    # Resigning is leaving: the bots that resign score nothing, those that clear score.
    by_name = {r["player"]: r for r in rows}
    leavers = [b for b in bots if not b.win and not b.won_anyway and not b.ended_first]
    assert {by_name[b.name]["score"] for b in leavers} <= {0}
    assert all(by_name[b.name]["score"] > 0 for b in bots if b.won_anyway)
    assert all(by_name[b.name]["score"] > 0 for b in bots if b.win)
    assert {r["player"] for r in rows[:3]} <= {b.name for b in bots if b.win}
    assert page.json()["me"]["player"] == f"ab{prefix}05"
    # The bot's event stream saw its pairings and the end.
    kinds = [e["type"] for e in events]
    assert kinds.count("arena_race") >= ROUNDS and kinds[-1] == "arena_end"
    assert "race_start" in kinds and "race_end" in kinds
    assert events[-1]["arena"]["state"] == "finished"
