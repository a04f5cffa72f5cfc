"""Input shapes of the account endpoints. Serializers validate and shape; nothing more."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers

from accounts import scopes
from accounts.models import User
from accounts.names import is_encodable, mixed_scripts, normalise
from accounts.services import is_reserved_username, username_taken
from games.api.serializers import StrictCharField
from games.play.serializers import ProfileOut


class UsernameField(StrictCharField):
    """A new username, NFKC-normalised before any check (accounts.names): the validators,
    the length and the serializer's checks all see the name as it will be stored."""

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        return normalise(value) if is_encodable(value) else value  # a surrogate: refused next


class StrictChoiceField(serializers.ChoiceField):
    """A ChoiceField whose refusal of text without a UTF-8 form (a lone surrogate) does not
    quote it back: the error body could not be written (a NUL character in a name broke it)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and not is_encodable(data):
            self.fail("invalid_choice", input="?")
        return super().to_internal_value(data)


class RegisterSerializer(serializers.Serializer[User]):
    username = UsernameField(max_length=150, validators=[UnicodeUsernameValidator()])
    password = StrictCharField(max_length=128, write_only=True, trim_whitespace=False)
    email = serializers.EmailField(required=False, allow_blank=True)
    # RULES.md, Fair play: bots are declared; guests come from the web page, never from here.
    kind = StrictChoiceField(choices=["human", "bot"], required=False, default="human")

    def validate_username(self, value: str) -> str:
        """Every check on the normalised name and its key (accounts.names): a fullwidth,
        differently cased or Cyrillic spelling of a name is that name."""
        if is_reserved_username(value):  # docs/GUESTS.md: the guests' own names
            raise serializers.ValidationError(
                "Names starting with “guest-” are kept for guest accounts.",
                code="username_reserved",
            )
        if mixed_scripts(value):
            raise serializers.ValidationError(
                "A name is written in one script (Latin and Cyrillic letters, say, do not mix).",
                code="username_mixed_scripts",
            )
        if username_taken(value):
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


def scopes_field() -> serializers.ListField:
    """`scopes` of a new token (accounts.scopes): without it, all four, or the scopes of the
    token that makes it (accounts.scopes.granted)."""
    return serializers.ListField(
        child=serializers.ChoiceField(choices=list(scopes.ALL)),
        required=False,
        max_length=10,
        help_text="What the token may do: any of game:play, race:play, account:read, "
        "account:write. Without it: all four. A token making a token (POST /api/tokens) "
        "gives only scopes it has itself (403 missing_scope), and without it its own.",
    )


class CredentialsSerializer(serializers.Serializer[User]):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, trim_whitespace=False)
    otp = StrictCharField(
        max_length=64,
        required=False,
        help_text="With two-factor sign-in on: a current code or an unused recovery code.",
    )
    scopes = scopes_field()


# --- The account's lifecycle (API.md) --------------------------------------------------------


class EmailSerializer(serializers.Serializer[Any]):
    email = serializers.EmailField(max_length=254)


class TokenBodySerializer(serializers.Serializer[Any]):
    """A mailed link's token (the `token` query parameter of the link)."""

    token = StrictCharField(max_length=512)


class PasswordChangeSerializer(serializers.Serializer[Any]):
    current_password = StrictCharField(max_length=128, trim_whitespace=False)
    new_password = StrictCharField(max_length=128, trim_whitespace=False)


class PasswordResetConfirmSerializer(serializers.Serializer[Any]):
    token = StrictCharField(max_length=512)
    new_password = StrictCharField(max_length=128, trim_whitespace=False)


class CodeSerializer(serializers.Serializer[Any]):
    code = StrictCharField(max_length=64)


class TotpConfirmSerializer(CodeSerializer):
    enrolment_code = StrictCharField(
        max_length=64,
        required=False,
        help_text="A staff account (STAFF_REQUIRE_TOTP): the one-time code an operator made "
        "with `manage.py staff_enrol`.",
    )


