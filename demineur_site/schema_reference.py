"""The OpenAPI schema as the reference (a drf-spectacular POSTPROCESSING_HOOK, run last): each
operation's summary and description in the contract's words (demineur_site.schema_operations),
its security with the token scopes it needs (accounts.scopes.REQUIRED), its refusal headers,
its links to the operations its answer feeds, one path per solo leaderboard with the periods
and sorts each takes, and the Markdown files the prose cites made links to the site's API
reference (/reference/, frontend.api_reference).

The schema stays OpenAPI 3.0: in 3.1 (JSON Schema 2020-12) `20.0` is an `integer`, and API.md
refuses floats where it wants integers, so a 3.1 schema would call valid what the server
refuses. 3.0 lets a security requirement list scopes for OAuth 2 schemes only, so an
operation's scopes are in `x-scopes`, in its description and in its 403's; the requirement
names the schemes (token or bearer header, session cookie) and, for public reads, `{}`."""

from __future__ import annotations

import re
from typing import Any

from django.urls import Resolver404, resolve

from accounts import scopes
from accounts.standings import leaderboards as solo_boards
from demineur_site.schema_operations import OPERATIONS
from frontend.api_reference import page_url

METHODS = ("get", "put", "post", "patch", "delete")

# Sign-up, sign-in and what a mailed link or a key does: they read no credential.
NO_AUTH = frozenset(
    {
        "auth_register_create",
        "auth_token_create",
        "auth_session_create",
        "auth_password_reset_create",
        "auth_password_reset_confirm_create",
        "auth_email_verify_create",
        "tokens_test_create",
    }
)
# The NDJSON streams are served before Django's URLs: their scopes are named here.
STREAM_SCOPES = {"stream_my_events": scopes.EVENT_STREAM}

SECURITY_SCHEMES = {
    "tokenAuth": {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "`Authorization: Token <key>` (API.md, Conventions): a key from "
        "`POST /api/auth/token` or `POST /api/tokens`.",
    },
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "The same key as `Authorization: Bearer <key>` (RFC 6750), what OAuth "
        "libraries and generated clients send by default.",
    },
    # "Sign in with Démineur" (accounts.oauth; docs/API-CLIENTS.md): an app's access token,
    # sent as the bearer key above, with the scopes the player consented to.
    "oauth2": {
        "type": "oauth2",
        "description": "An app's token for another player (docs/API-CLIENTS.md): the "
        "authorization code with PKCE (`code_challenge_method=S256`, required) for public "
        "clients, sent as `Authorization: Bearer <token>`. It never manages the account's "
        "credentials (tokens, address, password, sessions, two-factor, closing, export: 403 "
        "`forbidden`).",
        "flows": {
            "authorizationCode": {
                "authorizationUrl": "/oauth/authorize/",
                "tokenUrl": "/oauth/token/",
                "refreshUrl": "/oauth/token/",
                "scopes": {
                    scopes.GAME_PLAY: "Play games (create, move, pause, resign)",
                    scopes.RACE_PLAY: "Race (rooms and quick match)",
                    scopes.ACCOUNT_READ: "Read the account",
                    scopes.ACCOUNT_WRITE: "Change the account's settings",
                },
            }
        },
    },
}

_SCOPES_HEADER = {
    "description": "The scopes of the token that signed the request in, comma-separated "
    "(answers to a token only).",
    "schema": {"type": "string"},
}
_ACCEPTED_HEADER = {
    "description": "With `missing_scope`: the scopes this operation accepts, any one of them "
    "will do.",
    "schema": {"type": "string"},
}
_RETRY_HEADER = {
    "description": "Seconds to wait before trying again.",
    "schema": {"type": "integer", "minimum": 0},
}

