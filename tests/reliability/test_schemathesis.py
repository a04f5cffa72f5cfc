"""Schemathesis against the served OpenAPI schema, with every check it has:
no 5xx, status codes, content types, headers and bodies as the schema says, schema-valid
requests accepted and invalid ones refused, auth not ignored, unsupported methods 405.

In process, through the real WSGI application (demineur_site.wsgi, the edge wrappers
included), signed in with a fixture player's token. Bounded for `make test`:
SCHEMATHESIS_EXAMPLES (default 10) examples per operation, the same ones each run;
`make soak` sets it to 200 or more (new cases each run).
`DELETE /api/auth/token` is left out: it revokes the fuzzer's own token (it has its own tests
in tests/accounts). Regression tests of what the runs found: test_schema_findings.py."""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from django.test import override_settings
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test
from schemathesis import GenerationMode
from schemathesis import checks as st_checks

from accounts.models import User
from accounts.services import token_issue
from demineur_site.wsgi import application
from tests.support.personas import PASSWORD

# Ten, not twenty: a third of the cases' CPU is Hypothesis drawing them (py-spy, docs/TESTING.md),
# and the module ran on one worker for over three minutes of a loaded run.
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "10"))
# The bounded run replays the same cases every time (no flaky `make test`); the long run of
# `make soak` explores new ones each time unless SCHEMATHESIS_DERANDOMIZE=1.
DERANDOMIZE = os.environ.get("SCHEMATHESIS_DERANDOMIZE", "1" if EXAMPLES <= 50 else "0") == "1"

st_checks.load_all_checks()
ALL_CHECKS = list(st_checks.CHECKS.get_all())
POSITIVE_ACCEPTANCE = next(c for c in ALL_CHECKS if c.__name__ == "positive_data_acceptance")

# The NDJSON streams are served by the ASGI application, not by this WSGI one (their own tests:
# tests/live/test_streams.py).
schema = (
    schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    .exclude(method="DELETE", path="/api/auth/token")
    .exclude(path_regex="^/api/stream/")
)

# Rules a JSON Schema cannot state, so a schema-valid request may still be refused with 400.
# For these operations the positive-acceptance check is ours: a 400 to a schema-valid request
# must name one of these rules, and nothing else.
SEMANTIC_400: dict[str, Any] = {
    # Django's password validators (too common, too similar to the username, all digits) and
    # a username already taken (the schema says minLength 8 for the password).
    "POST /api/auth/register": lambda e: (
        e["code"] == "invalid"
        and set(e["details"].get("codes", {})) <= {"password", "username"}
        and all(
            c in {"invalid", "username_taken", "username_reserved"}
            for cs in e["details"]["codes"].values()
            for c in cs
        )
    ),
    # A cell inside the board: the bound is the game's (or puzzle's) size, which the stateful
    # phase's linked calls reach with real ids.
    **{
        f"POST /api/games/{{game_id}}/{action}": lambda e: e["code"] == "out_of_bounds"
        for action in ("reveal", "flag", "chord")
    },
    "POST /api/puzzles/{puzzle_id}/open": lambda e: e["code"] == "out_of_bounds",
    # At most width * height - 9 mines (the bound depends on the board size).
    "POST /api/games": lambda e: e["code"] == "invalid" and "mines must be" in e["message"],
    # The account's lifecycle (docs/ACCOUNTS.md): a mailed link's token is signed (a string
    # of the schema's is almost never a real one), a new password meets the validators.
    "POST /api/auth/email/verify": lambda e: e["code"] == "token_invalid",
    "POST /api/auth/password-reset/confirm": lambda e: (
        e["code"] == "token_invalid" or _password_refused(e)
    ),
    "POST /api/me/password": lambda e: _password_refused(e),
    # An arena starts now or later (API.md, Arenas), within 30 days; its name holds no
    # bidirectional or other control character and is not blank (docs/ARENAS.md).
    "POST /api/arenas": lambda e: (
        e["code"] == "invalid"
        and len(e["details"].get("fields", {})) == 1
        and set(e["details"]["fields"]) <= {"starts_at", "name"}
    ),
    # A race board's season has begun by the server's clock (docs/RACES.md, Seasons): the
    # schema's pattern also matches seasons to come.
    "GET /api/leaderboards/{level}/races": lambda e: e["code"] == "invalid_season",
    # A calendar spans at most 366 days, `from` not after `to` (docs/DAILY.md).
    "GET /api/users/{username}/daily": lambda e: (
        e["code"] == "invalid" and set(e["details"]) == {"from", "to"}
    ),
    # A DELETE's body is not sent by every client (schemathesis sends none): `code` missing.
    "DELETE /api/me/totp": lambda e: (
        e["code"] == "invalid" and set(e["details"].get("fields", {})) == {"code"}
    ),
}


def _positive(case: Any) -> bool:
    """A case the schema calls valid (not one made to be refused)."""
    return case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE


