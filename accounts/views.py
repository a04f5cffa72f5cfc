"""Account endpoints: register, API tokens (API.md, Accounts). Profiles live in games.api."""

from __future__ import annotations

from typing import cast

from django.contrib.auth import authenticate, login, logout
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from demineur_site.api_errors import ApiError

from . import services
from .models import ApiToken, User
from .serializers import (
    CredentialsSerializer,
    RegisteredSerializer,
    RegisterSerializer,
    TokenCreateSerializer,
    TokenSerializer,
)
from .throttles import AuthAddressThrottle, SignInUsernameThrottle


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
        raise ApiError(401, "invalid_credentials", "Wrong username or password.")
    return user


class RegisterView(APIView):
    authentication_classes: list[type] = []
    throttle_classes = [AuthAddressThrottle]
    throttle_scope = "auth"

    @extend_schema(
        request=RegisterSerializer, responses={201: RegisteredSerializer}, tags=["accounts"]
    )
    def post(self, request: Request) -> Response:
        data = RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_register(
            username=data.validated_data["username"],
            password=data.validated_data["password"],
            email=data.validated_data.get("email", ""),
            kind=data.validated_data["kind"],
        )
        return Response(
            {"id": user.pk, "username": user.username, "kind": user.kind},
            status=status.HTTP_201_CREATED,
        )


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
        responses={200: TokenSerializer, 401: None},  # the error body: demineur_site.schema_views
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        user = _user_from_credentials(request)
        _, key = services.token_issue(user=user, name="api")
        return Response({"token": key})

    @extend_schema(request=None, responses={204: None}, tags=["accounts"])
    def delete(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError(
                401, "not_authenticated", "Authentication credentials were not provided."
            )
        if not isinstance(request.auth, ApiToken):
            raise ApiError(400, "no_token", "This request was not authenticated with a token.")
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
        responses={201: TokenCreatedSerializer},
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        # A body is required (issue 13: an empty POST was accepted and named the token "api").
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
            raise ApiError(404, "not_found", "No such token.")
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
            raise ApiError(401, "not_authenticated", "Not signed in.")
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
