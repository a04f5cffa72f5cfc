"""Players and their API tokens. A custom User from the very first migration."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.names import name_key
from games.engine import LEVELS


class AccountKind(models.TextChoices):
    """RULES.md, Fair play: humans and bots rank on separate boards; guests never rank."""

    HUMAN = "human"
    BOT = "bot"
    GUEST = "guest"


class BoardPool(models.TextChoices):
    """Which boards an account's ranked games enter. `none`: no board at all (a flagged
    account, or a guest). Stored on the board rows themselves, so a board is one filter."""

    HUMAN = "human"
    BOT = "bot"
    NONE = "none"


class User(AbstractUser):
    """A player. The username is public: it names the player on boards and in URLs."""

    kind = models.CharField(max_length=5, choices=AccountKind.choices, default=AccountKind.HUMAN)
    # Set when staff confirm a superhuman game (docs/FAIRPLAY.md): none of the account's games
    # rank again. Statistics are kept.
    flagged = models.BooleanField(default=False)
    flagged_at = models.DateTimeField(null=True, blank=True)
    # The player's settings on the site (long press, click to chord, animations, sounds, theme):
    # only the keys the player set; accounts.services.settings_of adds the defaults.
    settings = models.JSONField(default=dict, db_default={}, blank=True)
    # The username as the eye reads it (accounts.names.name_key: NFKC, case folded, Cyrillic
    # and Greek look-alikes mapped to Latin): unique, so `alice`, `ALICE`, a fullwidth `alice`
    # and one with a Cyrillic `a` are one name; sign-in by name finds it. Kept by save(). Null only for
    # rows written around save() (bulk inserts) and for the later of two names that already
    # shared a key when the column came (accounts/migrations/0008_username_key.py).
    username_key = models.CharField(max_length=600, unique=True, null=True, blank=True)
    # The address (`email`, AbstractUser's) was proved by following the mailed link
    # (docs/ACCOUNTS.md). Only a verified address receives a reset link, and an address is
    # verified on one account at most (the `verified_email_once` index).
    email_verified = models.BooleanField(default=False, db_default=False)
    # Closing (docs/ACCOUNTS.md, Closing): set while the account is closed; signing in within
    # ACCOUNT_REOPEN_DAYS reopens it, and `delete_after` (delete mode) is when it goes.
    closed_at = models.DateTimeField(null=True, blank=True)
    delete_after = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "accounts_user"
        constraints = [
            models.UniqueConstraint(
                Lower("email"),
                condition=models.Q(email_verified=True),
                name="verified_email_once",
            ),
        ]

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username_key = name_key(self.username)
        fields = kwargs.get("update_fields")
        if fields is not None and "username" in fields:
            kwargs["update_fields"] = {*fields, "username_key"}
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """Forms (the admin's) refuse a name that looks like another's, before the unique
        index would turn it into an error page."""
        super().clean()  # Django's own: the username normalised (NFKC)
        taken = User.objects.filter(username_key=name_key(self.username)).exclude(pk=self.pk)
        if self.username and taken.exists():
            raise ValidationError({"username": "A player with a name that looks the same exists."})

    @property
    def board_pool(self) -> str:
        if self.flagged or self.kind == AccountKind.GUEST:
            return BoardPool.NONE
        return BoardPool.BOT if self.kind == AccountKind.BOT else BoardPool.HUMAN


def hash_token_key(key: str) -> str:
    """Tokens are stored hashed: a leaked database does not leak working keys."""
    return hashlib.sha256(key.encode()).hexdigest()


# Every token key starts so (docs/SECURITY.md, Tokens); STORED_ALL_SCOPES is accounts.scopes'.
KEY_PREFIX = "dmn_"
STORED_ALL_SCOPES = "game:play,race:play,account:read,account:write"


class ApiToken(models.Model):
    """A named API token. The key is shown once, at creation; only its hash is kept."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tokens"
    )
    name = models.CharField(max_length=64, default="api")
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # What the token may do (accounts.scopes), comma-separated; tokens made before scopes have
    # all four, as every token had.
    scopes = models.CharField(
        max_length=100, default=STORED_ALL_SCOPES, db_default=STORED_ALL_SCOPES
    )
    # An app's access token ("Sign in with Démineur", accounts.oauth) is a row here too, so it
    # signs in wherever a personal token does; deleting the library's token (revoked, refreshed,
    # its app revoked) deletes this row with it. Personal tokens have neither field.
    oauth_token = models.OneToOneField(
        "oauth2_provider.AccessToken",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="api_token",
    )
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(
        cls, *, user: User, name: str = "api", scopes: str = STORED_ALL_SCOPES
    ) -> tuple[ApiToken, str]:
        # The prefix lets secret scanners find a leaked key (keys made before it still work).
        key = KEY_PREFIX + secrets.token_hex(20)
        token = cls.objects.create(
            user=user, name=name, key_hash=hash_token_key(key), prefix=key[:8], scopes=scopes
        )
        return token, key


