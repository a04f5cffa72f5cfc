"""Account writes: registration, guests (docs/GUESTS.md) and API tokens."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import email_links, sessions, socket_credentials
from accounts.models import (
    STORED_ALL_SCOPES,
    AccountKind,
    ApiToken,
    RetiredName,
    User,
    hash_token_key,
)
from accounts.names import is_encodable, name_key
from demineur_site.errors import DomainError

# Guest names: this prefix and GUEST_NAME_LENGTH characters of GUEST_NAME_ALPHABET, e.g.
# `guest-7f3k2q`. Sign-up refuses every name whose key (accounts.names.name_key: any case,
# width or look-alike spelling) starts with the prefix, so a guest's name never collides with
# a player's, and a player never passes for a guest.
GUEST_PREFIX = "guest-"
GUEST_NAME_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
GUEST_NAME_LENGTH = 6
_GUEST_NAME_ATTEMPTS = 10


def is_reserved_username(username: str) -> bool:
    return name_key(username).startswith(GUEST_PREFIX)


def username_taken(username: str) -> bool:
    """True when a player's name looks like `username` (the same key), or equals it but for
    case (a row without a key: bulk-inserted, or a twin older than the key), or a deleted
    account's name had that key (RetiredName: a deleted player's name is never reused)."""
    key = name_key(username)
    return (
        RetiredName.objects.filter(name_key=key).exists()
        or User.objects.filter(username_key=key).exists()
        or User.objects.filter(username__iexact=username).exists()
    )


def user_by_name(username: str) -> User | None:
    """The user a sign-in names: the exact name first (every name signs in as it always
    did), else the one whose name looks the same (`ALICE`, a fullwidth
    `alice` find `alice`)."""
    if not username or not is_encodable(username):
        return None
    exact = User.objects.filter(username=username).first()
    if exact is not None:
        return exact
    return User.objects.filter(username_key=name_key(username)).first()


@dataclass(frozen=True)
class SignUp:
    """What a sign-up asks for, validated by the door: the same for a new account and for a
    guest's account becoming a player's. `site_url` is where the verification link points."""

    username: str
    password: str = field(repr=False)
    email: str = ""
    kind: str = AccountKind.HUMAN
    site_url: str = ""


@transaction.atomic
def user_register(form: SignUp) -> User:
    """A new account; an address given is unverified until the mailed link is followed."""
    user = User.objects.create_user(
        username=form.username, password=form.password, email=form.email, kind=form.kind
    )
    if form.email:
        email_links.send_verification(user, form.site_url)
    return user


def guest_create() -> User:
    """A new guest account (RULES.md, Fair play): kind `guest`, a generated name, no usable
    password, so nobody can sign in as it: only the browser session it is made for holds it."""
    for _ in range(_GUEST_NAME_ATTEMPTS):
        name = GUEST_PREFIX + "".join(
            secrets.choice(GUEST_NAME_ALPHABET) for _ in range(GUEST_NAME_LENGTH)
        )
        # Sign-up refuses every name with this prefix in any case, so the unique index is the
        # one check needed: a name drawn twice is drawn again.
        user = User(username=name, kind=AccountKind.GUEST)
        user.set_unusable_password()
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:  # the same name made at the same instant elsewhere
            continue
        return user
    raise RuntimeError("no free guest name")  # 36**6 names: not reached in practice


# The anonymous players (docs/GUESTS.md, Stale guests): who the games and race entries of a
# removed guest belong to from then on. `guest-anonymous`, then `guest-anonymous-2`, ... for a
# race where the first already stands (a race holds a player once). The guest prefix keeps
# the names from sign-up; longer than a guest's own name, they are never drawn for a guest.
ANONYMOUS_PREFIX = GUEST_PREFIX + "anonymous"


def anonymous_player(slot: int = 1) -> User:
    """The `slot`-th anonymous player, made the first time it is needed: a guest that nobody
    can sign in as or hold a session of (inactive, no usable password), and that never ranks."""
    name = ANONYMOUS_PREFIX if slot == 1 else f"{ANONYMOUS_PREFIX}-{slot}"
    user = User.objects.filter(username=name).first()
    if user is not None:
        return user
    user = User(username=name, kind=AccountKind.GUEST, is_active=False)
    user.set_unusable_password()
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # made at the same instant by another run
        return User.objects.get(username=name)
    return user


# "Has this account played?" is a question about games, which accounts never imports: the
# doors pass games.play.selectors.has_played, and it is asked under the player's row lock.
HasPlayed = Callable[[User], bool]


def guest_sign_up(*, guest: User, form: SignUp, has_played: HasPlayed) -> User:
    """Signing up from a guest session: the guest account itself becomes the player's account
    (name, password, email, kind), so its games, statistics and race entries stay attached.
    The games it played as a guest stay unranked (`guest`, fixed at their creation). `bot`
    follows the rule of account_set_kind: only for an account that has not played yet."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=guest.pk)
        if locked.kind != AccountKind.GUEST:
            # The same session signed up a moment ago (a second click): a new account.
            return user_register(form)
        if form.kind == AccountKind.BOT and has_played(locked):
            raise DomainError(
                "account_has_games",
                "An account can change its kind only before its first game.",
            )
        locked.username = form.username
        locked.email = form.email
        locked.kind = form.kind
        locked.email_verified = False
        locked.set_password(form.password)
        locked.save(update_fields=["username", "email", "email_verified", "kind", "password"])
        if form.email:
            email_links.send_verification(locked, form.site_url)
    return locked