def _password_refused(error: Any) -> bool:
    return error["code"] == "invalid" and set(error["details"].get("fields", {})) == {
        "new_password"
    }


# Cases sent and statuses answered, written as JSON to SCHEMATHESIS_REPORT when it is set
# (`make soak` and docs/RELIABILITY.md take their figures from it).
STATUSES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    path = os.environ.get("SCHEMATHESIS_REPORT")
    if path:
        with open(path, "w") as out:
            json.dump(
                {"examples": EXAMPLES, "cases": sum(STATUSES.values()), "statuses": STATUSES}, out
            )


# The token the schema's auth provider gives every generated case: the fuzzer's, then in the
# stateful phase each scenario's own player's (Workflow.setup).
_TOKEN = {"key": ""}


@pytest.fixture
def fuzz_token(db: Any) -> Iterator[str]:
    """A player's token, and Django's per-request connection closing switched off while the
    fuzzer calls the WSGI application directly (as Django's own test client does): closing
    would end the test's transaction on PostgreSQL."""
    user = User.objects.create_user(username="fuzzer", password=PASSWORD)
    _, key = token_issue(user=user)
    _TOKEN["key"] = key  # the schema's auth provider gives it to every generated case
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield key
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=DERANDOMIZE,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case: Any, fuzz_token: str) -> None:
    headers = {"Authorization": f"Token {fuzz_token}"}
    label = f"{case.method.upper()} {case.operation.path}"
    rule = SEMANTIC_400.get(label)
    if rule is None:
        response = case.call_and_validate(headers=headers, checks=ALL_CHECKS)
        STATUSES[str(response.status_code)] += 1
        return
    checks = [c for c in ALL_CHECKS if c is not POSITIVE_ACCEPTANCE]
    response = case.call_and_validate(headers=headers, checks=checks)
    STATUSES[str(response.status_code)] += 1
    if _positive(case):
        if response.status_code == 400:
            error = response.json()["error"]
            assert rule(error), (label, case.body, case.query, error)
        else:
            assert response.status_code < 400 or response.status_code in {401, 403, 404, 409}


# --- The stateful phase: sequences that follow the schema's links ---------------------------
# Each scenario chains operations by their OpenAPI links (create a game -> reveal, flag, its
# moves; a race -> its games; an arena -> join, standings; the next puzzle -> open it), with the
# same checks. Bounded for `make test`: SCHEMATHESIS_STATEFUL_EXAMPLES scenarios (default 10) of
# at most STATEFUL_STEPS calls each, the same every run.
STATEFUL_EXAMPLES = int(os.environ.get("SCHEMATHESIS_STATEFUL_EXAMPLES", "10"))
STATEFUL_STEPS = 6


@schema.auth(refresh_interval=None)
class _FuzzerToken:
    """The player's token on every stateful call, as the schema's own auth (so that the checks
    know it is a real credential, not a generated one)."""

    def get(self, case: Any, ctx: Any) -> str:
        return _TOKEN["key"]

    def set(self, case: Any, data: str, ctx: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}


class Workflow(schema.as_state_machine()):  # type: ignore[misc]
    def setup(self) -> None:
        """Each scenario is played by a new player: Hypothesis replays scenarios, and one player
        for all would meet what an earlier scenario left (a race it is still in answers
        `already_racing` on the replay, not on the first run)."""
        user = User.objects.create_user(username=f"fuzz{uuid.uuid4().hex[:12]}", password=PASSWORD)
        _TOKEN["key"] = token_issue(user=user)[1]

    def validate_response(
        self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
    ) -> None:
        label = f"{case.method.upper()} {case.operation.path}"
        checks = [
            c for c in ALL_CHECKS if label not in SEMANTIC_400 or c is not POSITIVE_ACCEPTANCE
        ]
        STATUSES[str(response.status_code)] += 1
        case.validate_response(response, checks=checks, transport_kwargs=kwargs or None)
        rule = SEMANTIC_400.get(label)
        if rule is not None and response.status_code == 400 and _positive(case):
            error = response.json()["error"]
            assert rule(error), (label, case.body, case.query, error)


@pytest.mark.django_db
@override_settings(GAME_TEST_SEED="schemathesis")  # the same layouts on every replay
def test_api_conforms_to_its_schema_in_linked_sequences(fuzz_token: str) -> None:
    """`fuzz_token`'s fixture switches Django's connection closing off; each scenario makes its
    own player (Workflow.setup)."""
    # The answers our links start from are bundles the machine draws the next calls from.
    for start in ("POST /api/games -> 201", "POST /api/races -> 201", "POST /api/arenas -> 201"):
        assert start in Workflow.bundles, start
    run_state_machine_as_test(
        Workflow,
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=STATEFUL_STEPS,
            deadline=None,
            derandomize=DERANDOMIZE,
            suppress_health_check=list(HealthCheck),
        ),
    )
