"""Account writes: registration, guests (docs/GUESTS.md) and API tokens."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.db import IntegrityError, transaction

from accounts import socket_credentials
from accounts.models import AccountKind, ApiToken, User
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
    case (a row without a key: bulk-inserted, or a twin older than the key)."""
    key = name_key(username)
    return (
        User.objects.filter(username_key=key).exists()
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


@transaction.atomic
def user_register(
    *, username: str, password: str, email: str = "", kind: str = AccountKind.HUMAN
) -> User:
    return User.objects.create_user(username=username, password=password, email=email, kind=kind)


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


def guest_sign_up(
    *,
    guest: User,
    username: str,
    password: str,
    has_played: HasPlayed,
    email: str = "",
    kind: str = AccountKind.HUMAN,
) -> User:
    """Signing up from a guest session: the guest account itself becomes the player's account
    (name, password, email, kind), so its games, statistics and race entries stay attached.
    The games it played as a guest stay unranked (`guest`, fixed at their creation). `bot`
    follows the rule of account_set_kind: only for an account that has not played yet."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=guest.pk)
        if locked.kind != AccountKind.GUEST:
            # The same session signed up a moment ago (a second click): a new account.
            return user_register(username=username, password=password, email=email, kind=kind)
        if kind == AccountKind.BOT and has_played(locked):
            raise DomainError(
                "account_has_games",
                "An account can change its kind only before its first game.",
            )
        locked.username = username
        locked.email = email
        locked.kind = kind
        locked.set_password(password)
        locked.save(update_fields=["username", "email", "kind", "password"])
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


def token_issue(*, user: User, name: str = "api") -> tuple[ApiToken, str]:
    """A new token for the user; the key is returned once and only its hash is stored."""
    return ApiToken.issue(user=user, name=name)


def token_revoke(*, token: ApiToken) -> None:
    """Delete the token; after the commit, every socket it opened is closed (code 4401)."""
    token_id = token.pk
    with transaction.atomic():
        token.delete()
        socket_credentials.kick_token_sockets(token_id)


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
