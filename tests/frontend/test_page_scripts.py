"""The site's scripts (frontend/static/frontend/js/, docs/FRONTEND.md, Constants and Types):
every module is checked by TypeScript (`// @ts-check`), the tiny DOM helpers are written once
(dom.js), and what the server decides reaches the scripts from the server (the page's
`<html data-site-constants>`), never from a copy written into a script."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from django.test import Client

from accounts.services import SETTINGS_DEFAULTS
from demineur_site.pagination import Pagination
from games.engine import CUSTOM_MAX_SIDE, CUSTOM_MIN_SIDE, LEVELS, custom_mines_max
from games.races import rules as race_rules

JS = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend" / "js"
SCRIPTS = sorted(JS.glob("*.js"))

# What a script that copied a server constant would say (each was in a script once).
COPIES = {
    "the race countdown": re.compile(r"COUNTDOWN_MS\s*=\s*\d"),
    "a setting's default": re.compile(r"long_press_ms:\s*\d|LONG_PRESS_MS\s*=\s*\d"),
    "the long press's range": re.compile(r"\[\s*200\s*,\s*1500\s*\]"),
    "the list of levels": re.compile(r"\"beginner\",\s*\"intermediate\""),
    "the largest page": re.compile(r"page_size=200\b"),
    "the mines a custom board keeps free": re.compile(r"\*\s*h\s*-\s*9\b"),
    "the fewest racers": re.compile(r"\bn < 2\b|\bcount < 2\b"),
}


def test_every_script_is_checked_by_typescript() -> None:
    assert SCRIPTS
    unchecked = [p.name for p in SCRIPTS if not p.read_text().startswith("// @ts-check\n")]
    assert unchecked == []


def test_the_dollar_helper_is_defined_once_in_dom_js() -> None:
    defined = [
        p.name
        for p in SCRIPTS
        if re.search(r"^(?:export\s+)?(?:const|let|var|function)\s+\$\s*[=(]", p.read_text(), re.M)
    ]
    assert defined == ["dom.js"]


def test_no_script_keeps_a_copy_of_a_server_constant() -> None:
    found = [
        f"{p.name}: {what}"
        for p in SCRIPTS
        for what, rx in COPIES.items()
        if rx.search(p.read_text())
    ]
    assert found == []


def _page_constants(client: Client, path: str) -> dict[str, object]:
    response = client.get(path)
    text = response.content.decode()
    match = re.search(r'<html[^>]*\sdata-site-constants="([^"]*)"', text)
    assert match, path
    constants: dict[str, object] = json.loads(html.unescape(match.group(1)))
    return constants


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/races", "/settings", "/no-such-page"])
def test_every_page_carries_the_servers_constants(path: str) -> None:
    constants = _page_constants(Client(), path)
    assert [(lv["name"], lv["width"], lv["height"], lv["mines"]) for lv in constants["levels"]] == [  # type: ignore[attr-defined]
        (lv.name, lv.width, lv.height, lv.mines) for lv in LEVELS.values()
    ]
    side = CUSTOM_MIN_SIDE
    assert constants["custom"] == {
        "label": "Custom",
        "min_side": CUSTOM_MIN_SIDE,
        "max_side": CUSTOM_MAX_SIDE,
        "kept_free": side * side - custom_mines_max(side, side),
    }
    assert constants["race"] == {
        "countdown_ms": race_rules.COUNTDOWN_MS,
        "min_racers": race_rules.MIN_RACERS,
        "max_racers": race_rules.MAX_RACERS,
    }
    settings = constants["settings"]
    assert settings["defaults"] == SETTINGS_DEFAULTS  # type: ignore[index]
    assert settings["long_press_ms"] == {"min": 200, "max": 1500}  # type: ignore[index]
    assert constants["max_page_size"] == Pagination.max_page_size


@pytest.mark.django_db
def test_the_level_names_come_in_the_pages_language() -> None:
    client = Client(headers={"accept-language": "pl"})
    labels = {lv["name"]: lv["label"] for lv in _page_constants(client, "/")["levels"]}  # type: ignore[attr-defined]
    assert labels["beginner"] == "Początkujący"