def account_set_kind(*, user: User, kind: str, has_played: HasPlayed) -> User:
    """`human` <-> `bot`, only before the account's first game (RULES.md, Fair play): a game
    counts as played from its first tap, so an untapped game does not stop the change, and
    the kind at each game's end is the one that ranks it. The player's row lock orders this
    against a game creation; a first tap racing it is the same request order a player sees."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.kind == AccountKind.GUEST:
            raise DomainError("guest_account", "A guest account becomes a player by signing up.")
        if locked.kind == kind:
            return locked
        if has_played(locked):
            raise DomainError(
                "account_has_games",
                "An account can change its kind only before its first game.",
            )
        locked.kind = kind
        locked.save(update_fields=["kind"])
    return locked


def token_issue(
    *, user: User, name: str = "api", scopes: str = STORED_ALL_SCOPES
) -> tuple[ApiToken, str]:
    """A new token for the user with these stored scopes (accounts.scopes); the key is
    returned once and only its hash is stored."""
    return ApiToken.issue(user=user, name=name, scopes=scopes)


def token_revoke(*, token: ApiToken) -> None:
    """Delete the token; after the commit, every socket it opened is closed (code 4401)."""
    token_id = token.pk
    with transaction.atomic():
        token.delete()
        socket_credentials.kick_token_sockets(token_id)


def app_token_issue(*, access: Any, key: str, scopes: str, expires: datetime) -> ApiToken:
    """The token row of an app's new access token ("Sign in with Démineur", accounts.oauth):
    only the key's hash, the consented scopes, and when it ends; deleted with `access`."""
    return ApiToken.objects.create(
        user=access.user,
        name=access.application.name[:64],
        key_hash=hash_token_key(key),
        prefix=key[:8],
        scopes=scopes,
        oauth_token=access,
        expires_at=expires,
    )


def app_grants_end(*, user: User) -> None:
    """Every app's codes, refresh and access tokens of the player (a password reset, deleting
    the account): their token rows go with the access tokens, sockets closed after the commit."""
    from oauth2_provider.models import AccessToken, Grant, RefreshToken

    with transaction.atomic():
        Grant.objects.filter(user=user).delete()
        RefreshToken.objects.filter(user=user).delete()
        AccessToken.objects.filter(user=user).delete()


def session_sockets_close(*, session_key: str | None) -> None:
    """Signing out: close every socket the session opened (code 4401), after the commit."""
    socket_credentials.kick_session_sockets(session_key)


# --- Settings (GET/PATCH /api/me/settings; docs/ARCHITECTURE.md, Extensions) ------------------

# What a player gets for a setting never set. The page (frontend/static/frontend/js/settings.js)
# has the same defaults for visitors.
SETTINGS_DEFAULTS: dict[str, object] = {
    "long_press_ms": 450,  # how long a touch is held to flag
    "click_chords": True,  # a click (or tap) on an opened number chords
    "animations": True,
    "sounds": False,
    "theme": "system",  # light, dark, or the device's
    # Play without flags (NF, docs/STATS.md): the game page's right click, long press, F key
    # and flag mode place no flag.
    "no_flags": False,
}


def settings_of(user: User) -> dict[str, object]:
    """The player's settings: what they set over the defaults (a key no longer known is left out)."""
    saved = user.settings if isinstance(user.settings, dict) else {}
    return {key: saved.get(key, default) for key, default in SETTINGS_DEFAULTS.items()}


