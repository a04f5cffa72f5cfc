"""Links people share and the installed app: the cards' tags, the server-drawn
pictures (a running game's shows no mine), the manifest, the icons and the service worker."""

from __future__ import annotations

import re
import struct
import uuid
import zlib
from typing import Any

import pytest
from django.test import Client

from frontend.previews import BLAST, MINE, NUMBERS, PODIUM
from tests.support.boards import win
from tests.support.http import post, start
from tests.support.races import racing, tick

pytestmark = pytest.mark.django_db


def pixels(body: bytes) -> set[tuple[int, int, int]]:
    """The colours of a PNG drawn by frontend.previews (8-bit RGB, filter 0)."""
    assert body[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", body[16:24])
    idat = body.index(b"IDAT")
    (length,) = struct.unpack(">I", body[idat - 4 : idat])
    raw = zlib.decompress(body[idat + 4 : idat + 4 + length])
    assert len(raw) == height * (width * 3 + 1)
    out = set()
    for y in range(height):
        line = raw[y * (width * 3 + 1) + 1 : (y + 1) * (width * 3 + 1)]
        out |= {tuple(line[i : i + 3]) for i in range(0, len(line), 3)}
    return out  # type: ignore[return-value]


def meta(html: str, name: str) -> str | None:
    found = re.search(rf'<meta (?:property|name)="{re.escape(name)}" content="([^"]*)"', html)
    return found.group(1) if found else None


def test_a_running_games_picture_and_card_show_no_closed_cell(alice_api: Any) -> None:
    game = start(alice_api)
    client = Client()
    picture = client.get(f"/games/{game['id']}/preview.png")
    assert picture.status_code == 200 and picture["Content-Type"] == "image/png"
    assert picture["Cache-Control"] == "public, max-age=30"
    colours = pixels(picture.content)
    assert MINE not in colours and BLAST not in colours  # no mine drawn while it runs
    page = client.get(f"/games/{game['id']}").content.decode()
    assert meta(page, "og:image") == f"http://testserver/games/{game['id']}/preview.png"
    assert meta(page, "twitter:card") == "summary_large_image"
    text = meta(page, "og:description") or ""
    assert "alice" in text and "*" not in text and "#" not in text


def test_an_ended_games_picture_shows_its_board(alice_api: Any) -> None:
    game = start(alice_api)
    post(alice_api, game["id"], "resign")
    picture = Client().get(f"/games/{game['id']}/preview.png")
    assert picture.status_code == 200
    assert picture["Cache-Control"] == "public, max-age=86400"
    assert MINE in pixels(picture.content)  # the board at the end shows its mines
    replay = Client().get(f"/games/{game['id']}/replay").content.decode()
    assert (meta(replay, "og:title") or "").startswith("Replay")


def test_a_won_game_says_its_time(alice_api: Any) -> None:
    game = start(alice_api)
    win(alice_api, game["id"])
    page = Client().get(f"/games/{game['id']}").content.decode()
    assert "won" in (meta(page, "og:description") or "")
    assert set(NUMBERS.values()) & pixels(Client().get(f"/games/{game['id']}/preview.png").content)


@pytest.mark.parametrize("path", ["/games/{}/preview.png", "/races/{}/preview.png"])
def test_an_unknown_id_is_a_404_page(path: str) -> None:
    response = Client().get(path.format(uuid.uuid4()))
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_manifest_icons_and_worker() -> None:
    client = Client()
    manifest = client.get("/manifest.webmanifest")
    assert manifest["Content-Type"] == "application/manifest+json"
    body = manifest.json()
    assert body["display"] == "standalone" and body["start_url"] == "/"
    for icon in body["icons"]:
        answer = client.get(icon["src"])
        size = int(icon["sizes"].split("x")[0])
        assert answer.status_code == 200
        assert struct.unpack(">II", answer.content[16:24]) == (size, size)
    assert client.get("/icons/100.png").status_code == 404
    worker = client.get("/sw.js")
    assert worker["Content-Type"].startswith("text/javascript")
    assert worker["Cache-Control"] == "no-cache"
    assert '"/api/"' in worker.content.decode() and '"/ws/"' in worker.content.decode()
    assert "default-src 'self'" in worker["Content-Security-Policy"]  # worker-src falls back
    assert client.get("/offline").status_code == 200


def test_a_race_game_shows_no_mine_while_its_race_runs_and_the_podium_at_the_end(
    alice_api: Any, bob_api: Any
) -> None:
    race = racing(alice_api, [bob_api])
    client = Client()
    running = client.get(f"/races/{race['id']}/preview.png")
    assert running.status_code == 200 and running["Cache-Control"] == "public, max-age=30"
    assert PODIUM[0] not in pixels(running.content)
    games = {r["player"]: r["game"] for r in race["racers"]}
    post(alice_api, games["alice"], "reveal", {"x": 4, "y": 4})
    post(alice_api, games["alice"], "resign")  # alice's game has ended, the race runs on
    sealed = client.get(f"/games/{games['alice']}/preview.png")
    assert MINE not in pixels(sealed.content) and BLAST not in pixels(sealed.content)
    post(bob_api, games["bob"], "reveal", {"x": 4, "y": 4})
    post(bob_api, games["bob"], "resign")
    tick()  # the race clock closes a race whose racers have all ended
    ended = client.get(f"/races/{race['id']}/preview.png")
    assert bob_api.get(f"/api/races/{race['id']}").json()["state"] == "finished"
    assert ended["Cache-Control"] == "public, max-age=86400"
    assert PODIUM[0] in pixels(ended.content)
    page = client.get(f"/races/{race['id']}").content.decode()
    assert "Podium" in (meta(page, "og:description") or "")
    assert MINE in pixels(client.get(f"/games/{games['alice']}/preview.png").content)


def test_a_won_games_time_is_in_the_visitors_number_format(alice_api: Any) -> None:
    game = start(alice_api)
    win(alice_api, game["id"])
    english = meta(Client().get(f"/games/{game['id']}").content.decode(), "og:description")
    assert re.search(r"in \d+\.\d s\.$", english or ""), english
    french_page = Client(HTTP_ACCEPT_LANGUAGE="fr").get(f"/games/{game['id']}").content.decode()
    french = meta(french_page, "og:description") or ""
    assert re.search(r"\d+,\d\s?s", french) and not re.search(r"\d\.\d", french), french


def test_a_profile_has_a_card_with_the_name_and_the_sites_icon(alice: Any) -> None:
    page = Client().get("/players/alice").content.decode()
    assert meta(page, "og:type") == "profile"
    assert "alice" in (meta(page, "og:title") or "")
    assert "alice" in (meta(page, "og:description") or "")
    assert meta(page, "description") == meta(page, "og:description")
    assert meta(page, "og:image") == "http://testserver/icons/512.png"
    assert (meta(page, "og:image:width"), meta(page, "og:image:height")) == ("512", "512")
    assert meta(page, "twitter:card") == "summary"  # a square picture
    assert Client().get("/icons/512.png").status_code == 200


@pytest.mark.parametrize("path", ["/", "/daily", "/leaderboards"])
def test_the_home_daily_and_leaderboards_pages_have_a_description(path: str) -> None:
    english = meta(Client().get(path).content.decode(), "description") or ""
    assert (
        "Minesweeper" in english and meta(Client().get(path).content.decode(), "og:title") is None
    )
    french = Client(HTTP_ACCEPT_LANGUAGE="fr").get(path).content.decode()
    assert (meta(french, "description") or english) != english  # in the visitor's language
