"""Account endpoints: register, guests, API tokens (API.md, Accounts; docs/GUESTS.md).
Profiles live in games.api."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth import authenticate, login, logout, update_session_auth_hash
from django.db import IntegrityError
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ErrorDetail, Throttled, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.authentication import GuestSessionAuthentication, SessionAuthentication401
from accounts.models import AccountKind, ApiToken, User
from accounts.serializers import (
    CredentialsSerializer,
    RegisteredSerializer,
    RegisterSerializer,
    SettingsSerializer,
    TokenCreateSerializer,
    TokenSerializer,
)
from accounts.throttles import (
    AuthAddressThrottle,
    GuestsPerDayThrottle,
    NewAccountsThrottle,
    SignInUsernameThrottle,
    SignUpsPerDayThrottle,
)
from demineur_site.api_errors import ApiError
from demineur_site.errors import DomainError
from games.play.selectors import has_played


def _user_from_credentials(request: Request) -> User:
    """The user named by `{username, password}` in the body, or 401 invalid_credentials."""
    data = CredentialsSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    user = authenticate(
        request._request,
        username=data.validated_data["username"],
        password=data.validated_data["password"],
    )
    if user is None:
        named = services.user_by_name(data.validated_data["username"])
        if named is not None and named.kind == AccountKind.GUEST:
            raise _guest_refused()
        raise ApiError("invalid_credentials", "Wrong username or password.")
    return user


def _new_account_allowed(request: Request, view: APIView, per_address: type) -> None:
    """The caps on new accounts (accounts/throttles.py), taken when an account is about to be
    made: the address's daily count first, then the site-wide hourly ceiling, so an address
    over its own cap spends none of everyone's. 429 `throttled` with Retry-After."""
    for throttle in (per_address(), NewAccountsThrottle()):
        if not throttle.allow_request(request, view):
            raise Throttled(wait=throttle.wait(), detail=_CAP_MESSAGES[throttle.scope])


_CAP_MESSAGES = {
    "guest_day": "Too many guest accounts from this address today.",
    "signup_day": "Too many new accounts from this address today.",
    "new_accounts": "Too many new accounts on the site this hour; try again later.",
}


def _guest_refused() -> DomainError:
    return DomainError(
        "guest_account", "A guest account has no password and no API tokens: sign up first."
    )


def _is_guest(user: object) -> bool:
    return getattr(user, "kind", None) == AccountKind.GUEST and bool(
        getattr(user, "is_authenticated", False)
    )


def _who(user: User) -> dict[str, object]:
    return {"id": user.pk, "username": user.get_username(), "kind": user.kind}


