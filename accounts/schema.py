"""OpenAPI description of the session sign-in used by the web page, and of a DELETE's body
(drf-spectacular)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema


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


class BodyOnDeleteSchema(AutoSchema):
    """The schema of a view whose DELETE reads a body (`DELETE /api/me/totp {code,
    password?}`, API.md): drf-spectacular documents the bodies of PUT, PATCH and POST only,
    so a DELETE's is documented as a POST's would be."""

    def _get_request_body(self, direction: str = "request") -> Any:
        if self.method != "DELETE":
            return super()._get_request_body(direction)  # type: ignore[no-untyped-call]
        self.method = "POST"
        try:
            return super()._get_request_body(direction)  # type: ignore[no-untyped-call]
        finally:
            self.method = "DELETE"
