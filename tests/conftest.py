"""The suite's shared fixtures live in tests/support/; importing them here makes them visible
to every test package."""

from tests.support.personas import (  # noqa: F401  (fixtures)
    alice,
    alice_api,
    alice_token,
    anon_api,
    bob,
    bob_api,
    bob_token,
    carol,
    carol_api,
    close_thread_connections,
    dave,
    dave_api,
    session_cookie,
)
from tests.support.sockets import new_game  # noqa: F401  (fixture)