class TotpOffSerializer(CodeSerializer):
    # Optional so that API.md's `{code}` body still works; without it, a few attempts a day
    # (accounts.throttles.TotpOffWithoutPasswordThrottle). The web page always sends it.
    password = StrictCharField(
        max_length=128,
        trim_whitespace=False,
        required=False,
        help_text="The account's password. Without it, at most 5 attempts a day.",
    )


class CloseSerializer(serializers.Serializer[Any]):
    mode = StrictChoiceField(choices=["close", "delete"])
    password = StrictCharField(max_length=128, trim_whitespace=False, required=False)


class SessionRowSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    last_seen_at = serializers.DateTimeField()
    user_agent = serializers.CharField()
    address = serializers.CharField(help_text="Approximate: an IPv4 /24 or an IPv6 /48.")
    current = serializers.BooleanField(help_text="The session of this request.")


class TotpEnrolledSerializer(serializers.Serializer[Any]):
    secret = serializers.CharField()
    otpauth_uri = serializers.CharField()
    qr_svg = serializers.CharField(
        help_text="`otpauth_uri` as a QR code: a standalone SVG document (made by segno), "
        "for an authenticator app to scan. Show it as an image (an `<img>` with a `data:` "
        "URI), not as markup."
    )


class RecoveryCodesSerializer(serializers.Serializer[Any]):
    recovery_codes = serializers.ListField(child=serializers.CharField())


class RegisteredSerializer(serializers.Serializer[User]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    kind = serializers.ChoiceField(choices=["human", "bot", "guest"])


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField()


class TokenCreateSerializer(serializers.Serializer[Any]):
    """POST /api/tokens: `{name}`, 1 to 64 characters once trimmed; the body is required."""

    name = StrictCharField(max_length=64)
    scopes = scopes_field()


class TokenTestSerializer(serializers.Serializer[Any]):
    """POST /api/tokens/test: up to 50 token keys; the answer says what each may do."""

    # A key is looked up as sent: one of spaces only is no token (null), not a malformed body.
    tokens = serializers.ListField(
        child=StrictCharField(max_length=128, trim_whitespace=False), min_length=1, max_length=50
    )


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only: no "yes", 1 or "true" (the schema says boolean)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer only: no "500" or 500.0 (the schema says integer)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class SettingsSerializer(serializers.Serializer[Any]):
    """A player's settings on the site (GET/PATCH /api/me/settings). On PATCH every key is
    optional and an unknown key is refused (400 `invalid`, code `unknown_setting`)."""

    long_press_ms = StrictIntegerField(
        min_value=200, max_value=1500, help_text="How long a touch is held to flag, in ms."
    )
    click_chords = StrictBooleanField(
        help_text="A click or tap on an opened number chords (else only D, the middle button "
        "or both buttons do)."
    )
    animations = StrictBooleanField(help_text="The small animations of the site.")
    sounds = StrictBooleanField(help_text="Short sounds for open, flag, win and loss.")
    theme = StrictChoiceField(
        choices=["light", "dark", "system"], help_text="`system` follows the device."
    )
    no_flags = StrictBooleanField(
        help_text="Play without flags: the game page's right click, long press, F key and flag "
        "mode place no flag (no-flag records, docs/STATS.md)."
    )

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, dict):
            # An unknown key is named in the answer: one without a UTF-8 form (a lone
            # surrogate) is named with its escapes, or the answer could not be written.
            unknown = sorted(
                k if is_encodable(k) else k.encode("utf-8", "backslashreplace").decode()
                for k in map(str, data)
                if k not in self.fields
            )
            if unknown:
                raise serializers.ValidationError(
                    {k: ["This setting does not exist."] for k in unknown}, code="unknown_setting"
                )
        return dict(super().to_internal_value(data))


class VerifiedProfileSerializer(ProfileOut):
    """POST /api/auth/email/verify: the public profile, and the address the link was mailed
    to, now verified. No sign-in is needed, so nothing else of the owner's."""

    email = serializers.CharField(help_text="The address the followed link was mailed to.")
    email_verified = serializers.BooleanField()
