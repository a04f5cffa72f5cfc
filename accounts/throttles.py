"""Throttles of the sign-up and sign-in endpoints (API.md: 429 `throttled` with Retry-After).

Two keys on sign-in, so that neither a botnet against one account nor one address against
many accounts gets unlimited guesses:

* `AuthAddressThrottle` (scope `auth`, THROTTLE_AUTH, 30/min by default): per client address,
  shared by register, guest, token, session and the admin's sign-in. The address is the
  connection's peer unless TRUSTED_PROXIES says how many proxies in front of us append to
  X-Forwarded-For (DRF's NUM_PROXIES), so a client that invents X-Forwarded-For headers gets
  no fresh budget.
* `SignInUsernameThrottle` (scope `auth_username`, THROTTLE_AUTH_USERNAME, 10/min by
  default): per submitted username, whatever the address, on sign-in only (POST). The name is
  keyed by accounts.names.name_key, so `alice`, `ALICE`, a fullwidth `alice` and one with
  a Cyrillic `a` share one budget, as they name one account.

`admin_sign_in_wait` applies both, with the same keys, to the Django admin's sign-in form.

Account creation has limits of its own (issue 20, item 7), counted only when an account is
about to be made (after its input passed), so a refused sign-up costs nothing:

* per address and rolling day: `GuestsPerDayThrottle` (scope `guest_day`,
  ACCOUNT_GUESTS_PER_ADDRESS_DAY) and `SignUpsPerDayThrottle` (scope `signup_day`,
  ACCOUNT_SIGNUPS_PER_ADDRESS_DAY);
* for the whole site and rolling hour: `NewAccountsThrottle` (scope `new_accounts`,
  ACCOUNT_NEW_PER_HOUR), whose refusals are the alarm: a WARNING log line (the first, then at
  most one a minute per process, with the count) and `new_account_ceiling_refusals()`, a
  counter of this process that a metrics endpoint can read.

The counts live in the default cache: Redis when REDIS_URL is set, so every worker process
shares them. Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], as for DRF's own
throttles (tests patch SimpleRateThrottle.THROTTLE_RATES, the dict DRF reads them from).
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from typing import Any

from django.http import HttpRequest
from rest_framework.request import Request

from accounts.names import is_encodable, name_key
from demineur_site.throttling import WindowRateThrottle

log = logging.getLogger(__name__)


class AuthAddressThrottle(WindowRateThrottle):
    scope = "auth"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def _username_digest(username: object) -> str | None:
    """The fixed-size key of a submitted name: its name key, hashed. None when there is no
    name to sign in as (the serializer answers 400), a lone surrogate included."""
    if not isinstance(username, str) or not username.strip() or not is_encodable(username):
        return None
    return hashlib.sha256(name_key(username.strip()).encode()).hexdigest()


class SignInUsernameThrottle(WindowRateThrottle):
    """Keyed on the username in the body (its name key, hashed into a fixed-size cache key)."""

    scope = "auth_username"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.method != "POST":
            return None
        data = request.data  # a malformed body raises ParseError here: 400, as it would anyway
        digest = _username_digest(data.get("username") if isinstance(data, dict) else None)
        if digest is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": digest}


class _AdminAddressThrottle(AuthAddressThrottle):
    """The admin's sign-in form, per address: the API's own `auth` count."""


class _AdminUsernameThrottle(SignInUsernameThrottle):
    """The admin's sign-in form, per username: the API's own `auth_username` count, read
    from the form's `username` field."""

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        digest = _username_digest(request.POST.get("username"))
        if digest is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": digest}


def admin_sign_in_wait(request: HttpRequest) -> float | None:
    """For a POST of the admin's sign-in form: None when the attempt may go on, else the
    seconds to wait (the attempt is refused whatever its password). Both counts are taken,
    as for the API's sign-in, so the admin and the API share one budget per name and one
    per address."""
    waits = []
    for throttle in (_AdminAddressThrottle(), _AdminUsernameThrottle()):
        if not throttle.allow_request(request, None):  # type: ignore[arg-type]
            waits.append(throttle.wait() or 1.0)
    return max(waits) if waits else None


# --- Account creation ------------------------------------------------------------------------


class _CreationThrottle(WindowRateThrottle):
    """Checked by the view itself once an account is about to be made (not in
    `throttle_classes`, which would count refused sign-ups too). A rate of None (a setting of
    0) turns it off, as for any DRF throttle."""


class GuestsPerDayThrottle(_CreationThrottle):
    """New guests per address and rolling day (ACCOUNT_GUESTS_PER_ADDRESS_DAY)."""

    scope = "guest_day"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class SignUpsPerDayThrottle(GuestsPerDayThrottle):
    """New accounts by sign-up per address and rolling day (ACCOUNT_SIGNUPS_PER_ADDRESS_DAY).
    A guest signing up makes no new account and is not counted."""

    scope = "signup_day"


class NewAccountsThrottle(_CreationThrottle):
    """New accounts (guests and sign-ups) on the whole site per rolling hour
    (ACCOUNT_NEW_PER_HOUR): the ceiling. Over it, every address is refused and the alarm
    goes off (`_alarm`)."""

    scope = "new_accounts"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": "all"}

    def allow_request(self, request: Request, view: Any) -> bool:
        allowed = super().allow_request(request, view)
        if not allowed:
            _alarm(limit=self.num_requests, duration=self.duration)
        return allowed


_refusals = 0
_refusals_logged = 0
_last_alarm = float("-inf")
_alarm_lock = threading.Lock()
ALARM_EVERY_SECONDS = 60.0


def new_account_ceiling_refusals() -> int:
    """Accounts this process refused at the site-wide ceiling since it started (a counter
    for metrics: it only grows)."""
    return _refusals


def _alarm(*, limit: int, duration: int) -> None:
    global _refusals, _refusals_logged, _last_alarm
    with _alarm_lock:
        _refusals += 1
        now = time.monotonic()
        if now - _last_alarm < ALARM_EVERY_SECONDS:
            return
        since, _refusals_logged, _last_alarm = _refusals - _refusals_logged, _refusals, now
    log.warning(
        "new accounts: the site-wide ceiling of %d per %d s is reached; "
        "%d sign-up(s) or guest(s) refused since the last warning (%d in this process)",
        limit,
        duration,
        since,
        _refusals,
    )


# --- Password reset (docs/ACCOUNTS.md) -------------------------------------------------------


class ResetAddressThrottle(WindowRateThrottle):
    """Reset requests per client address (THROTTLE_RESET_ADDRESS, 20/hour)."""

    scope = "reset_address"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class ResetEmailThrottle(WindowRateThrottle):
    """Reset requests per submitted address, whatever the client (THROTTLE_RESET_EMAIL,
    3/hour): nobody floods one inbox. Counted whether or not an account has the address, so
    the count says nothing about it either."""

    scope = "reset_email"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        data = request.data
        email = data.get("email") if isinstance(data, dict) else None
        if not isinstance(email, str) or not email.strip() or not is_encodable(email):
            return None
        digest = hashlib.sha256(email.strip().lower().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": digest}


class GamesExportThrottle(WindowRateThrottle):
    """Games exports per account, else per client address (THROTTLE_GAMES_EXPORT, 10/hour):
    an export streams a player's whole history."""

    scope = "games_export"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        user = getattr(request, "user", None)
        ident = (
            f"user-{user.pk}"
            if user is not None and user.is_authenticated
            else self.get_ident(request)
        )
        return self.cache_format % {"scope": self.scope, "ident": ident}
