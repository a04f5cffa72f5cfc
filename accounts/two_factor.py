"""Two-factor sign-in: TOTP (RFC 6238) with pyotp, recovery codes (docs/ACCOUNTS.md, 2FA).

* `enrol` makes a fresh secret (inactive) and answers it with its `otpauth://` URI, for an
  authenticator app; enrolling again before confirming replaces it.
* `confirm` checks a first code: the secret becomes active and ten recovery codes are made,
  shown once and stored hashed (SHA-256: they are random, 50 bits each, nothing to salt).
* `check` at sign-in: a current code (the 30 s step, one step either side for clocks that
  drift), never a step already used (`TwoFactor.last_step`: no replay of a code seen over a
  shoulder or a proxy log), or an unused recovery code (then used up).
* `disable` needs a current code (or a recovery code) and removes the secret and codes.

Guessing is bounded by the sign-in throttles (per address and per username: 10 a minute).
"""

from __future__ import annotations

import hashlib
import secrets
import time

import pyotp
from django.db import transaction
from django.utils import timezone

from accounts.models import AccountKind, RecoveryCode, TwoFactor, User
from demineur_site.errors import DomainError

ISSUER = "Démineur"
# Set in a session that signed in with a second factor: the admin asks it of staff
# (STAFF_REQUIRE_TOTP; accounts.admin).
OTP_SESSION_KEY = "_otp_verified"
RECOVERY_CODES = 10
_RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i


def _hash(code: str) -> str:
    return hashlib.sha256(code.replace("-", "").strip().lower().encode()).hexdigest()


def _new_recovery_code() -> str:
    raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(10))
    return f"{raw[:5]}-{raw[5:]}"


def is_active(user: User) -> bool:
    return TwoFactor.objects.filter(user=user, confirmed_at__isnull=False).exists()


def enrol(*, user: User) -> tuple[str, str]:
    """(secret, otpauth URI) of a new, inactive secret."""
    if user.kind == AccountKind.GUEST:
        raise DomainError("guest_account", "A guest account has no sign-in: sign up first.")
    with transaction.atomic():
        current = TwoFactor.objects.select_for_update().filter(user=user).first()
        if current is not None and current.confirmed_at is not None:
            raise DomainError("totp_active", "Two-factor sign-in is already on.")
        secret = pyotp.random_base32()
        TwoFactor.objects.update_or_create(
            user=user, defaults={"secret": secret, "confirmed_at": None, "last_step": 0}
        )
    uri = pyotp.TOTP(secret).provisioning_uri(name=user.username, issuer_name=ISSUER)
    return secret, uri


def _matching_step(secret: str, code: str, last_step: int) -> int | None:
    """The time step a 6-digit code is valid for (now, or one step either side), if it is
    later than `last_step`."""
    code = code.strip().replace(" ", "")
    if len(code) != 6 or not code.isdigit():
        return None
    totp = pyotp.TOTP(secret)
    now_step = int(time.time()) // totp.interval
    for step in (now_step, now_step - 1, now_step + 1):
        if step > last_step and secrets.compare_digest(totp.generate_otp(step), code):
            return step
    return None


def confirm(*, user: User, code: str) -> list[str]:
    """Turn the pending secret on with a first good code; the ten recovery codes (once)."""
    with transaction.atomic():
        pending = TwoFactor.objects.select_for_update().filter(user=user).first()
        if pending is None:
            raise DomainError(
                "totp_inactive", "Start two-factor sign-in first (POST /api/me/totp)."
            )
        if pending.confirmed_at is not None:
            raise DomainError("totp_active", "Two-factor sign-in is already on.")
        step = _matching_step(pending.secret, code, pending.last_step)
        if step is None:
            raise DomainError("otp_invalid", "The code is wrong or expired.")
        pending.confirmed_at = timezone.now()
        pending.last_step = step
        pending.save(update_fields=["confirmed_at", "last_step"])
        codes = [_new_recovery_code() for _ in range(RECOVERY_CODES)]
        RecoveryCode.objects.filter(user=user).delete()
        RecoveryCode.objects.bulk_create(
            [RecoveryCode(user=user, code_hash=_hash(c)) for c in codes]
        )
    return codes


def check(*, user: User, code: str) -> bool:
    """A sign-in's second factor: a fresh TOTP code or an unused recovery code (used up)."""
    if not isinstance(code, str) or not code.strip() or len(code) > 64:
        return False
    with transaction.atomic():
        active = (
            TwoFactor.objects.select_for_update()
            .filter(user=user, confirmed_at__isnull=False)
            .first()
        )
        if active is None:
            return True
        step = _matching_step(active.secret, code, active.last_step)
        if step is not None:
            active.last_step = step
            active.save(update_fields=["last_step"])
            return True
        used = RecoveryCode.objects.filter(
            user=user, code_hash=_hash(code), used_at__isnull=True
        ).update(used_at=timezone.now())
        return used == 1


def disable(*, user: User, code: str) -> None:
    if not is_active(user):
        raise DomainError("totp_inactive", "Two-factor sign-in is not on.")
    if not check(user=user, code=code):
        raise DomainError("otp_invalid", "The code is wrong or expired.")
    with transaction.atomic():
        TwoFactor.objects.filter(user=user).delete()
        RecoveryCode.objects.filter(user=user).delete()


def recovery_codes_left(user: User) -> int:
    return RecoveryCode.objects.filter(user=user, used_at__isnull=True).count()