# Where one answer feeds the next: {operationId: {status: {link: (operationId, parameters)}}}.
_GAME = {"game_id": "$response.body#/id"}
_RACE = {"race_id": "$response.body#/id"}
_ARENA = {"arena_id": "$response.body#/id"}
_PUZZLE = {"puzzle_id": "$response.body#/id"}
_GAME_LINKS = {
    "Reveal": ("games_reveal_create", _GAME),
    "Flag": ("games_flag_create", _GAME),
    "Chord": ("games_chord_create", _GAME),
    "Pause": ("games_pause_create", _GAME),
    "Resume": ("games_resume_create", _GAME),
    "Resign": ("games_resign_create", _GAME),
    "Moves": ("games_moves_list", _GAME),
    "Game": ("games_retrieve", _GAME),
}
_MOVED = {"game_id": "$response.body#/game/id"}
LINKS: dict[str, dict[str, dict[str, tuple[str, dict[str, str]]]]] = {
    "games_create": {"201": _GAME_LINKS},
    "games_retrieve": {"200": {"Moves": ("games_moves_list", _GAME)}},
    "daily_start": {"200": _GAME_LINKS, "201": _GAME_LINKS},
    "daily_practice": {"201": _GAME_LINKS},
    **{
        f"games_{action}_create": {
            "200": {
                "NextReveal": ("games_reveal_create", _MOVED),
                "NextFlag": ("games_flag_create", _MOVED),
                "Moves": ("games_moves_list", _MOVED),
            }
        }
        for action in ("reveal", "flag", "chord")
    },
    "races_create": {
        "201": {
            "Race": ("races_retrieve", _RACE),
            "Ready": ("races_ready_create", _RACE),
            "Start": ("races_start_create", _RACE),
            "Leave": ("races_leave_create", _RACE),
        }
    },
    "races_retrieve": {
        # A racer's game, once the race has started (null before: that lookup is a 404).
        "200": {"FirstRacersGame": ("games_retrieve", {"game_id": "$response.body#/racers/0/game"})}
    },
    "arenas_create": {
        "201": {
            "Arena": ("arenas_retrieve", _ARENA),
            "Join": ("arenas_join_create", _ARENA),
            "Leave": ("arenas_leave_create", _ARENA),
            "Standings": ("arenas_standings", _ARENA),
        }
    },
    "puzzles_next": {
        "200": {"Open": ("puzzles_open", _PUZZLE), "Puzzle": ("puzzles_get", _PUZZLE)}
    },
    "auth_register_create": {
        "201": {"Profile": ("users_retrieve", {"username": "$response.body#/username"})}
    },
}

# The cited files: API.md and RULES.md (the contract), docs/....md; not inside a code span,
# a link or a path of another folder.
_CITED = re.compile(r"(?<![\w/`\[.-])((?:docs/[\w/-]+|API|RULES)\.md)(?![\w\]`])")


def _cite(text: str) -> str:
    """`docs/RACES.md` and `API.md` in prose as Markdown links to their reference pages."""
    return _CITED.sub(lambda m: f"[{m.group(1)}]({page_url(m.group(1))})", text)


def _url_name(path: str) -> str | None:
    try:
        return resolve(re.sub(r"\{[^}]+\}", "1", path)).url_name
    except Resolver404:
        return None


def _accepted(operation_id: str, path: str, method: str) -> tuple[str, ...]:
    if operation_id in STREAM_SCOPES:
        return STREAM_SCOPES[operation_id]
    return scopes.REQUIRED.get(_url_name(path) or "", {}).get(method.upper(), ())


def _security(operation: dict[str, Any], accepted: tuple[str, ...]) -> list[dict[str, Any]]:
    if operation["operationId"] in NO_AUTH:
        return []
    current = operation.get("security") or []
    # Each way in the view accepts (its schemes), the bearer header beside the token one.
    schemes: list[dict[str, Any]] = []
    for requirement in current:
        if requirement:
            schemes.append(requirement)
            if "tokenAuth" in requirement:
                schemes.append({"bearerAuth": []})
    if not accepted and {} in current:
        schemes.append({})  # public: anyone, signed in or not
    return schemes


