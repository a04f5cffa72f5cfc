"""What every room's socket doors share (the sockets themselves are the rooms': games.play.sockets,
games.play.event_stream, games.races.sockets, games.arenas.sockets): the lean consumer and its
edge checks (base), the numbered-events base (sequenced), one membership of the layer per group
and process (hub), sign-in and Origin checks (auth), limits (guard), frame reading and writing
(frames), ordering by seq (sequencing, pure), database calls (dbcall), the resync after a Redis
outage (redis_watch), the NDJSON adapter (streams) and the socket routes (routing). Imports no
room, except the routes, which name every room's sockets (docs/LIVE.md)."""
