"""Sign-in by name as players type it (docs/SECURITY.md, names): Django's ModelBackend, except that
the name is looked up with accounts.services.user_by_name (exact, else the same name key), so
`ALICE` or a fullwidth `alice` signs in as `alice`, over the API and in the admin alike.
An unknown name still runs the password hasher once (ModelBackend's own timing guard).
A closed account may sign in within its reopening window (docs/ACCOUNTS.md, Closing)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from accounts.names import is_encodable
from accounts.services import can_reopen, user_by_name


class NameBackend(ModelBackend):
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if isinstance(username, str):
            if not is_encodable(username):
                return None  # a lone surrogate: no such name can exist, nor be looked up
            found = user_by_name(username)
            if found is not None:
                username = found.get_username()
        return super().authenticate(request, username=username, password=password, **kwargs)

    def user_can_authenticate(self, user: Any) -> bool:
        """An active account, or a closed one within its window: signing in reopens it
        (accounts.services.account_reopen; docs/ACCOUNTS.md, Closing)."""
        if getattr(user, "is_active", False):
            return True
        return getattr(user, "closed_at", None) is not None and can_reopen(user)