def settings_update(*, user: User, changes: dict[str, object]) -> dict[str, object]:
    """Store the validated `changes` (accounts.serializers.SettingsPatchSerializer) on the player,
    under a row lock so two tabs saving different settings keep both."""
    with transaction.atomic():
        locked = User.objects.select_for_update().only("id", "settings").get(pk=user.pk)
        saved = locked.settings if isinstance(locked.settings, dict) else {}
        merged = {k: v for k, v in {**saved, **changes}.items() if k in SETTINGS_DEFAULTS}
        User.objects.filter(pk=user.pk).update(settings=merged)
    user.settings = merged
    return settings_of(user)


# --- Email and password (docs/ACCOUNTS.md; API.md, The account's lifecycle) -----------------


def email_set(*, user: User, email: str, site_url: str) -> User:
    """A new address for the account, unverified until the mailed link is followed (the
    previous address, verified or not, is replaced at once)."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.kind == AccountKind.GUEST:
            raise DomainError("guest_account", "A guest account has no address: sign up first.")
        locked.email = email
        locked.email_verified = False
        locked.save(update_fields=["email", "email_verified"])
        email_links.send_verification(locked, site_url)
    return locked


def email_verify(*, token: str) -> User:
    """Follow a verification link: the address it names becomes the account's verified one,
    if it still is the account's address and no other account verified it first."""
    user_id, email = email_links.read_verification(token)
    with transaction.atomic():
        locked = User.objects.select_for_update().filter(pk=user_id, is_active=True).first()
        if locked is None or locked.email.lower() != email.lower():
            raise DomainError("token_invalid", "This link is no longer valid.")
        if locked.email_verified:
            return locked
        taken = User.objects.filter(email__iexact=email, email_verified=True).exclude(pk=user_id)
        if taken.exists():
            raise DomainError("email_taken", "Another account has verified this address.")
        locked.email_verified = True
        try:
            with transaction.atomic():
                locked.save(update_fields=["email_verified"])
        except IntegrityError as exc:  # verified elsewhere at the same instant
            raise DomainError("email_taken", "Another account has verified this address.") from exc
    return locked


def _validated_password(user: User, password: str) -> None:
    from django.contrib.auth import password_validation
    from django.core.exceptions import ValidationError as DjangoValidationError

    try:
        password_validation.validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise DomainError(
            "invalid", "The new password is refused.", {"fields": {"new_password": exc.messages}}
        ) from exc


def password_change(
    *, user: User, current_password: str, new_password: str, keep_session: str | None
) -> User:
    """Change the password (the current one required: 403 `wrong_password` otherwise, as the
    caller is signed in). Every other session of the account is signed out and its sockets
    closed; `keep_session` (the request's) stays. Tokens stay (API.md): whoever changes the
    password knew the current one, and a bot's token is revoked on its own
    (docs/ACCOUNTS.md, Password change and reset)."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if not locked.has_usable_password() or not locked.check_password(current_password):
            raise DomainError("wrong_password", "The current password is wrong.")
        _validated_password(locked, new_password)
        locked.set_password(new_password)
        locked.save(update_fields=["password"])
        sessions.sessions_end(user=locked, keep=keep_session)
    return locked


def password_reset_request(*, email: str, site_url: str) -> None:
    """Mail a reset link if an active account has this verified address; nothing otherwise.
    The caller answers the same either way (202)."""
    with transaction.atomic():
        user = User.objects.filter(email__iexact=email, email_verified=True, is_active=True).first()
        if user is not None and user.has_usable_password():
            email_links.send_reset(user, site_url)


def password_reset_confirm(*, token: str, new_password: str) -> User:
    """Set a new password from a mailed link. The link works once (its token hashes the
    password it replaces) and for PASSWORD_RESET_MINUTES. Every session is signed out and
    every API token revoked (their sockets closed after the commit): a reset is what an owner
    does who lost the password, perhaps to someone who made tokens with it, and a token left
    alive could mint new ones (docs/ACCOUNTS.md, Password change and reset)."""
    with transaction.atomic():
        user = email_links.read_reset(token, lock=True)
        _validated_password(user, new_password)
        user.set_password(new_password)
        user.save(update_fields=["password"])
        sessions.sessions_end(user=user, keep=None)
        for token_row in ApiToken.objects.filter(user=user):
            token_revoke(token=token_row)
        app_grants_end(user=user)  # and every app's refresh tokens (docs/API-CLIENTS.md)
    return user


def own_account(user: User) -> dict[str, object]:
    """What GET /api/me adds to the public profile, for its owner's eyes only."""
    from accounts import two_factor

    return {
        "email": user.email,
        "email_verified": user.email_verified,
        "two_factor": two_factor.is_active(user),
        "closed": user.closed_at is not None,
    }


# --- Closing and deleting (docs/ACCOUNTS.md, Closing) ----------------------------------------

