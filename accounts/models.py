"""Players and their API tokens. A custom User from the very first migration."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A player. The username is public: it names the player on boards and in URLs."""

    class Meta:
        db_table = "accounts_user"


def hash_token_key(key: str) -> str:
    """Tokens are stored hashed: a leaked database does not leak working keys."""
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A named API token. The key is shown once, at creation; only its hash is kept."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=64, default="api")
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    @classmethod
    def issue(cls, *, user: User, name: str = "api") -> tuple[ApiToken, str]:
        key = secrets.token_hex(20)
        token = cls.objects.create(user=user, name=name, key_hash=hash_token_key(key), prefix=key[:8])
        return token, key

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
