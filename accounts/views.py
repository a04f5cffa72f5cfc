"""Account endpoints: register, guests, API tokens (API.md, Accounts; docs/GUESTS.md).
Profiles live in games.api."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from django.contrib.auth import authenticate, login, logout, update_session_auth_hash
from django.db import IntegrityError, transaction
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ErrorDetail, ValidationError
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import email_links, scopes, services, sessions, two_factor
from accounts.authentication import (
    GuestSessionAuthentication,
    SessionAuthentication401,
    user_for_token_key,
)
from accounts.models import AccountKind, ApiToken, BoardPool, User
from accounts.schema import BodyOnDeleteSchema
from accounts.serializers import (
    CloseSerializer,
    CredentialsSerializer,
    EmailSerializer,
    PasswordChangeSerializer,
    PasswordResetConfirmSerializer,
    RecoveryCodesSerializer,
    RegisteredSerializer,
    RegisterSerializer,
    SessionRowSerializer,
    SettingsSerializer,
    TokenBodySerializer,
    TokenCreateSerializer,
    TokenSerializer,
    TokenTestSerializer,
    TotpConfirmSerializer,
    TotpEnrolledSerializer,
    TotpOffSerializer,
    VerifiedProfileSerializer,
)
from accounts.standings.models import RaceRating
from accounts.throttles import (
    AuthAddressThrottle,
    EmailAccountThrottle,
    EmailRecipientThrottle,
    GuestsPerDayThrottle,
    NewAccountsThrottle,
    ResetAddressThrottle,
    ResetEmailThrottle,
    SignInUsernameThrottle,
    SignUpsPerDayThrottle,
    SignUpsPerHourThrottle,
    take_all,
)
from demineur_site.api_errors import ApiError
from demineur_site.errors import DomainError
from demineur_site.formats import iso
from demineur_site.parsers import valid_body as _valid
from games.arenas.services import leave_every_room
from games.play.selectors import has_played
from games.races.services import ratings_set_pool


def _user_from_credentials(request: Request) -> tuple[User, dict[str, Any]]:
    """The user named by `{username, password}` in the body (or 401 invalid_credentials), and
    the body as validated (a token's `scopes` are read from it)."""
    body = _valid(CredentialsSerializer, request)
    user = authenticate(
        request._request,
        username=body["username"],
        password=body["password"],
    )
    if user is None:
        named = services.user_by_name(body["username"])
        if named is not None and named.kind == AccountKind.GUEST:
            raise _guest_refused()
        raise ApiError("invalid_credentials", "Wrong username or password.")
    if two_factor.is_active(user):
        otp = body.get("otp")
        if not otp:
            raise ApiError("otp_required", "Two-factor sign-in is on: send `otp` too.")
        if not two_factor.check(user=user, code=otp):
            reason = two_factor.refusal(user, otp)
            raise two_factor.refused(
                "otp_invalid", "The two-factor code is wrong or expired.", reason
            )
    if user.closed_at is not None:
        with transaction.atomic():
            if not services.account_reopen(user=user):
                raise ApiError("account_closed", "This account was closed for good.")
            user.refresh_from_db()
            ratings_set_pool(player_id=user.pk, pool=user.board_pool)
    return user, body


OTP_SESSION_KEY = two_factor.OTP_SESSION_KEY
F = TypeVar("F", bound=Callable[..., Any])


def account_schema(responses: dict[int, Any], **schema: Any) -> Callable[[F], F]:
    """The schema of an account door: its `responses`, the rest of extend_schema (`request`:
    the body's serializer, None for none), and the tag `accounts`."""
    return extend_schema(responses=responses, tags=["accounts"], **schema)


def _site_url(request: Request) -> str:
    """Where the links mailed because of this request point ('' when nowhere trusted: then
    nothing is mailed; accounts.email_links.site_origin)."""
    return email_links.site_origin(request._request)


# The caps on new accounts (accounts/throttles.py), taken once an account is about to be made,
# all or none: an address over its own caps spends none of the site's ceiling, and a sign-up
# refused by the hourly rate spends nothing of the address's day. 429 `throttled` with
# Retry-After, the longest wait of the caps that refuse.
def _sign_up_caps() -> list[Any]:
    return [SignUpsPerHourThrottle(), SignUpsPerDayThrottle(), NewAccountsThrottle()]


def _guest_caps() -> list[Any]:
    return [GuestsPerDayThrottle(), NewAccountsThrottle()]


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

    # 409: a guest that played, as a bot
    @account_schema({201: RegisteredSerializer, 409: None}, request=RegisterSerializer)
    def post(self, request: Request) -> Response:
        body = _valid(RegisterSerializer, request)
        form = services.SignUp(
            username=body["username"],
            password=body["password"],
            email=body.get("email", ""),
            kind=body["kind"],
            site_url=_site_url(request),
        )
        try:
            if _is_guest(request.user):
                user = services.guest_sign_up(
                    guest=cast(User, request.user), form=form, has_played=has_played
                )
                # The password changed: keep this session signed in (as the same account).
                update_session_auth_hash(request._request, user)
            else:
                take_all(request, self, _sign_up_caps())
                user = services.user_register(form)
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

    @account_schema(
        {200: RegisteredSerializer, 201: RegisteredSerializer, 409: None},
        request=None,
        summary="Play as a guest (browser sessions only)",
    )
    def post(self, request: Request) -> Response:
        if request.user.is_authenticated:
            if _is_guest(request.user):
                return Response(_who(request.user))
            raise ApiError("already_signed_in", "Signed in already: guests are for visitors.")
        SessionAuthentication401().enforce_csrf(request)  # a cross-site form gets no guest
        take_all(request, self, _guest_caps())
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

    # 409 guest_account: a guest has no password and no tokens (docs/GUESTS.md).
    @account_schema({200: TokenSerializer, 401: None, 409: None}, request=CredentialsSerializer)
    def post(self, request: Request) -> Response:
        user, validated = _user_from_credentials(request)
        if user.kind == AccountKind.GUEST:  # no usable password: not reached, but never a key
            raise _guest_refused()
        _, key = services.token_issue(user=user, name="api", scopes=_scopes_of(validated))
        return Response({"token": key})

    @account_schema({204: None}, request=None)
    def delete(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "Authentication credentials were not provided.")
        if not isinstance(request.auth, ApiToken):
            raise ApiError("no_token", "This request was not authenticated with a token.")
        services.token_revoke(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _scopes_of(validated: dict[str, Any]) -> str:
    """The stored scopes of a token exchanged for a password: those asked for (unknown ones
    400), else all four."""
    asked = validated.get("scopes")
    return scopes.STORED_ALL if asked is None else scopes.stored(asked)


SCOPES = list(scopes.ALL)  # (the serializers' own `scopes` field shadows the module in them)


class TokenRowSerializer(serializers.ModelSerializer[ApiToken]):
    scopes = serializers.SerializerMethodField()

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "scopes", "created_at", "last_used_at"]

    @extend_schema_field(serializers.ListField(child=serializers.ChoiceField(choices=SCOPES)))
    def get_scopes(self, token: ApiToken) -> list[str]:
        mine = scopes.parse(token.scopes)
        return [s for s in scopes.ALL if s in mine]


class TokenCreatedSerializer(TokenRowSerializer):
    """The new token's row and, this once, its key."""

    token = serializers.CharField()

    class Meta(TokenRowSerializer.Meta):
        fields = [*TokenRowSerializer.Meta.fields, "token"]


class TokenListView(APIView):
    """The signed-in player's tokens: list them, create a named one (the key is shown once)."""

    permission_classes = [IsAuthenticated]

    @account_schema(
        {200: inline_serializer("TokenList", {"results": TokenRowSerializer(many=True)})}
    )
    def get(self, request: Request) -> Response:
        # Personal tokens only: an app's are listed, and revoked, with its app (accounts.oauth).
        rows = ApiToken.objects.filter(user=cast(User, request.user), oauth_token__isnull=True)
        return Response({"results": TokenRowSerializer(rows, many=True).data})

    # 409 guest_account
    @account_schema(
        {
            201: TokenCreatedSerializer,
            403: OpenApiResponse(
                description="`missing_scope`: a token asked for a scope it does not have "
                "itself (a token gives only its own scopes), or lacks `account:write`; "
                "`csrf_failed`."
            ),
            409: None,
        },
        request=TokenCreateSerializer,
    )
    def post(self, request: Request) -> Response:
        # A body is required: an empty POST would make a token named "api" nobody asked for.
        if _is_guest(request.user):
            raise _guest_refused()
        body = _valid(TokenCreateSerializer, request)
        holder = scopes.token_scopes(request.auth)  # None for a session: it may give any
        token, key = services.token_issue(
            user=request.user,  # type: ignore[arg-type]
            name=body["name"],
            scopes=scopes.granted(body.get("scopes"), holder),
        )
        return Response(
            {**TokenRowSerializer(token).data, "token": key}, status=status.HTTP_201_CREATED
        )


class TokenTestView(APIView):
    """POST /api/tokens/test `{tokens: [...]}`: for each key, what it may do (its account and
    scopes), or null for a key that is no token. Holding a key is what this needs; it changes
    nothing (last_used_at aside, as any use of the key)."""

    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []

    @account_schema(
        {200: inline_serializer("TokenTest", {"results": serializers.DictField()})},
        request=TokenTestSerializer,
    )
    def post(self, request: Request) -> Response:
        body = _valid(TokenTestSerializer, request)
        results: dict[str, Any] = {}
        for key in body["tokens"]:
            found = user_for_token_key(key)
            if found is None:
                results[key] = None
                continue
            user, token = found
            results[key] = {
                "username": user.username,
                "scopes": TokenRowSerializer().get_scopes(token),
                "created_at": token.created_at,
            }
        return Response({"results": results})


class TokenDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @account_schema({204: None}, request=None)
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

    @account_schema({200: RegisteredSerializer}, request=None)
    def get(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "Not signed in.")
        return Response(_who(request.user))

    # 401's error body: demineur_site.schema_views
    @account_schema({200: RegisteredSerializer, 401: None}, request=CredentialsSerializer)
    def post(self, request: Request) -> Response:
        user, _ = _user_from_credentials(request)
        login(request._request, user)
        if two_factor.is_active(user):  # it was asked for and given
            request._request.session[OTP_SESSION_KEY] = True
        return Response(_who(user))

    @account_schema({204: None}, request=None)
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

    @account_schema({200: SettingsSerializer, 401: None}, request=None)
    def get(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "Not signed in.")
        return Response(services.settings_of(request.user))

    @account_schema(
        {200: SettingsSerializer, 400: None, 401: None}, request=SettingsSerializer(partial=True)
    )
    def patch(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "Not signed in.")
        changes = _valid(SettingsSerializer, request, partial=True)
        return Response(services.settings_update(user=request.user, changes=changes))


# --- The account's lifecycle (API.md; docs/ACCOUNTS.md) -------------------------------------


def _signed_in(request: Request) -> User:
    if not request.user.is_authenticated:
        raise ApiError("not_authenticated", "Authentication credentials were not provided.")
    return request.user


def _session_key(request: Request) -> str | None:
    """The key of the browser session the request came with (None for a token's request)."""
    session = getattr(request._request, "session", None)
    return session.session_key if session is not None and request.auth is None else None


_WRONG_PASSWORD = OpenApiResponse(
    description="`wrong_password`: the password is wrong; the caller stays "
    "signed in (401 would say it is not); `csrf_failed`; `missing_scope`."
)
_WRONG_PASSWORD_OR_CODE = OpenApiResponse(
    description="`wrong_password` or `wrong_otp`: the password or the code is wrong; the "
    "caller stays signed in (401 would say it is not); `csrf_failed`; `missing_scope`."
)


class EmailView(APIView):
    """POST /api/me/email: a new address, unverified until the mailed link is followed. Each
    call mails a link to an address the caller need not own, so it is limited per recipient
    and per account (accounts/throttles.py), counted only once the address is about to
    change: a refusal (429) mails nothing and changes nothing."""

    @account_schema(
        {
            202: None,
            400: None,
            401: None,
            409: None,
            429: OpenApiResponse(
                description="`throttled`, with `Retry-After`: too many verification mails to "
                "this address (THROTTLE_EMAIL_RECIPIENT) or from this account "
                "(THROTTLE_EMAIL_ACCOUNT); nothing is mailed or changed."
            ),
        },
        request=EmailSerializer,
    )
    def post(self, request: Request) -> Response:
        user = _signed_in(request)
        body = _valid(EmailSerializer, request)
        if user.kind == AccountKind.GUEST:  # before the limits: a guest's refusal spends none
            raise DomainError("guest_account", "A guest account has no address: sign up first.")
        take_all(request, self, [EmailRecipientThrottle(), EmailAccountThrottle()])
        services.email_set(user=user, email=body["email"], site_url=_site_url(request))
        return Response(status=status.HTTP_202_ACCEPTED)


class EmailVerifyView(APIView):
    """POST /api/auth/email/verify: the mailed link's token; no sign-in needed (the link may
    be opened on another device). Whoever holds the link is answered what it already tells
    them, in the profile's shape API.md names: the public profile (anyone's to read), the
    address the link was mailed to and `email_verified`. Nothing else of the owner's (their
    two-factor sign-in, a closed account): holding a link is not being signed in."""

    authentication_classes: list[type] = []
    throttle_classes = [AuthAddressThrottle]
    throttle_scope = "auth"

    @account_schema(
        {200: VerifiedProfileSerializer, 400: None, 409: None}, request=TokenBodySerializer
    )
    def post(self, request: Request) -> Response:
        from games.play.profiles import profile_dict

        body = _valid(TokenBodySerializer, request)
        user = services.email_verify(token=body["token"])
        return Response(
            {**profile_dict(user), "email": user.email, "email_verified": user.email_verified}
        )


class PasswordView(APIView):
    """POST /api/me/password: every other session is signed out (sockets closed); tokens stay.
    A wrong current password is 403 `wrong_password`, nothing changed."""

    @account_schema(
        {204: None, 400: None, 401: None, 403: _WRONG_PASSWORD, 409: None},
        request=PasswordChangeSerializer,
    )
    def post(self, request: Request) -> Response:
        user = _signed_in(request)
        if user.kind == AccountKind.GUEST:
            raise _guest_refused()
        body = _valid(PasswordChangeSerializer, request)
        keep = _session_key(request)
        user = services.password_change(
            user=user,
            current_password=body["current_password"],
            new_password=body["new_password"],
            keep_session=keep,
        )
        if keep:
            update_session_auth_hash(request._request, user)  # this session stays signed in
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordResetView(APIView):
    """POST /api/auth/password-reset: 202 whatever the address; a link if an account has it
    verified. Throttled per submitted address and per client address."""

    authentication_classes: list[type] = []
    throttle_classes = [ResetAddressThrottle, ResetEmailThrottle]

    @account_schema({202: None, 400: None}, request=EmailSerializer)
    def post(self, request: Request) -> Response:
        body = _valid(EmailSerializer, request)
        services.password_reset_request(email=body["email"], site_url=_site_url(request))
        return Response(status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmView(APIView):
    """POST /api/auth/password-reset/confirm: a new password from the mailed link's token;
    every session is signed out and every API token revoked (accounts.services)."""

    authentication_classes: list[type] = []
    throttle_classes = [AuthAddressThrottle]
    throttle_scope = "auth"

    @account_schema({204: None, 400: None}, request=PasswordResetConfirmSerializer)
    def post(self, request: Request) -> Response:
        body = _valid(PasswordResetConfirmSerializer, request)
        services.password_reset_confirm(token=body["token"], new_password=body["new_password"])
        return Response(status=status.HTTP_204_NO_CONTENT)


def _session_row(row: Any, current_key: str | None) -> dict[str, Any]:
    return {
        "id": row.pk,
        "created_at": iso(row.created_at),
        "last_seen_at": iso(row.last_seen_at),
        "user_agent": row.user_agent,
        "address": row.address,
        "current": bool(current_key) and row.session_key == current_key,
    }


class SessionListView(APIView):
    """GET /api/me/sessions: where the account is signed in (browser sessions; tokens are
    at /api/tokens)."""

    @account_schema({200: SessionRowSerializer(many=True), 401: None})
    def get(self, request: Request) -> Response:
        user = _signed_in(request)
        current = _session_key(request)
        if current:
            sessions.session_seen(request._request)  # this one is listed from its first request
        return Response([_session_row(r, current) for r in sessions.sessions_of(user)])


class SessionDetailView(APIView):
    @account_schema({204: None, 401: None, 404: None}, request=None)
    def delete(self, request: Request, session_id: int) -> Response:
        user = _signed_in(request)
        if not sessions.session_revoke(user=user, session_id=session_id):
            raise ApiError("not_found", "No such session.")
        return Response(status=status.HTTP_204_NO_CONTENT)


def _code_check_allowed(request: Request, user: User, *, with_password: bool = True) -> None:
    """The one budget of guesses at an account's codes, the sign-in's
    (accounts.throttles.code_check_wait), and, for `DELETE /api/me/totp` without the
    password, a few a day (TotpOffWithoutPasswordThrottle): over either, 429 `throttled` with
    Retry-After before any code or password is looked at."""
    from rest_framework.exceptions import Throttled

    from accounts.throttles import TotpOffWithoutPasswordThrottle, code_check_wait

    wait = code_check_wait(request, user.get_username())
    detail = "Too many attempts for this account; try again later."
    if wait is None and not with_password:
        limit = TotpOffWithoutPasswordThrottle(user.get_username())
        if not limit.allow_request(request, None):
            wait = limit.wait() or 1.0
            detail = "Too many attempts without the password today: send `password` too."
    if wait is not None:
        raise Throttled(wait=wait, detail=detail)


class TotpView(APIView):
    """POST starts two-factor sign-in (inactive until confirmed); DELETE turns it off."""

    schema = BodyOnDeleteSchema()  # DELETE's body, `{code, password?}`, in the schema too

    @account_schema({201: TotpEnrolledSerializer, 401: None, 409: None}, request=None)
    def post(self, request: Request) -> Response:
        user = _signed_in(request)
        secret, uri = two_factor.enrol(user=user)
        return Response(
            {"secret": secret, "otpauth_uri": uri, "qr_svg": two_factor.qr_svg(uri)},
            status=status.HTTP_201_CREATED,
        )

    @account_schema(
        {
            204: None,
            400: None,
            401: None,
            403: _WRONG_PASSWORD_OR_CODE,
            409: None,
            429: OpenApiResponse(
                description="`throttled`, with `Retry-After`: the sign-in's limits per account "
                "and per address, which every code checked counts against; without "
                "`password`, also 5 attempts a day per account."
            ),
        },
        request=TotpOffSerializer,
        description="Turns two-factor sign-in off with a current or recovery code (403 "
        "`wrong_otp` otherwise) and, when given, the password. `password` is optional so "
        "that API.md's `{code}` still works; the web page always sends it.",
    )
    def delete(self, request: Request) -> Response:
        user = _signed_in(request)
        body = _valid(TotpOffSerializer, request)
        # Off already: nothing is checked, so nothing is counted (409 as from `disable`).
        if not two_factor.is_active(user):
            raise DomainError("totp_inactive", "Two-factor sign-in is not on.")
        password = body.get("password")
        _code_check_allowed(request, user, with_password=password is not None)
        two_factor.disable(user=user, code=body["code"], password=password)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TotpConfirmView(APIView):
    @account_schema(
        {
            200: RecoveryCodesSerializer,
            400: None,
            401: None,
            403: OpenApiResponse(
                description="`wrong_otp`: the code is wrong (the caller stays signed in); "
                "`enrolment_code_required` or `enrolment_code_invalid`: a staff "
                "account (STAFF_REQUIRE_TOTP) gives an operator's enrolment code "
                "(`manage.py staff_enrol`); `csrf_failed`; `missing_scope`."
            ),
            409: None,
            429: OpenApiResponse(
                description="`throttled`, with `Retry-After`: the sign-in's limits per account "
                "and per address, which every code checked counts against."
            ),
        },
        request=TotpConfirmSerializer,
    )
    def post(self, request: Request) -> Response:
        user = _signed_in(request)
        body = _valid(TotpConfirmSerializer, request)
        _code_check_allowed(request, user)
        codes = two_factor.confirm(
            user=user, code=body["code"], enrolment_code=body.get("enrolment_code")
        )
        return Response({"recovery_codes": codes})


class CloseView(APIView):
    """POST /api/me/close: `close` (reopened by signing in within ACCOUNT_REOPEN_DAYS) or
    `delete` (the same, then deleted after ACCOUNT_DELETE_GRACE_DAYS). Guests give no
    password; anyone else without one, or with a wrong one, is 403 `wrong_password`, nothing
    changed."""

    @account_schema(
        {202: None, 400: None, 401: None, 403: _WRONG_PASSWORD}, request=CloseSerializer
    )
    def post(self, request: Request) -> Response:
        user = _signed_in(request)
        body = _valid(CloseSerializer, request)
        with transaction.atomic():
            services.account_close(
                user=user,
                mode=body["mode"],
                password=body.get("password"),
            )
            ratings_set_pool(player_id=user.pk, pool=BoardPool.NONE)
            # In the same transaction: a closed account holds no queue place, room seat,
            # running race or arena pool, so nobody is matched with it or waits for it.
            leave_every_room(player=user)
        if getattr(request._request, "session", None) is not None:
            request._request.session.flush()  # this session too (its row went with the others)
        return Response(status=status.HTTP_202_ACCEPTED)


class ExportView(APIView):
    """GET /api/me/export: the account's personal data as JSON (docs/ACCOUNTS.md, Your data)."""

    @account_schema({200: OpenApiTypes.OBJECT, 401: None})
    def get(self, request: Request) -> Response:
        from accounts.standings.selectors import stats_for_user
        from games.puzzles import presenters as puzzle_presenters

        user = _signed_in(request)
        current = _session_key(request)
        body = {
            "account": {
                "id": user.pk,
                "username": user.username,
                "kind": user.kind,
                "date_joined": iso(user.date_joined),
                "last_login": iso(user.last_login),
                **services.own_account(user),
            },
            "settings": services.settings_of(user),
            "tokens": TokenRowSerializer(ApiToken.objects.filter(user=user), many=True).data,
            "sessions": [_session_row(r, current) for r in sessions.sessions_of(user)],
            "statistics": stats_for_user(user_id=user.pk),
            "statistics_no_guess": stats_for_user(user_id=user.pk, no_guess=True),
            "race_ratings": [
                {"level": r.level, "rating": r.rating, "races": r.races, "wins": r.wins}
                for r in RaceRating.objects.filter(player=user).order_by("level")
            ],
            "puzzles": puzzle_presenters.personal_export(user),
        }
        response = Response(body)
        response["Content-Disposition"] = f'attachment; filename="demineur-{user.pk}.json"'
        return response
