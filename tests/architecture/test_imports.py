"""The house in rooms (docs/ARCHITECTURE.md, The rooms): no import circle anywhere, and every
import points one way, site <- engine <- accounts <- kit <- boards <- play <- puzzles <- daily <-
races <- arenas <- roots."""

from __future__ import annotations

import pytest

from tests.architecture.imports import cycles, graph, modules

# Lower layers never import higher ones. Each room keeps its doors (its REST `api` and
# `serializers`, its `sockets`), so they share its layer; what every room's doors share (the
# kit: games.api, games.live) imports no room, and the boards' doors (accounts.standings.api)
# sit on it, below the rooms whose doors page their boards. The roots (the route tables, the
# registry of the tables, the app configs that wire the rooms, accounts' REST doors, the admin,
# commands, pages, ASGI/WSGI start-up) may import any room.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("site", ("demineur_site",)),
    ("engine", ("games.engine", "games.clock")),
    ("accounts", ("accounts",)),
    ("kit", ("games.api", "games.live")),
    ("boards", ("accounts.standings.api", "accounts.standings.serializers")),
    ("play", ("games", "games.errors", "games.play")),
    ("puzzles", ("games.puzzles",)),
    ("daily", ("games.daily",)),
    ("races", ("games.races",)),
    ("arenas", ("games.arenas",)),
    (
        "roots",
        (
            "games.models",
            "games.urls",
            "games.routing",
            "games.admin",
            "games.apps",
            "games.management",
            "accounts.views",
            "accounts.urls",
            "accounts.serializers",
            "accounts.admin",
            "frontend",
            "demineur_site.asgi",
            "demineur_site.dev_server",
            "demineur_site.schema_reference",
            "demineur_site.urls",
            "demineur_site.wsgi",
        ),
    ),
]
RANK = {name: i for i, (name, _) in enumerate(LAYERS)}


def layer_of(module: str) -> str | None:
    """The layer of the longest prefix naming `module` (bench/ has none: it may import all)."""
    best: tuple[int, str] | None = None
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                best is None or len(prefix) > best[0]
            ):
                best = (len(prefix), name)
    return best[1] if best else None


def against_the_order() -> list[str]:
    wrong = []
    for module, targets in sorted(graph().items()):
        layer = layer_of(module)
        if layer is None or layer == "roots":
            continue
        for target in sorted(targets):
            other = layer_of(target)
            if other is not None and RANK[other] > RANK[layer]:
                wrong.append(f"{module} ({layer}) imports {target} ({other})")
    return wrong


def test_the_graph_is_read_from_the_source():
    edges = graph()
    assert "games.play.services" in modules()
    assert "games.engine" in edges["games.play.services"]
    assert "accounts.standings.stats" in edges["games.play.services"]
    # a lazy import inside a function is an edge too
    assert "games.races.services" in edges["games.races.clock"]


def test_no_import_circle_anywhere():
    assert cycles() == []


def test_every_import_points_one_way():
    assert against_the_order() == []


def test_every_project_module_has_a_room():
    homeless = [m for m in modules() if not m.startswith("bench") and layer_of(m) is None]
    assert homeless == []


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("games.play.services", "play"),
        ("games.races.progress", "races"),
        ("games.arenas.rules", "arenas"),
        ("games.daily.services", "daily"),
        ("games.play.sockets", "play"),
        ("games.races.api", "races"),
        ("games.arenas.serializers", "arenas"),
        ("games.daily.api", "daily"),
        ("games.puzzles.generator", "puzzles"),
        ("games.puzzles.api", "puzzles"),
        ("games.live.base", "kit"),
        ("games.api.helpers", "kit"),
        ("games.urls", "roots"),
        ("games.routing", "roots"),
        ("accounts.standings.api", "boards"),
        ("accounts.standings.leaderboards", "accounts"),
        ("games.engine", "engine"),
        ("demineur_site.publish", "site"),
        ("demineur_site.asgi", "roots"),
        ("games.models", "roots"),
    ],
)
def test_layers_are_found_by_the_longest_prefix(module, layer):
    assert layer_of(module) == layer


def test_an_import_against_the_order_is_reported(monkeypatch):
    """The check can fail: an engine importing the services would be caught."""
    edges = dict(graph())
    edges["games.engine"] = edges["games.engine"] | {"games.play.services"}
    monkeypatch.setattr("tests.architecture.test_imports.graph", lambda: edges)
    assert against_the_order() == ["games.engine (engine) imports games.play.services (play)"]


def test_the_doors_kit_importing_a_room_is_reported(monkeypatch):
    """The kit sits below every room whose doors use it: a kit reaching into play would be
    caught (what it needs of a room is passed in)."""
    edges = dict(graph())
    edges["games.live.base"] = edges["games.live.base"] | {"games.play.events"}
    monkeypatch.setattr("tests.architecture.test_imports.graph", lambda: edges)
    assert against_the_order() == ["games.live.base (kit) imports games.play.events (play)"]
