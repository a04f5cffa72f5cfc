"""The schema is the reference (demineur_site.schema_reference, schema_operations): every
operation has a summary and a description, its scopes and security, its refusal headers; what a
request may carry is stated (`no_guess`, DELETE's body, coordinates from 0, the boards' own
`period` and `sort`); the main objects' fields are described and exampled; the stream lines
are typed; one answer links to the operations it feeds; the cited Markdown is served at
/reference/ (frontend.api_reference), escaped, and the contract's copy there is the contract."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from accounts import scopes
from demineur_site.schema_operations import OPERATIONS
from demineur_site.schema_reference import NO_AUTH
from frontend import api_reference

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema(django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        answer = Client().get("/api/schema/?format=json")
    assert answer.status_code == 200
    return dict(answer.json())


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


def _component(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return dict(schema["components"]["schemas"][name])


def _properties(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """A component's properties, its bases' (allOf) included."""
    component = _component(schema, name)
    props = dict(component.get("properties", {}))
    for part in component.get("allOf", []):
        props.update(_properties(schema, part["$ref"].rsplit("/", 1)[1]))
    return props


def test_every_operation_has_a_summary_and_a_description_from_the_table(schema):
    ids = set()
    for method, path, op in _operations(schema):
        ids.add(op["operationId"])
        assert op["summary"] == OPERATIONS[op["operationId"]][0], (method, path)
        assert len(op["description"]) >= len(OPERATIONS[op["operationId"]][1]), (method, path)
    assert ids == set(OPERATIONS), "the table names an operation the schema does not have"


def test_the_title_makes_an_installable_package_name(schema):
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9 ]*", schema["info"]["title"])


def test_each_operation_declares_its_scopes_and_who_may_call_it(schema):
    for method, path, op in _operations(schema):
        security = op["security"]
        if op["operationId"] in NO_AUTH:
            assert security == [], (method, path)  # sign-up, sign-in: no auth at all
            continue
        accepted = op.get("x-scopes", [])
        assert accepted == sorted(accepted, key=scopes.ALL.index)
        assert set(accepted) <= set(scopes.ALL)
        assert {"tokenAuth": []} in security and {"bearerAuth": []} in security, path
        # A scoped operation needs a sign-in; a public read may be called by anyone.
        assert ({} in security) == (not accepted and {} in security), (method, path)
        if accepted:
            assert {} not in security, (method, path)
            forbidden = op["responses"]["403"]
            assert "missing_scope" in forbidden["description"]
            assert "X-Accepted-OAuth-Scopes" in forbidden["headers"]
        for code, response in op["responses"].items():
            assert "X-OAuth-Scopes" in response.get("headers", {}), (method, path, code)
        assert "Retry-After" in op["responses"]["429"]["headers"], (method, path)
    games = schema["paths"]["/api/games"]
    assert games["post"]["x-scopes"] == ["game:play"] and {} not in games["post"]["security"]
    assert {} in games["get"]["security"]  # a public read
    schemes = schema["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {**schemes["bearerAuth"], "type": "http", "scheme": "bearer"}


def test_what_a_request_may_carry_is_in_the_schema(schema):
    create = _component(schema, "GameCreateInRequest")
    for branch in create["oneOf"]:
        assert branch["properties"]["no_guess"]["type"] == "boolean"
    for name in ("MoveInRequest", "FlagInRequest", "PuzzleOpenInRequest"):
        props = _component(schema, name)["properties"]
        assert props["x"]["minimum"] == 0 and props["y"]["minimum"] == 0, name
    totp_off = schema["paths"]["/api/me/totp"]["delete"]["requestBody"]
    body = totp_off["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert "code" in _component(schema, body)["required"]
    boards = schema["paths"]
    streaks = {
        p["name"]: p for p in boards["/api/leaderboards/{level}/streaks"]["get"]["parameters"]
    }
    assert streaks["sort"]["schema"]["enum"] == ["best", "current", "skill"]
    assert "period" not in streaks
    times = {p["name"]: p for p in boards["/api/leaderboards/{level}/times"]["get"]["parameters"]}
    assert "sort" not in times and "all" in times["period"]["schema"]["enum"]


@pytest.mark.parametrize(
    "name",
    [
        "GameOut",
        "MoveResultOut",
        "RaceOut",
        "RacerOut",
        "ArenaOut",
        "PuzzleOut",
        "GamePageOut",
        "LeaderboardPageOut",
        "RacePageOut",
    ],
)
def test_every_field_of_the_main_objects_is_described(schema, name):
    props = _properties(schema, name)
    assert props
    undescribed = [field for field, prop in props.items() if not prop.get("description")]
    assert not undescribed, (name, undescribed)


def test_the_board_encoding_is_explained(schema):
    board = _properties(schema, "GameOut")["board"]["description"]
    for character in ("`#`", "`F`", "`0`-`8`", "`*`", "`X`", "`!`"):
        assert character in board


def test_the_main_objects_have_examples(schema):
    paths = schema["paths"]
    for path, method, code in [
        ("/api/games", "post", "201"),
        ("/api/games/{game_id}", "get", "200"),
        ("/api/games/{game_id}/reveal", "post", "200"),
        ("/api/races/{race_id}", "get", "200"),
        ("/api/arenas/{arena_id}", "get", "200"),
        ("/api/puzzles/{puzzle_id}", "get", "200"),
    ]:
        content = paths[path][method]["responses"][code]["content"]["application/json"]
        assert content.get("examples"), (path, method)
    create = paths["/api/games"]["post"]["requestBody"]["content"]["application/json"]
    assert {"level": "expert", "no_guess": True} in [
        e["value"] for e in create["examples"].values()
    ]


def test_the_stream_lines_are_typed_one_schema_per_type(schema):
    for path, types in [
        ("/api/stream/game/{game_id}", {"state", "move", "paused", "resumed", "ended", "error"}),
        (
            "/api/stream/event",
            {"game_start", "game_end", "game_discarded", "race_start", "race_end", "error"},
        ),
    ]:
        content = schema["paths"][path]["get"]["responses"]["200"]["content"]
        line = content["application/x-ndjson"]["schema"]
        mapping = line["discriminator"]["mapping"]
        assert types <= set(mapping), path
        for kind, ref in mapping.items():
            component = _component(schema, ref.rsplit("/", 1)[1])
            assert component["properties"]["type"]["enum"] == [kind]
            assert component["example"]["type"] == kind
        assert content["application/x-ndjson"]["examples"]


def test_answers_link_to_the_operations_they_feed(schema):
    created = schema["paths"]["/api/games"]["post"]["responses"]["201"]["links"]
    assert created["Reveal"] == {
        "operationId": "games_reveal_create",
        "parameters": {"game_id": "$response.body#/id"},
    }
    race = schema["paths"]["/api/races/{race_id}"]["get"]["responses"]["200"]["links"]
    assert race["FirstRacersGame"]["operationId"] == "games_retrieve"
    ids = {op["operationId"] for _, _, op in _operations(schema)}
    for _, _, op in _operations(schema):
        for response in op["responses"].values():
            for link in response.get("links", {}).values():
                assert link["operationId"] in ids


def test_every_markdown_file_the_schema_cites_is_served(schema, client):
    text = str(schema)
    cited = set(re.findall(r"\]\(/reference/([^)#]+)", text))
    assert {"API.md", "RULES.md"} <= cited
    for name in cited:
        assert client.get(f"/reference/{name}").status_code == 200, name
    bare = re.findall(r"(?<![\[/\w.-])(?:docs/[\w/]+|API|RULES)\.md(?![\]\w])", text)
    assert not bare, bare[:5]


def test_the_reference_page_lists_and_renders_the_contract(client):
    index = client.get("/reference/")
    assert index.status_code == 200
    assert b'href="/reference/API.md"' in index.content
    page = client.get("/reference/API.md")
    assert page.status_code == 200
    assert b'<h2 id="games">Games</h2>' in page.content
    assert b'href="/reference/RULES.md"' in page.content  # a code span naming a file
    assert client.get("/reference/docs/RACES.md").status_code == 200
    for unknown in ("../pyproject.toml", "docs/../../pyproject.toml", "nope.md", "API.md/x"):
        assert client.get(f"/reference/{unknown}").status_code == 404, unknown


def test_the_docs_page_links_the_reference(schema, client):
    assert "(/reference/)" in schema["info"]["description"]
    assert client.get("/api/docs/").status_code == 200


def test_raw_html_and_script_links_in_markdown_are_escaped(client, settings, tmp_path):
    (tmp_path / "docs" / "contract").mkdir(parents=True)
    (tmp_path / "docs" / "contract" / "API.md").write_text(
        "# Evil\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
        "[click](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=) "
        '[fine](RULES.md "t\\"itle")\n'
    )
    settings.BASE_DIR = tmp_path
    html = client.get("/reference/API.md").content.decode()
    article = html[html.index("<article") : html.index("</article>")]
    assert "<script>" not in article and "&lt;script&gt;alert(1)" in article
    assert "<img" not in article
    assert "&lt;img src=x onerror=alert(2)&gt;" in article
    assert 'href="javascript:' not in article and 'href="data:' not in article


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared/ is not beside the repository")
@pytest.mark.parametrize("name", ["API.md", "RULES.md"])
def test_the_served_contract_is_the_contract(name):
    served = ROOT / api_reference.CONTRACT_DIR / name
    assert served.read_text() == (SHARED / name).read_text(), (
        f"docs/contract/{name} differs from shared/{name}: copy it again"
    )