# --- Statistics (RULES.md, Statistics; API.md, Stats per level) ------------------------------
# Game ids are plain UUIDs: accounts never imports games code (ARCHITECTURE.md, imports).

# The six ranked levels are the engine's (one list: games.engine.LEVELS, the pure rules, the
# only games module accounts imports); custom boards share one more bucket.
RANKED_LEVELS: tuple[str, ...] = tuple(LEVELS)
STATS_BUCKETS: tuple[str, ...] = (*RANKED_LEVELS, "custom")


class SignedInSession(models.Model):
    """One browser session signed in to the account (GET /api/me/sessions): what the player
    sees of it, kept by accounts.sessions. `session_key` is the key of Django's session store
    (the django_session table holds the same keys): revoking deletes both rows and closes the
    sockets the session opened (accounts.socket_credentials)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="signed_in_sessions"
    )
    session_key = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    user_agent = models.CharField(max_length=256, blank=True, default="")
    # Approximate: an IPv4 address with its last byte dropped, an IPv6 one cut to its /48.
    address = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        db_table = "accounts_signed_in_session"
        ordering = ["-last_seen_at", "-id"]

    def __str__(self) -> str:
        return f"{self.user_id} {self.address} {self.user_agent[:30]}"


class OutgoingMail(models.Model):
    """The mail outbox (accounts.mail): a message is written in the transaction that decides
    it, sent after the commit by a sender thread of the process, and retried by
    `manage.py send_mail` (the scheduler) while the SMTP server is away. A row is deleted once
    sent: the links it carries are credentials."""

    to = models.EmailField()
    subject = models.CharField(max_length=200)
    body = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_error = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        db_table = "accounts_outgoing_mail"
        indexes = [models.Index(fields=["next_attempt_at"], name="outgoing_mail_due")]

    def __str__(self) -> str:
        return f"{self.to}: {self.subject}"


class TwoFactor(models.Model):
    """Two-factor sign-in (TOTP, RFC 6238; accounts.two_factor). Made by POST /api/me/totp,
    active once `confirmed_at` is set by a first good code. `last_step` is the time step of
    the last code accepted: a code is accepted once (no replay within its 30 s window)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="two_factor"
    )
    secret = models.CharField(max_length=64)  # base32, as authenticator apps read it
    created_at = models.DateTimeField(default=timezone.now)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    last_step = models.BigIntegerField(default=0)

    class Meta:
        db_table = "accounts_two_factor"

    def __str__(self) -> str:
        return f"{self.user_id} {'on' if self.confirmed_at else 'pending'}"


class RecoveryCode(models.Model):
    """One of the ten recovery codes shown once at confirmation; stored hashed, used once.
    While two-factor sign-in is off, the row is instead a staff enrolment code (`manage.py
    staff_enrol`, accounts.two_factor), hashed apart from any recovery code's."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="recovery_codes"
    )
    code_hash = models.CharField(max_length=64)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "accounts_recovery_code"
        constraints = [
            models.UniqueConstraint(fields=["user", "code_hash"], name="recovery_code_once")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {'used' if self.used_at else 'unused'}"


class RetiredName(models.Model):
    """The name key (accounts.names.name_key) of a deleted account: sign-up refuses it for
    good, so nobody takes over a deleted player's name (docs/ACCOUNTS.md, Deleting)."""

    name_key = models.CharField(max_length=600, unique=True)
    retired_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "accounts_retired_name"

    def __str__(self) -> str:
        return self.name_key
