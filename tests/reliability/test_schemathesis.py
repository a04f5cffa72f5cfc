"""Schemathesis against the served OpenAPI schema, with every check it has:
no 5xx, status codes, content types, headers and bodies as the schema says, schema-valid
requests accepted and invalid ones refused, auth not ignored, unsupported methods 405.

In process, through the real WSGI application (demineur_site.wsgi, the edge wrappers
included), signed in with a fixture player's token. Bounded for `make test`:
SCHEMATHESIS_EXAMPLES (default 20) examples per operation, the same ones each run;
`make soak` sets it to 200 or more (new cases each run).
`DELETE /api/auth/token` is left out: it revokes the fuzzer's own token (it has its own tests
in tests/accounts). Regression tests of what the runs found: test_schema_findings.py."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis import checks as st_checks

from accounts.models import User
from accounts.services import token_issue
from demineur_site.wsgi import application
from tests.support.personas import PASSWORD

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "20"))
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
    # A calendar spans at most 366 days, `from` not after `to` (docs/DAILY.md).
    "GET /api/users/{username}/daily": lambda e: (
        e["code"] == "invalid" and set(e["details"]) == {"from", "to"}
    ),
    # A DELETE's body is not sent by every client (schemathesis sends none): `code` missing.
    "DELETE /api/me/totp": lambda e: (
        e["code"] == "invalid" and set(e["details"].get("fields", {})) == {"code"}
    ),
}


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


@pytest.fixture
def fuzz_token(db: Any) -> Iterator[str]:
    """A player's token, and Django's per-request connection closing switched off while the
    fuzzer calls the WSGI application directly (as Django's own test client does): closing
    would end the test's transaction on PostgreSQL."""
    user = User.objects.create_user(username="fuzzer", password=PASSWORD)
    _, key = token_issue(user=user)
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
    if case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE:
        if response.status_code == 400:
            error = response.json()["error"]
            assert rule(error), (label, case.body, case.query, error)
        else:
            assert response.status_code < 400 or response.status_code in {401, 403, 404, 409}
