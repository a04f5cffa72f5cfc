"""Schemathesis against the served OpenAPI schema (issue 13, item 6), with every check it has:
no 5xx, status codes, content types, headers and bodies as the schema says, schema-valid
requests accepted and invalid ones refused, auth not ignored.

In process, through the real WSGI application (demineur_site.wsgi, the edge wrappers
included), signed in with a fixture player's token. Bounded for `make test`:
SCHEMATHESIS_EXAMPLES (default 20) examples per operation; `make soak` sets it to 200+.
`DELETE /api/auth/token` is left out: it revokes the fuzzer's own token (its own test is
tests/accounts). Regression tests of what a first run found: test_schema_findings.py."""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks as st_checks

from accounts.models import User
from accounts.services import token_issue
from demineur_site.wsgi import application

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "20"))

st_checks.load_all_checks()
ALL_CHECKS = list(st_checks.CHECKS.get_all())

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application).exclude(
    method="DELETE", path="/api/auth/token"
)


@pytest.fixture
def fuzz_token(db: Any) -> str:
    user = User.objects.create_user(username="fuzzer", password="correct horse battery staple")
    _, key = token_issue(user=user)
    return key


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(case: Any, fuzz_token: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Token {fuzz_token}"}, checks=ALL_CHECKS)