class RegisterView(APIView):
    """A new account; from a guest's session, the guest account itself becomes the account
    (docs/GUESTS.md), keeping its games and statistics. API clients send no session cookie:
    for them nothing changes. A session is read (with its CSRF check) only to find a guest."""

    authentication_classes = [GuestSessionAuthentication]
    throttle_classes = [AuthAddressThrottle]
    throttle_scope = "auth"

    @extend_schema(
        request=RegisterSerializer,
        responses={201: RegisteredSerializer, 409: None},  # 409: a guest that played, as a bot
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        data = RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = {
            "username": data.validated_data["username"],
            "password": data.validated_data["password"],
            "email": data.validated_data.get("email", ""),
            "kind": data.validated_data["kind"],
        }
        try:
            if _is_guest(request.user):
                user = services.guest_sign_up(
                    guest=cast(User, request.user), has_played=has_played, **fields
                )
                # The password changed: keep this session signed in (as the same account).
                update_session_auth_hash(request._request, user)
            else:
                _new_account_allowed(request, self, SignUpsPerDayThrottle)
                user = services.user_register(**fields)
        except IntegrityError as exc:  # the same name registered at the same instant
            raise ValidationError(
                {"username": [ErrorDetail("This username is taken.", code="username_taken")]}
            ) from exc
        return Response(_who(user), status=status.HTTP_201_CREATED)


class GuestView(APIView):
    """Play first, sign up later (docs/GUESTS.md): POST makes this browser session a guest's.
    A new guest account is made and signed in (201); a session that already is a guest's
    answers that guest (200); a signed-in player (session or token) is refused (409). Only a
    browser gets a guest: an anonymous request must pass the CSRF check (403 otherwise)."""

    throttle_classes = [AuthAddressThrottle]
    throttle_scope = "auth"

    @extend_schema(
        request=None,
        responses={200: RegisteredSerializer, 201: RegisteredSerializer, 409: None},
        tags=["accounts"],
        summary="Play as a guest (browser sessions only)",
    )
    def post(self, request: Request) -> Response:
        if request.user.is_authenticated:
            if _is_guest(request.user):
                return Response(_who(request.user))
            raise ApiError("already_signed_in", "Signed in already: guests are for visitors.")
        SessionAuthentication401().enforce_csrf(request)  # a cross-site form gets no guest
        _new_account_allowed(request, self, GuestsPerDayThrottle)
        guest = services.guest_create()
        login(request._request, guest)
        return Response(_who(guest), status=status.HTTP_201_CREATED)


class TokenView(APIView):
    """POST exchanges a username and password for a new token; DELETE revokes the token used."""

    throttle_classes = [AuthAddressThrottle, SignInUsernameThrottle]
    throttle_scope = "auth"

    def get_authenticators(self):  # type: ignore[no-untyped-def]
        if self.request is not None and self.request.method == "POST":
            return []  # credentials in the body; never trip over a stale session's CSRF
        return super().get_authenticators()

    @extend_schema(
        request=CredentialsSerializer,
        # 409 guest_account: a guest has no password and no tokens (docs/GUESTS.md).
        responses={200: TokenSerializer, 401: None, 409: None},
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        user = _user_from_credentials(request)
        if user.kind == AccountKind.GUEST:  # no usable password: not reached, but never a key
            raise _guest_refused()
        _, key = services.token_issue(user=user, name="api")
        return Response({"token": key})

    @extend_schema(request=None, responses={204: None}, tags=["accounts"])
    def delete(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "Authentication credentials were not provided.")
        if not isinstance(request.auth, ApiToken):
            raise ApiError("no_token", "This request was not authenticated with a token.")
        services.token_revoke(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenRowSerializer(serializers.ModelSerializer[ApiToken]):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at"]


class TokenCreatedSerializer(TokenRowSerializer):
    """The new token's row and, this once, its key."""

    token = serializers.CharField()

    class Meta(TokenRowSerializer.Meta):
        fields = [*TokenRowSerializer.Meta.fields, "token"]


class TokenListView(APIView):
    """The signed-in player's tokens: list them, create a named one (the key is shown once)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: inline_serializer("TokenList", {"results": TokenRowSerializer(many=True)})},
        tags=["accounts"],
    )
    def get(self, request: Request) -> Response:
        rows = ApiToken.objects.filter(user=cast(User, request.user))
        return Response({"results": TokenRowSerializer(rows, many=True).data})

    @extend_schema(
        request=TokenCreateSerializer,
        responses={201: TokenCreatedSerializer, 409: None},  # 409 guest_account
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        # A body is required (issue 13: an empty POST was accepted and named the token "api").
        if _is_guest(request.user):
            raise _guest_refused()
        data = TokenCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = services.token_issue(user=request.user, name=data.validated_data["name"])  # type: ignore[arg-type]
        return Response(
            {**TokenRowSerializer(token).data, "token": key}, status=status.HTTP_201_CREATED
        )


class TokenDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None}, tags=["accounts"])
    def delete(self, request: Request, token_id: int) -> Response:
        token = ApiToken.objects.filter(user=cast(User, request.user), pk=token_id).first()
        if token is None:
            raise ApiError("not_found", "No such token.")
        services.token_revoke(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SessionView(APIView):
    """The web page signs in with a session cookie (API.md, Conventions): POST signs in,
    DELETE signs out, GET tells who is signed in. An extension of API.md for browsers."""

    throttle_classes = [AuthAddressThrottle, SignInUsernameThrottle]
    throttle_scope = "auth"

    @extend_schema(request=None, responses={200: RegisteredSerializer}, tags=["accounts"])
    def get(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "Not signed in.")
        user = request.user
        return Response({"id": user.pk, "username": user.get_username(), "kind": user.kind})

    @extend_schema(
        request=CredentialsSerializer,
        responses={
            200: RegisteredSerializer,
            401: None,
        },  # the error body: demineur_site.schema_views
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        user = _user_from_credentials(request)
        login(request._request, user)
        return Response({"id": user.pk, "username": user.get_username(), "kind": user.kind})

    @extend_schema(request=None, responses={204: None}, tags=["accounts"])
    def delete(self, request: Request) -> Response:
        services.session_sockets_close(session_key=request.session.session_key)
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class _SettingsSchema(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """The settings object is closed: the schema says so (additionalProperties false), as
    the view refuses an unknown key."""

    target_class = SettingsSerializer

    def map_serializer(self, auto_schema: Any, direction: Any) -> Any:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        return schema


class SettingsView(APIView):
    """The signed-in player's settings on the site (an extension of API.md, for the web page):
    GET reads them (defaults filled in), PATCH changes the keys it sends."""

    @extend_schema(request=None, responses={200: SettingsSerializer, 401: None}, tags=["accounts"])
    def get(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "Not signed in.")
        return Response(services.settings_of(request.user))

    @extend_schema(
        request=SettingsSerializer(partial=True),
        responses={200: SettingsSerializer, 400: None, 401: None},
        tags=["accounts"],
    )
    def patch(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "Not signed in.")
        data = SettingsSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        changes = dict(data.validated_data)
        return Response(services.settings_update(user=request.user, changes=changes))
