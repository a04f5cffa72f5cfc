"""Two-factor sign-in: TOTP (RFC 6238) with pyotp, recovery codes (docs/ACCOUNTS.md, 2FA).

* `enrol` makes a fresh secret (inactive) and answers it with its `otpauth://` URI, for an
  authenticator app, and that URI as a QR code (`qr_svg`); enrolling again before confirming
  replaces it.
* `confirm` checks a first code: the secret becomes active and ten recovery codes are made,
  shown once and stored hashed (SHA-256: they are random, 50 bits each, nothing to salt).
* `check` at sign-in: a current code (the 30 s step, one step either side for clocks that
  drift), never a step already used (`TwoFactor.last_step`: no replay of a code seen over a
  shoulder or a proxy log), or an unused recovery code (then used up). `refusal` says why a
  code was refused: `used` (a code of the window whose step was already taken: the owner
  typed it twice and only has to wait for the next one) or `wrong`.
* `disable` needs a current code (or a recovery code), and the password when one is given,
  and removes the secret and codes.

Guessing is bounded by one budget per account and one per address, the sign-in's: every door
that checks a code takes a count first (the sign-ins through their throttles, the other doors
through accounts.throttles.code_check_wait, with the same keys), so a code is guessed no
faster through `DELETE /api/me/totp` or the confirmation than through the sign-in.

Staff (`STAFF_REQUIRE_TOTP`): the password alone must not let anyone put their own
authenticator on a staff account, since a second factor is what opens the admin. So a staff
account confirms its secret only with an **enrolment code** that an operator makes on the
server (`manage.py staff_enrol <username>`: `issue_enrolment_code`) and hands to its owner.
The code is stored as a hash among the account's recovery codes (an account without two-factor
sign-in has none of its own: `disable` deletes them), carries its expiry inside the hashed
text, and goes with the recovery codes the confirmation replaces: used once.
"""

from __future__ import annotations

import hashlib
import io
import secrets
import time
from datetime import datetime, timedelta

import pyotp
import segno
from django.conf import settings
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
# An enrolment code: its expiry (Unix seconds, hex) and 20 random characters (~99 bits).
ENROLMENT_HOURS = 24
_ENROLMENT_PREFIX = "staff-enrolment:"  # hashed with the code: never a recovery code's hash


def _hash(code: str) -> str:
    return hashlib.sha256(code.replace("-", "").strip().lower().encode()).hexdigest()


def _new_recovery_code() -> str:
    raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(10))
    return f"{raw[:5]}-{raw[5:]}"


def is_active(user: User) -> bool:
    return TwoFactor.objects.filter(user=user, confirmed_at__isnull=False).exists()


def needs_enrolment_code(user: User) -> bool:
    """A staff account under STAFF_REQUIRE_TOTP confirms two-factor sign-in only with an
    operator's enrolment code."""
    return bool(settings.STAFF_REQUIRE_TOTP) and bool(user.is_staff or user.is_superuser)


def _enrolment_hash(code: str) -> str:
    return hashlib.sha256(f"{_ENROLMENT_PREFIX}{code.strip().lower()}".encode()).hexdigest()


def issue_enrolment_code(
    *, user: User, hours: int = ENROLMENT_HOURS, replace: bool = False
) -> tuple[str, datetime]:
    """A new enrolment code for `user` and its expiry; the account's earlier ones stop
    working. With two-factor sign-in on, refused unless `replace`, which turns it off first
    (a lost or foreign authenticator)."""
    if user.kind == AccountKind.GUEST:
        raise DomainError("guest_account", "A guest account has no sign-in: sign up first.")
    expires = timezone.now() + timedelta(hours=hours)
    raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(20))
    groups = "-".join(raw[i : i + 5] for i in range(0, 20, 5))
    code = f"{int(expires.timestamp()):x}-{groups}"
    with transaction.atomic():
        current = TwoFactor.objects.select_for_update().filter(user=user).first()
        if current is not None and current.confirmed_at is not None and not replace:
            raise DomainError("totp_active", "Two-factor sign-in is already on.")
        if current is not None:
            # A pending secret goes too: whoever started it (the password is enough for
            # that) must not be the one whose authenticator the code then confirms.
            current.delete()
        # Without two-factor sign-in on, every row here is an earlier enrolment code.
        RecoveryCode.objects.filter(user=user).delete()
        RecoveryCode.objects.create(user=user, code_hash=_enrolment_hash(code))
    return code, expires


