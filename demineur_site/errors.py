"""The one error type of the domain: services, selectors, the rules of statistics and the
boards raise `DomainError` (or a subclass that names its area, like games.errors.GameError)
with a stable machine-readable code (API.md), a human message and details. It knows no HTTP.

The doors map codes to statuses in one place, `demineur_site.api_errors.STATUS_BY_CODE`:
REST answers with that status and the API.md body, a socket sends the same body in an
`error` frame (and closes with 4000 + status where it closes at all).
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A refused action: nothing was stored (and, for a game, no `seq` was taken)."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"
