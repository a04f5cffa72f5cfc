"""Fixtures of the reliability tests that run real servers on private services."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.services import PrivatePostgres


@pytest.fixture(scope="module")
def private_pg() -> Iterator[PrivatePostgres]:
    """A private PostgreSQL cluster for one test module (never the machine's shared one: the
    tests stop it). fsync is off: the data is thrown away with it."""
    with PrivatePostgres(fsync=False) as pg:
        yield pg