CLOSE = "close"
DELETE = "delete"


def reopen_until(user: User) -> datetime | None:
    """Until when signing in reopens a closed account (None: it is not closed, or no more)."""
    if user.closed_at is None:
        return None
    if user.delete_after is not None:
        return user.delete_after
    return user.closed_at + timedelta(days=settings.ACCOUNT_REOPEN_DAYS)


def can_reopen(user: User) -> bool:
    if not user.has_usable_password():  # a guest, or an account already erased
        return False
    until = reopen_until(user)
    return until is not None and timezone.now() < until


def account_close(*, user: User, mode: str, password: str | None) -> User:
    """Close the account (`close`: reopened by signing in within ACCOUNT_REOPEN_DAYS) or ask
    for its deletion (`delete`: the same, then deleted after ACCOUNT_DELETE_GRACE_DAYS). At
    once: it leaves every board, its profile answers 404, every session is signed out, every
    socket closed, its tokens stop working (they are kept for a reopening). A guest has no
    password to give (and no way back: it cannot sign in)."""
    from accounts.standings import stats

    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        # 403, not 401: the caller is signed in. A missing password is a wrong one (the
        # schema cannot say "required unless a guest", so it is no malformed body either).
        if locked.kind != AccountKind.GUEST and (
            not password or not locked.check_password(password)
        ):
            raise DomainError("wrong_password", "The password is wrong or missing.")
        now = timezone.now()
        locked.closed_at = now
        locked.delete_after = (
            now + timedelta(days=settings.ACCOUNT_DELETE_GRACE_DAYS) if mode == DELETE else None
        )
        locked.is_active = False
        locked.save(update_fields=["closed_at", "delete_after", "is_active"])
        stats.boards_hide(user_id=locked.pk)
        sessions.sessions_end(user=locked, keep=None)
        for token_id in ApiToken.objects.filter(user=locked).values_list("pk", flat=True):
            socket_credentials.kick_token_sockets(token_id)
    return locked


def account_reopen(*, user: User) -> bool:
    """Signing in to a closed account within its window reopens it (a deletion asked for is
    called off); False when the window has passed (the sign-in is refused)."""
    from accounts.standings import stats

    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.closed_at is None:
            return True
        if not can_reopen(locked):
            return False
        locked.closed_at = None
        locked.delete_after = None
        locked.is_active = True
        locked.save(update_fields=["closed_at", "delete_after", "is_active"])
        stats.boards_restore(user_id=locked.pk, pool=locked.board_pool)
    return True


DELETED_PREFIX = ANONYMOUS_PREFIX + "-d"  # guest-anonymous-d<id in base 36>


def deletions_due() -> list[int]:
    return list(
        User.objects.filter(
            closed_at__isnull=False, delete_after__isnull=False, delete_after__lte=timezone.now()
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def account_erase(*, user_id: int) -> bool:
    """Delete an account whose grace period is over: its personal data goes (name, address,
    password, settings, tokens, sessions, two-factor), its name is retired for good
    (RetiredName), and the row stays as an anonymous player (`guest-anonymous-d…`, a guest
    nobody can sign in as) so its games, race entries and every other player's races and
    boards stay whole. Its record chains leave the boards. False if it is not due (reopened)."""
    from django.utils.http import int_to_base36

    from accounts.models import RecoveryCode, SignedInSession, TwoFactor
    from accounts.standings import stats

    with transaction.atomic():
        locked = User.objects.select_for_update().filter(pk=user_id).first()
        if locked is None or locked.delete_after is None or locked.delete_after > timezone.now():
            return False
        key = name_key(locked.username)
        RetiredName.objects.get_or_create(name_key=key)
        sessions.sessions_end(user=locked, keep=None)
        SignedInSession.objects.filter(user=locked).delete()
        for token in ApiToken.objects.filter(user=locked):
            token_revoke(token=token)
        app_grants_end(user=locked)
        TwoFactor.objects.filter(user=locked).delete()
        RecoveryCode.objects.filter(user=locked).delete()
        stats.boards_leave(user_id=locked.pk)
        locked.username = DELETED_PREFIX + int_to_base36(locked.pk)
        locked.email = ""
        locked.email_verified = False
        locked.first_name = ""
        locked.last_name = ""
        locked.settings = {}
        locked.set_unusable_password()
        locked.last_login = None
        locked.is_staff = False
        locked.is_superuser = False
        locked.kind = AccountKind.GUEST
        locked.delete_after = None
        locked.save()
        locked.groups.clear()
        locked.user_permissions.clear()
    return True
