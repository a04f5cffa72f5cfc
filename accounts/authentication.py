"""`Authorization: Token <key>` against the hashed ApiToken table (REST and WebSockets)."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from .models import ApiToken, User, hash_token_key


def user_for_token_key(key: str) -> tuple[User, ApiToken] | None:
    if not key or len(key) > 128:
        return None
    token = ApiToken.objects.select_related("user").filter(key_hash=hash_token_key(key)).first()
    if token is None or not token.user.is_active:
        return None
    return token.user, token


class ApiTokenAuthentication(authentication.TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        found = user_for_token_key(key)
        if found is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        return found


class SessionAuthentication401(authentication.SessionAuthentication):
    """Session auth whose failures answer 401 (not signed in), with CSRF enforced."""

    def authenticate_header(self, request: Request) -> str:
        return "Session"
