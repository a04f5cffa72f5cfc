"""Throttles of the sign-up and sign-in endpoints (API.md: 429 `throttled` with Retry-After).

Two keys, so that neither a botnet against one account nor one address against many accounts
gets unlimited guesses:

* `AuthAddressThrottle` (scope `auth`, THROTTLE_AUTH, 30/min by default): per client address,
  shared by register, token and session. The address is the connection's peer unless
  TRUSTED_PROXIES says how many proxies in front of us append to X-Forwarded-For (DRF's
  NUM_PROXIES), so a client that invents X-Forwarded-For headers gets no fresh budget.
* `SignInUsernameThrottle` (scope `auth_username`, THROTTLE_AUTH_USERNAME, 10/min by
  default): per submitted username, whatever the address, on sign-in only (POST).

The counts live in the default cache: Redis when REDIS_URL is set, so every worker process
shares them. Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], as for DRF's own
throttles (tests patch SimpleRateThrottle.THROTTLE_RATES, the dict DRF reads them from).
"""

from __future__ import annotations

import hashlib
from typing import Any

from rest_framework.request import Request

from demineur_site.throttling import WindowRateThrottle


class AuthAddressThrottle(WindowRateThrottle):
    scope = "auth"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class SignInUsernameThrottle(WindowRateThrottle):
    """Keyed on the username in the body (case-folded, hashed into a fixed-size cache key)."""

    scope = "auth_username"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.method != "POST":
            return None
        data = request.data  # a malformed body raises ParseError here: 400, as it would anyway
        username = data.get("username") if isinstance(data, dict) else None
        if not isinstance(username, str) or not username.strip():
            return None  # nothing to sign in as: the serializer answers 400
        digest = hashlib.sha256(username.strip().casefold().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": digest}