def _enrolment_code_valid(user: User, code: str) -> bool:
    """An unexpired enrolment code of `user`'s (the caller holds the TwoFactor row's lock)."""
    expiry, _, rest = code.strip().partition("-")
    if not rest or len(code) > 64:
        return False
    try:
        expires = int(expiry, 16)
    except ValueError:
        return False
    if expires <= time.time():
        return False
    return RecoveryCode.objects.filter(
        user=user, code_hash=_enrolment_hash(code), used_at__isnull=True
    ).exists()


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


def qr_svg(uri: str) -> str:
    """The otpauth URI as a QR code: a standalone SVG document written by segno alone (two
    paths, no text from the request), which the page shows as an image, never as markup.
    Error correction M, the usual for codes read from a screen."""
    out = io.BytesIO()
    segno.make(uri, error="m").save(
        out, kind="svg", xmldecl=False, svgns=True, svgclass=None, lineclass=None, nl=False,
        border=4, dark="#000", light="#fff",
    )  # fmt: skip
    return out.getvalue().decode("ascii")


def _code_steps(secret: str, code: str) -> list[int]:
    """The time steps a 6-digit code is valid for: now, or one step either side."""
    code = code.strip().replace(" ", "")
    if len(code) != 6 or not code.isdigit():
        return []
    totp = pyotp.TOTP(secret)
    now_step = int(time.time()) // totp.interval
    return [
        step
        for step in (now_step, now_step - 1, now_step + 1)
        if secrets.compare_digest(totp.generate_otp(step), code)
    ]


def _matching_step(secret: str, code: str, last_step: int) -> int | None:
    """The time step a 6-digit code is valid for, if it is later than `last_step`."""
    return next((step for step in _code_steps(secret, code) if step > last_step), None)


# Why a code was refused (the error's `details.reason`) and what to tell its owner.
USED = "used"
WRONG = "wrong"
USED_MESSAGE = "This code was already used: wait for the next code of your app."


def refusal(user: User, code: str) -> str:
    """Why `check` refused `code` just now: USED when it is a code of the window whose step
    was already taken (same or earlier step), WRONG otherwise. Saying `used` gives a guesser
    nothing: a used code opens nothing, and the window's codes change every 30 s."""
    active = TwoFactor.objects.filter(user=user).first()
    if active is None or not isinstance(code, str):
        return WRONG
    used = any(step <= active.last_step for step in _code_steps(active.secret, code))
    return USED if used else WRONG


def refused(code: str, wrong_message: str, reason: str) -> DomainError:
    """The refusal of a code under the error `code` API.md gives the door, with its reason."""
    message = USED_MESSAGE if reason == USED else wrong_message
    return DomainError(code, message, {"reason": reason})


def confirm(*, user: User, code: str, enrolment_code: str | None = None) -> list[str]:
    """Turn the pending secret on with a first good code; the ten recovery codes (once). A
    staff account under STAFF_REQUIRE_TOTP gives an operator's enrolment code too, which the
    new recovery codes replace (used once)."""
    with transaction.atomic():
        pending = TwoFactor.objects.select_for_update().filter(user=user).first()
        if pending is None:
            raise DomainError(
                "totp_inactive", "Start two-factor sign-in first (POST /api/me/totp)."
            )
        if pending.confirmed_at is not None:
            raise DomainError("totp_active", "Two-factor sign-in is already on.")
        if needs_enrolment_code(user):
            if not enrolment_code:
                raise DomainError(
                    "enrolment_code_required",
                    "A staff account turns two-factor sign-in on with an enrolment code: "
                    "ask an operator for one (manage.py staff_enrol).",
                )
            if not _enrolment_code_valid(user, enrolment_code):
                raise DomainError(
                    "enrolment_code_invalid", "The enrolment code is wrong, used or expired."
                )
        step = _matching_step(pending.secret, code, pending.last_step)
        if step is None:
            raise refused("wrong_otp", "The code is wrong or expired.", WRONG)
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


def disable(*, user: User, code: str, password: str | None = None) -> None:
    """Turn two-factor sign-in off with a current or recovery code; a password, when given,
    must be the account's (the web page always sends it)."""
    if not is_active(user):
        raise DomainError("totp_inactive", "Two-factor sign-in is not on.")
    if password is not None and not user.check_password(password):
        raise DomainError("wrong_password", "The password is wrong.")
    if not check(user=user, code=code):
        raise refused("wrong_otp", "The code is wrong or expired.", refusal(user, code))
    with transaction.atomic():
        TwoFactor.objects.filter(user=user).delete()
        RecoveryCode.objects.filter(user=user).delete()


def recovery_codes_left(user: User) -> int:
    """Unused recovery codes (none while two-factor sign-in is off: an enrolment code is not
    one)."""
    if not is_active(user):
        return 0
    return RecoveryCode.objects.filter(user=user, used_at__isnull=True).count()
