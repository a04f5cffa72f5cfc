"""Regression tests of what Schemathesis found, each a plain test: the
schema describes every answer, errors included, and never calls valid a request the server
refuses; the few answers that did not match their schema now do."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from games.engine import LEVELS

pytestmark = pytest.mark.django_db

ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}


@pytest.fixture
def schema(anon_api: APIClient) -> dict[str, Any]:
    response = anon_api.get("/api/schema/?format=json")
    assert response.status_code == 200
    return dict(response.json())


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "responses" in op
    ]


def _param(op: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in op["parameters"] if p["name"] == name)


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    if "allOf" in node and len(node["allOf"]) == 1:
        return {
            **_resolve(schema, node["allOf"][0]),
            **{k: v for k, v in node.items() if k != "allOf"},
        }
    return node


@pytest.mark.parametrize(
    "method, path",
    [("post", "/api/auth/register"), ("post", "/api/auth/session"), ("post", "/api/auth/token")],
)
def test_sign_up_and_sign_in_document_their_400(
    schema: dict[str, Any], method: str, path: str
) -> None:
    responses = schema["paths"][path][method]["responses"]
    assert "400" in responses
    assert responses["400"]["content"]["application/json"]["schema"] == ERROR_REF


def test_sign_in_documents_its_401(schema: dict[str, Any]) -> None:
    for path in ("/api/auth/token", "/api/auth/session"):
        assert "401" in schema["paths"][path]["post"]["responses"], path


def test_every_operation_documents_its_errors_with_the_error_body(schema: dict[str, Any]) -> None:
    for method, path, op in _operations(schema):
        responses = op["responses"]
        for code in ("406", "429", "503"):
            assert code in responses, (method, path, code)
        if op.get("parameters") or "requestBody" in op:
            assert "400" in responses, (method, path)
        if "requestBody" in op:
            assert {"413", "415"} <= responses.keys(), (method, path)
        for code, response in responses.items():
            if code[0] in "45":
                assert response["content"]["application/json"]["schema"] == ERROR_REF, (
                    method,
                    path,
                    code,
                )
        assert "500" not in responses  # a 500 is a bug, never a documented answer


def test_the_schema_names_the_levels_and_boards(schema: dict[str, Any]) -> None:
    create = _resolve(schema, schema["components"]["schemas"]["GameCreateInRequest"])
    by_level, custom = create["oneOf"]
    level = _resolve(schema, by_level["properties"]["level"])
    assert sorted(level["enum"]) == sorted(LEVELS)
    assert custom["required"] == ["width", "height", "mines"]
    assert custom["properties"]["width"]["minimum"] == 5
    assert custom["properties"]["width"]["maximum"] == 100
    games = schema["paths"]["/api/games"]["get"]
    assert sorted(_param(games, "level")["schema"]["enum"]) == sorted([*LEVELS, "custom"])
    # One path per solo board, each with the query parameters it takes (API.md, Leaderboards).
    for name in ("times", "speed", "streaks"):
        board = schema["paths"][f"/api/leaderboards/{{level}}/{name}"]["get"]
        assert sorted(_param(board, "level")["schema"]["enum"]) == sorted(LEVELS)
        names = {p["name"] for p in board["parameters"]}
        assert ("sort" in names) == (name == "streaks"), name
        assert ("period" in names) == (name != "streaks"), name


@pytest.mark.parametrize(
    "path",
    ["/api/games", "/api/games/{game_id}/moves", "/api/leaderboards/{level}/times"],
)
def test_the_schema_states_the_page_bounds(schema: dict[str, Any], path: str) -> None:
    op = schema["paths"][path]["get"]
    assert _param(op, "page")["schema"]["minimum"] == 1
    assert _param(op, "page_size")["schema"]["minimum"] == 1


def test_a_new_game_needs_a_body(schema: dict[str, Any], alice_api: APIClient) -> None:
    assert schema["paths"]["/api/games"]["post"]["requestBody"]["required"] is True
    response = alice_api.post("/api/games")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_a_new_game_takes_a_level_or_a_size_never_both(alice_api: APIClient) -> None:
    both = alice_api.post("/api/games", {"level": "beginner", "width": 9}, format="json")
    assert both.status_code == 400
    assert both.json()["error"]["code"] == "invalid"


def test_the_tokens_list_answers_the_shape_its_schema_describes(
    schema: dict[str, Any], alice_api: APIClient
) -> None:
    ok = schema["paths"]["/api/tokens"]["get"]["responses"]["200"]
    shape = _resolve(schema, ok["content"]["application/json"]["schema"])
    assert shape["type"] == "object"
    assert shape["properties"]["results"]["type"] == "array"
    row = _resolve(schema, shape["properties"]["results"]["items"])
    body = alice_api.get("/api/tokens").json()
    assert set(body) == set(shape["properties"])
    assert body["results"] and set(body["results"][0]) == set(row["properties"])


def test_a_new_token_answers_every_field_its_schema_lists(
    schema: dict[str, Any], alice_api: APIClient
) -> None:
    created = schema["paths"]["/api/tokens"]["post"]["responses"]["201"]
    shape = _resolve(schema, created["content"]["application/json"]["schema"])
    body = alice_api.post("/api/tokens", {"name": "bot"}, format="json").json()
    assert (
        set(body)
        == set(shape["properties"])
        == {
            "id",
            "name",
            "prefix",
            "created_at",
            "last_used_at",
            "scopes",  # API.md, Token scopes
            "token",
        }
    )


@pytest.mark.parametrize("body", [None, {}, {"label": "x"}, {"name": None}, {"name": "   "}])
def test_creating_a_token_needs_a_name(alice: User, alice_api: APIClient, body: Any) -> None:
    before = ApiToken.objects.filter(user=alice).count()
    if body is None:
        response = alice_api.post("/api/tokens")  # no body at all
    else:
        response = alice_api.post("/api/tokens", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "name" in error["details"]["fields"]
    assert ApiToken.objects.filter(user=alice).count() == before


@pytest.mark.parametrize("query", ["page=", "page=abc", "page=0", "page=-1", "page=1.5"])
def test_a_malformed_page_is_400_on_every_list(anon_api: APIClient, query: str) -> None:
    for path in ("/api/games", "/api/leaderboards/beginner/times"):
        response = anon_api.get(f"{path}?{query}")
        assert response.status_code == 400, (path, query, response.content)
        assert response.json()["error"]["code"] == "invalid_page"


def test_a_malformed_page_of_moves_is_400(alice_api: APIClient) -> None:
    game = alice_api.post("/api/games", {"level": "beginner"}, format="json").json()
    response = alice_api.get(f"/api/games/{game['id']}/moves?page=")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_page"


def test_request_strings_say_they_refuse_nul(schema: dict[str, Any], anon_api: APIClient) -> None:
    credentials = schema["components"]["schemas"]["CredentialsRequest"]["properties"]
    assert "\\u0000" in credentials["password"]["pattern"]
    response = anon_api.post(
        "/api/auth/token", {"username": "alice", "password": "a\x00b"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


@pytest.mark.parametrize("key", [" ", "\u2003", "\x1f"])
def test_a_key_of_spaces_is_no_token_not_a_malformed_body(anon_api: APIClient, key: str) -> None:
    """The schema calls any string of 1 to 128 characters a key; one of spaces only was refused
    as blank (found by Schemathesis in make test): it is looked up as sent, and is no token."""
    answer = anon_api.post("/api/tokens/test", {"tokens": [key]}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["results"] == {key: None}
