"""Sign in with Démineur: the OAuth 2.0 authorization server for other players' apps
(docs/API-CLIENTS.md), built on django-oauth-toolkit.

The library runs the protocol (the authorization code with PKCE, the token endpoint, refresh,
RFC 7009 revocation). What is ours:

* `Validator` admits only what we offer: public clients and the authorization-code grant
  (with its refresh tokens), whatever an application row says.
* Each access token the library issues is also written to the token table (`ApiToken`, with
  `oauth_token` and `expires_at`), keyed by the hash of its value, with exactly the scopes
  the player consented to. So it signs in wherever a personal token does, by the same
  statement: REST (`Authorization: Bearer`), the sockets and the NDJSON streams, and the
  scope checks, refusals and headers of accounts.scopes apply unchanged.
* Deleting the library's token (revoked at /oauth/revoke_token/, replaced by a refresh, its
  app revoked by the player) deletes that row in the same transaction (the foreign key's
  cascade), and the row's deletion closes every socket it opened after the commit, as
  revoking a personal token does (accounts.socket_credentials). A socket move re-checks the
  row, so a move sent after the revocation is refused even if the kick is late.
* An app's token never manages the account's credentials (`NOT_FOR_APPS` in accounts.scopes):
  a player who lets an app "change the account" has not let it mint personal tokens, change
  the address or close the account.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction
from django.db.models.signals import post_delete
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from oauth2_provider.models import AccessToken, Application, Grant, RefreshToken
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2.rfc6749 import errors

from accounts import services, socket_credentials
from accounts.models import ApiToken, User
from accounts.scopes import ALL

# What the consent page says each scope lets the app do (the token page's words).
SCOPE_TEXTS: dict[str, Any] = {
    "game:play": _("Play games (create, move, pause, resign)"),
    "race:play": _("Race (rooms and quick match)"),
    "account:read": _("Read your account"),
    "account:write": _("Change your account (settings)"),
}

# Apps one player may register: enough for a few projects, not a namespace to squat.
APPS_PER_USER = 10
# An access token's key starts so, as a personal token's starts with `dmn_`: secret scanners
# tell the two apart (docs/API-CLIENTS.md, Storage and limits).
ACCESS_KEY_PREFIX = "dmo_"
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


def access_token_key(request: Any) -> str:
    """The value of a new access token (OAUTH2_PROVIDER's ACCESS_TOKEN_GENERATOR)."""
    return ACCESS_KEY_PREFIX + secrets.token_urlsafe(30)


class Validator(OAuth2Validator):  # type: ignore[misc]  # the library has no types
    """The library's validator, narrowed to public clients and the authorization code."""

    def validate_grant_type(
        self, client_id: str, grant_type: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        if grant_type not in ("authorization_code", "refresh_token") or not _offered(client):
            return False
        return bool(super().validate_grant_type(client_id, grant_type, client, request))

    def validate_response_type(
        self,
        client_id: str,
        response_type: str,
        client: Any,
        request: Any,
        *args: Any,
        **kwargs: Any,
    ) -> bool:
        if response_type != "code" or not _offered(client):
            return False
        return bool(super().validate_response_type(client_id, response_type, client, request))

    def validate_redirect_uri(
        self, client_id: str, redirect_uri: str, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        # Registered as the page allows (https, or http on the machine itself) whatever made
        # the application row, then matched exactly by the library.
        if redirect_uri_problem(redirect_uri) is not None:
            return False
        return bool(super().validate_redirect_uri(client_id, redirect_uri, request))

    def is_pkce_required(self, client_id: str, request: Any) -> bool:
        # S256 only, refused before the consent page rather than after it (an absent method
        # means `plain` to RFC 7636).
        challenge = getattr(request, "code_challenge", None)
        if challenge is not None and (request.code_challenge_method or "plain") != "S256":
            raise errors.UnsupportedCodeChallengeMethodError(request=request)
        return True

    def _create_access_token(
        self,
        expires: datetime,
        request: Any,
        token: dict[str, Any],
        source_refresh_token: Any = None,
    ) -> AccessToken:
        access = super()._create_access_token(expires, request, token, source_refresh_token)
        services.app_token_issue(
            access=access,
            key=token["access_token"],
            scopes=stored_scopes(access.scope),
            expires=expires,
        )
        return access


def _offered(client: Any) -> bool:
    return bool(
        client is not None
        and client.client_type == Application.CLIENT_PUBLIC
        and client.authorization_grant_type == Application.GRANT_AUTHORIZATION_CODE
    )


def stored_scopes(oauth_scope: str) -> str:
    """The token table's text for a consented OAuth scope string (space-separated)."""
    asked = set(oauth_scope.split())
    return ",".join(s for s in ALL if s in asked)


def _app_token_deleted(sender: Any, instance: ApiToken, origin: Any = None, **kwargs: Any) -> None:
    """An app's token row went (connected below; accounts.apps imports this module): close its
    sockets after the commit. Deleted on its own (the token revoked itself with `DELETE
    /api/auth/token`, or a reset ended every token), the library's token goes with it, so
    that nothing answers for it any more."""
    if instance.oauth_token_id is None:
        return
    socket_credentials.kick_token_sockets(instance.pk)
    if isinstance(origin, ApiToken) or getattr(origin, "model", None) is ApiToken:
        AccessToken.objects.filter(pk=instance.oauth_token_id).delete()


post_delete.connect(_app_token_deleted, sender=ApiToken)


# --- The player's side: apps authorised, revoked; apps registered --------------------------


@dataclass(frozen=True)
class Authorised:
    """An app the player let act for them, while any of its tokens lives."""

    application_id: int
    name: str
    owner: str
    scopes: tuple[str, ...]
    since: datetime


def authorised_apps(user: User) -> list[Authorised]:
    """The apps holding a live access token or refresh token of the player's, newest first."""
    now = timezone.now()
    found: dict[int, dict[str, Any]] = {}
    access = AccessToken.objects.filter(user=user, expires__gt=now).select_related(
        "application__user"
    )
    refresh = RefreshToken.objects.filter(user=user, revoked__isnull=True).select_related(
        "application__user", "access_token"
    )
    rows: list[tuple[Application, str, datetime]] = [
        (a.application, a.scope, a.created) for a in access if a.application is not None
    ]
    rows += [
        (r.application, r.access_token.scope if r.access_token else "", r.created) for r in refresh
    ]
    for app, scope, created in rows:
        entry = found.setdefault(app.pk, {"app": app, "scopes": set(), "since": created})
        entry["scopes"].update(scope.split())
        entry["since"] = min(entry["since"], created)
    apps = [
        Authorised(
            application_id=pk,
            name=e["app"].name,
            owner=e["app"].user.username if e["app"].user else "",
            scopes=tuple(s for s in ALL if s in e["scopes"]),
            since=e["since"],
        )
        for pk, e in found.items()
    ]
    return sorted(apps, key=lambda a: a.since, reverse=True)


def revoke_app(*, user: User, application_id: int) -> bool:
    """Every token and code the app holds for the player, deleted at once (the token rows
    with them: refused from the commit, sockets closed). False when it held none."""
    with transaction.atomic():
        mine = {"user": user, "application_id": application_id}
        grants = Grant.objects.filter(**mine).delete()[0]
        refresh = RefreshToken.objects.filter(**mine).delete()[0]
        access = AccessToken.objects.filter(**mine).delete()[0]
    return bool(grants or refresh or access)


def redirect_uri_problem(uri: str) -> str | None:
    """Why a redirect URI cannot be registered, else None. HTTPS, or http on the machine
    itself (a native app's loopback redirect, RFC 8252: any port matches it); no fragment,
    no user in it; the library then matches a request's URI against it exactly."""
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018  (a malformed port raises here)
    except ValueError:
        return str(_("Not a URL."))
    if parts.fragment or "#" in uri or "@" in parts.netloc or not parts.hostname:
        return str(_("A redirect URI has a host, and no fragment nor user name."))
    if parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS):
        return None
    return str(_("Use https, or http on 127.0.0.1 for an app on the player's machine."))


def register_app(*, user: User, name: str, redirect_uris: list[str]) -> Application:
    """A public client of the authorization-code grant, owned by `user`."""
    return Application.objects.create(
        user=user,
        name=name,
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=" ".join(redirect_uris),
        skip_authorization=False,
        algorithm="",
    )
