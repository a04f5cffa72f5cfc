"""Arenas: timed tournaments of races (RULES.md and API.md, Arenas; docs/ARENAS.md)."""