def _split_solo_boards(paths: dict[str, Any]) -> None:
    """`/api/leaderboards/{level}/{board}` as API.md writes it: one path per board, each with
    the `period`, `sort` and `style` it takes (a streak board has no period and no NF style;
    only it has `sort`)."""
    generic = paths.pop("/api/leaderboards/{level}/{board}", None)
    if generic is None:
        return
    for board in solo_boards.BOARDS:
        operation = _copy(generic["get"])
        operation["operationId"] = f"leaderboards_{board}"
        params = []
        for param in operation.get("parameters", []):
            if param["name"] == "board":
                continue
            if param["name"] == "sort":
                if board != "streaks":
                    continue
                param["schema"] = {"type": "string", "enum": list(solo_boards.SORTS)}
                param["description"] = "`best` (default), `current`, or `skill`."
            if param["name"] == "period":
                if board == "streaks":
                    continue
                param["description"] = "A rolling period (RULES.md); `all` by default."
            if param["name"] == "style" and board == "streaks":
                param["schema"] = {"type": "string", "enum": ["all"]}  # no NF streaks
            params.append(param)
        operation["parameters"] = params
        paths[f"/api/leaderboards/{{level}}/{board}"] = {"get": operation}


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _headers(operation: dict[str, Any], accepted: tuple[str, ...]) -> None:
    signed = any("tokenAuth" in r for r in operation.get("security", []))
    if accepted and "403" not in operation["responses"]:  # a read refused `missing_scope`
        operation["responses"]["403"] = {
            "description": "",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
        }
        operation["responses"] = dict(sorted(operation["responses"].items()))
    for code, response in operation["responses"].items():
        headers = response.setdefault("headers", {})
        if signed:
            headers["X-OAuth-Scopes"] = _SCOPES_HEADER
        if code in ("429", "503"):
            headers["Retry-After"] = _RETRY_HEADER
        if code == "403" and accepted:
            headers["X-Accepted-OAuth-Scopes"] = _ACCEPTED_HEADER
            why = response.get("description", "")
            response["description"] = (
                f"`missing_scope`: the token has none of {', '.join(accepted)} "
                "(`X-Accepted-OAuth-Scopes` names them)." + (f" {why}" if why else "")
            )
        if not headers:
            del response["headers"]


def _links(operation: dict[str, Any]) -> None:
    for code, links in LINKS.get(operation["operationId"], {}).items():
        response = operation["responses"].get(code)
        if response is None:
            continue
        response["links"] = {
            name: {"operationId": target, "parameters": parameters}
            for name, (target, parameters) in links.items()
        }


def _cite_everywhere(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                node[key] = _cite(value)
            else:
                _cite_everywhere(value)
    elif isinstance(node, list):
        for value in node:
            _cite_everywhere(value)


def _coordinates(schemas: dict[str, Any]) -> None:
    """A cell in a request body (a move, a puzzle's opening) is `x`, `y` from 0: a negative one
    is refused (400 `out_of_bounds`), as one past the board's size is (API.md, Conventions)."""
    for name, component in schemas.items():
        props = component.get("properties", {})
        if name.endswith("Request") and {"x", "y"} <= props.keys():
            props["x"].update(minimum=0, description="The column, from 0 to the width - 1.")
            props["y"].update(minimum=0, description="The row, from 0 to the height - 1.")


def describe(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    paths = result.setdefault("paths", {})
    _split_solo_boards(paths)
    for path, item in paths.items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            operation_id = operation["operationId"]
            summary, description = OPERATIONS[operation_id]
            accepted = _accepted(operation_id, path, method)
            operation["summary"] = summary
            if accepted:
                description += (
                    f"\n\nA token needs one of the scopes {', '.join(accepted)} "
                    "(403 `missing_scope` otherwise); a session has every scope."
                )
                operation["x-scopes"] = list(accepted)
            operation["description"] = description
            operation["security"] = _security(operation, accepted)
            signed = {"tokenAuth": []} in operation["security"]
            if signed and _url_name(path) not in scopes.NOT_FOR_APPS:  # an app's token, too
                operation["security"].append({"oauth2": list(accepted)})
            _headers(operation, accepted)
            _links(operation)
    result["paths"] = dict(sorted(paths.items()))
    components = result.setdefault("components", {})
    _coordinates(components.get("schemas", {}))
    components.setdefault("securitySchemes", {}).update(SECURITY_SCHEMES)
    error = components.get("schemas", {}).get("ErrorOut")
    if error is not None:
        error["example"] = {
            "error": {
                "code": "game_not_started",
                "message": "Flag or chord after the first tap.",
                "details": {},
            }
        }
    _cite_everywhere(result)
    return result
