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

Account creation has limits of its own (docs/SECURITY.md, sign-ups), counted only when an account is
about to be made (after its input passed), so a refused sign-up costs nothing:

* per address: new guests per rolling day, `GuestsPerDayThrottle` (scope `guest_day`,
  ACCOUNT_GUESTS_PER_ADDRESS_DAY); sign-ups per rolling hour and per rolling day,
  `SignUpsPerHourThrottle` (scope `signup_hour`, ACCOUNT_SIGNUPS_PER_ADDRESS_HOUR) and
  `SignUpsPerDayThrottle` (scope `signup_day`, ACCOUNT_SIGNUPS_PER_ADDRESS_DAY): the hour
  lets a class sign up in one lesson and its refusals wait an hour at most, the day is the
  ceiling for the address (docs/ACCOUNTS.md, Limits);
* for the whole site and rolling hour: `NewAccountsThrottle` (scope `new_accounts`,
  ACCOUNT_NEW_PER_HOUR), whose refusals are the alarm: a WARNING log line (the first, then at
  most one a minute per process, with the count) and `new_account_ceiling_refusals()`, a
  counter of this process that a metrics endpoint can read.

Verification mails asked for with `POST /api/me/email` have two limits of the same kind
(`EmailRecipientThrottle` per hashed address, `EmailAccountThrottle` per account).

Limits that guard one action together are taken with `take_all`: all of them count it, or
none does, so a refusal by one spends nothing of the others.

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
from rest_framework.exceptions import Throttled
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


# --- Limits a view takes itself: account creation, verification mails ------------------------


class TakenThrottle(WindowRateThrottle):
    """A limit the view takes itself (`take_all`) once the action is about to happen, not in
    `throttle_classes`, which would count refused requests too. A rate of None (a setting of
    0) turns it off, as for any DRF throttle. `message` is what its refusal says."""

    message = "Too many requests; try again later."

    def peek(self, request: Request, view: Any) -> bool:
        """Whether the window has room for one more now, counting nothing; `wait()` then
        answers for this look."""
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        hit = getattr(self.cache, "window_hit", None)
        if hit is not None:
            # `window_hit` adds a request only while fewer than `limit` are in the window: with
            # a limit of 0 it adds none and answers the count and the oldest time.
            _, count, oldest = hit(self.key, now=self.now, duration=self.duration, limit=0)
            self._window = (count, oldest)
            return bool(count < self.num_requests)
        self._window = None  # DRF's own list of times, newest first, as allow_request reads it
        self.history = [t for t in self.cache.get(self.key, []) if t > self.now - self.duration]
        return len(self.history) < self.num_requests

    def refused(self) -> None:
        """Called once for each request this limit refuses."""


def take_all(request: Request, view: Any, limits: list[TakenThrottle]) -> None:
    """Count this request in every one of `limits`, or in none: when one or more are full,
    429 `throttled` whose Retry-After is the longest of their waits (the moment every refusing
    window has room again) and nothing is counted anywhere, so retries refused by one limit
    never spend another's budget. Two requests at the same instant may both find room and
    race for the last place: the loser is refused by the limit it lost at, after the limits
    before it counted it (one place each, never more than the requests racing)."""
    full = [limit for limit in limits if not limit.peek(request, view)]
    if not full:
        for limit in limits:
            if not limit.allow_request(request, view):
                full = [limit]
                break
        else:
            return
    waits = []
    for limit in full:
        limit.refused()
        wait = limit.wait()
        waits.append((float(limit.duration) if wait is None else max(wait, 1.0), limit))
    wait, longest = max(waits, key=lambda pair: pair[0])
    raise Throttled(wait=wait, detail=longest.message)


def _address_key(throttle: WindowRateThrottle, request: Request) -> str:
    return throttle.cache_format % {"scope": throttle.scope, "ident": throttle.get_ident(request)}


class GuestsPerDayThrottle(TakenThrottle):
    """New guests per address and rolling day (ACCOUNT_GUESTS_PER_ADDRESS_DAY)."""

    scope = "guest_day"
    message = "Too many guest accounts from this address today."

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return _address_key(self, request)


class SignUpsPerHourThrottle(TakenThrottle):
    """New accounts by sign-up per address and rolling hour (ACCOUNT_SIGNUPS_PER_ADDRESS_HOUR).
    A guest signing up makes no new account and is not counted."""

    scope = "signup_hour"
    message = "Too many new accounts from this address this hour; try again later."

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return _address_key(self, request)


