"""The refusals of a game action. Their codes (API.md) and the one status each has at the
doors are in demineur_site.api_errors.STATUS_BY_CODE; this module knows no HTTP."""

from __future__ import annotations

from demineur_site.errors import DomainError


class GameError(DomainError):
    """A refused game action. Nothing was stored and no `seq` was taken."""
