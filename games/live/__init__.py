"""The socket doors: consumers for a game, the lobby and a race, their sign-in and Origin
checks (auth), limits (guard), frame reading (frames), ordering by seq (sequencing, pure) and
the resync after a Redis outage. Calls games.play and games.races; nothing imports it but the
ASGI application (docs/LIVE.md)."""
