"""Input shapes of the account endpoints. Serializers validate and shape; nothing more."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers

from .models import User


class StrictCharField(serializers.CharField):
    """A CharField that refuses numbers, booleans and null instead of coercing them."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class RegisterSerializer(serializers.Serializer[User]):
    username = StrictCharField(max_length=150, validators=[UnicodeUsernameValidator()])
    password = StrictCharField(max_length=128, write_only=True, trim_whitespace=False)
    email = serializers.EmailField(required=False, allow_blank=True)
    # RULES.md, Fair play: bots are declared; guests come from the web page, never from here.
    kind = serializers.ChoiceField(choices=["human", "bot"], required=False, default="human")

    def validate_username(self, value: str) -> str:
        if User.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("This username is taken.", code="username_taken")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        candidate = User(username=attrs["username"], email=attrs.get("email", ""))
        try:
            password_validation.validate_password(attrs["password"], user=candidate)
        except Exception as exc:  # django.core.exceptions.ValidationError
            messages = getattr(exc, "messages", [str(exc)])
            raise serializers.ValidationError({"password": messages}) from exc
        return attrs


class CredentialsSerializer(serializers.Serializer[User]):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, trim_whitespace=False)


class RegisteredSerializer(serializers.Serializer[User]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    kind = serializers.ChoiceField(choices=["human", "bot", "guest"])


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField()


class TokenCreateSerializer(serializers.Serializer[Any]):
    """POST /api/tokens: `{name}`, 1 to 64 characters once trimmed; the body is required."""

    name = StrictCharField(max_length=64)
