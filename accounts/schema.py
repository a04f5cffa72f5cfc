"""OpenAPI description of the session sign-in used by the web page (drf-spectacular)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class SessionCookieScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "accounts.authentication.SessionAuthentication401"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}


class GuestSessionCookieScheme(SessionCookieScheme):  # type: ignore[no-untyped-call]
    """Sign-up reads the session cookie of a guest only (docs/GUESTS.md): the same cookie,
    under a name of its own (one name per authentication class)."""

    target_class = "accounts.authentication.GuestSessionAuthentication"
    name = "guestCookieAuth"
