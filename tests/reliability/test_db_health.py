"""demineur_site.db_health: the persistent connection is tested (`SELECT 1`) before a request
only when it has been idle; a connection used a moment ago is not tested again."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from demineur_site import db_health

pytestmark = pytest.mark.django_db


@pytest.fixture
def checked_connection():  # type: ignore[no-untyped-def]
    connection.ensure_connection()
    enabled = connection.health_check_enabled
    connection.health_check_enabled = True
    yield connection
    connection.health_check_enabled = enabled


def test_a_connection_used_a_moment_ago_is_not_tested(checked_connection) -> None:  # type: ignore[no-untyped-def]
    db_health._remember_use()
    checked_connection.health_check_done = False  # what Django's close_old_connections does
    db_health._skip_check_if_recent()
    assert checked_connection.health_check_done is True


def test_an_idle_connection_is_tested(checked_connection) -> None:  # type: ignore[no-untyped-def]
    db_health._remember_use()
    setattr(
        checked_connection,
        db_health._USED_AT,
        time.monotonic() - db_health.RECENTLY_USED_S - 0.1,
    )
    checked_connection.health_check_done = False
    db_health._skip_check_if_recent()
    assert checked_connection.health_check_done is False


def test_a_connection_that_failed_is_not_remembered_as_alive(checked_connection) -> None:  # type: ignore[no-untyped-def]
    setattr(checked_connection, db_health._USED_AT, None)
    checked_connection.errors_occurred = True
    try:
        db_health._remember_use()
    finally:
        checked_connection.errors_occurred = False
    checked_connection.health_check_done = False
    db_health._skip_check_if_recent()
    assert checked_connection.health_check_done is False


def test_a_connection_without_health_checks_is_left_alone(checked_connection) -> None:  # type: ignore[no-untyped-def]
    checked_connection.health_check_enabled = False
    db_health._remember_use()
    checked_connection.health_check_done = False
    db_health._skip_check_if_recent()
    assert checked_connection.health_check_done is False
