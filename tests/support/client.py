"""The Python client (clients/python, demineur_client) in the tests against a real server."""

from __future__ import annotations

import uuid
from typing import Any

from demineur_client import Client

from tests.support.personas import PASSWORD


def signed_in(base: str, prefix: str, **options: Any) -> Client:
    """A client of the server at `base` (made with `options`), signed in as a new player named
    `prefix` and ten hex digits."""
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    api = Client(base, **options)
    api.accounts.register(name, PASSWORD)
    api.accounts.sign_in(name, PASSWORD)
    return api
