"""The one check of a level a client names for a race, an arena or a daily (written once,
not per room): one of the six levels of games.engine.LEVELS, else a refusal that
lists them, 400 `invalid` for a field of a body and 404 `not_found` for a segment of a path."""

from __future__ import annotations

from typing import Any

from games import engine
from games.errors import GameError


def level_spec(level: Any, *, what: str, in_path: bool = False) -> engine.Level:
    """The Level named `level`; `what` names what the six levels are for ("races")."""
    spec = engine.LEVELS.get(level) if isinstance(level, str) else None
    if spec is not None:
        return spec
    details = {"levels": list(engine.LEVELS)}
    if in_path:
        raise GameError("not_found", f"No {what} for this level.", details)
    raise GameError("invalid", f"Unknown level {level!r}: {what} use the six levels.", details)