class SignUpsPerDayThrottle(SignUpsPerHourThrottle):
    """New accounts by sign-up per address and rolling day (ACCOUNT_SIGNUPS_PER_ADDRESS_DAY):
    the address's ceiling, above the hourly rate."""

    scope = "signup_day"
    message = "Too many new accounts from this address today."


class NewAccountsThrottle(TakenThrottle):
    """New accounts (guests and sign-ups) on the whole site per rolling hour
    (ACCOUNT_NEW_PER_HOUR): the ceiling. Over it, every address is refused and the alarm
    goes off (`_alarm`)."""

    scope = "new_accounts"
    message = "Too many new accounts on the site this hour; try again later."

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": "all"}

    def refused(self) -> None:
        _alarm(limit=self.num_requests, duration=self.duration)


def _email_digest(email: object) -> str | None:
    """The fixed-size key of a submitted address: hashed, trimmed and lower-cased (the
    address itself is never a cache key). None when there is no address to count."""
    if not isinstance(email, str) or not email.strip() or not is_encodable(email):
        return None
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def _email_key(throttle: Any, request: Request) -> str | None:
    """The cache key of a throttle counted per submitted address (hashed), or None without one."""
    data = request.data
    digest = _email_digest(data.get("email") if isinstance(data, dict) else None)
    if digest is None:
        return None
    return str(throttle.cache_format % {"scope": throttle.scope, "ident": digest})


class EmailRecipientThrottle(TakenThrottle):
    """Verification mails of `POST /api/me/email` per recipient, whatever the account
    (THROTTLE_EMAIL_RECIPIENT, 5/day): nobody's inbox fills with links they never asked for."""

    scope = "email_recipient"
    message = "Too many verification mails to this address today; try again later."

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return _email_key(self, request)


class EmailAccountThrottle(TakenThrottle):
    """Verification mails of `POST /api/me/email` per account, whatever the addresses
    (THROTTLE_EMAIL_ACCOUNT, 10/day): one account cannot mail a list of strangers."""

    scope = "email_account"
    message = "Too many address changes for this account today; try again later."

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": f"user-{user.pk}"}


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
        return _email_key(self, request)


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


# --- Two-factor codes outside the sign-in (docs/ACCOUNTS.md, Two-factor sign-in) ------------


class _AccountNameThrottle(SignInUsernameThrottle):
    """The sign-in's per-name count (`auth_username`), keyed by a signed-in account's own name:
    a code checked for an account spends the budget of a sign-in naming that account."""

    def __init__(self, username: str) -> None:
        super().__init__()
        self.username = username

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        digest = _username_digest(self.username)
        if digest is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": digest}


def code_check_wait(request: HttpRequest | Request, username: str) -> float | None:
    """Before a door other than the sign-in checks a two-factor code (or an enrolment code, or
    the password given beside one) of the account `username`: None when it may, else the
    seconds to wait, and nothing may be checked. Both sign-in counts are taken, per address
    (THROTTLE_AUTH) and per account (THROTTLE_AUTH_USERNAME), under the sign-in's own keys, so
    guesses through `POST /api/me/totp/confirm`, `DELETE /api/me/totp`, the API's sign-in and
    the admin's come out of one budget. (The sign-ins take the same counts through their
    throttles: a sign-in is counted once.)"""
    waits = []
    for throttle in (AuthAddressThrottle(), _AccountNameThrottle(username)):
        if not throttle.allow_request(request, None):  # type: ignore[arg-type]
            waits.append(throttle.wait() or 1.0)
    return max(waits) if waits else None


class TotpOffWithoutPasswordThrottle(WindowRateThrottle):
    """`DELETE /api/me/totp` with a code and no password (API.md's body), per account: 5 a
    day. The web page sends the password; a client that follows API.md sends the code alone,
    and a stolen token must not get the sign-in's ten guesses a minute at that. A rate for
    the scope `totp_off_code_only` in DEFAULT_THROTTLE_RATES would replace the 5 a day."""

    scope = "totp_off_code_only"
    DEFAULT_RATE = "5/day"

    def __init__(self, username: str) -> None:
        self.username = username
        super().__init__()

    def get_rate(self) -> str | None:
        return self.THROTTLE_RATES.get(self.scope, self.DEFAULT_RATE)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        digest = _username_digest(self.username)
        if digest is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": digest}
