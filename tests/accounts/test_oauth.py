"""Sign in with Démineur (accounts.oauth; docs/API-CLIENTS.md): the authorization code with
PKCE for public clients, through the library's endpoints and the site's consent page.

* PKCE is required (S256 only), the redirect URI matches exactly, and a bad client or URI is
  a page of ours, never a redirect; the consent POST needs the CSRF token.
* The access token signs in wherever a personal token does, with exactly the scopes consented
  (403 `missing_scope` and the scope headers otherwise), and never manages credentials.
* Revoked (the player revokes the app, RFC 7009 on the token, a refresh replaces it, a reset)
  it is refused at once: REST, a new socket, a new stream, and an open socket is closed.
* It expires; refresh tokens rotate and die with the app."""

from __future__ import annotations

import base64
import hashlib
import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application, RefreshToken
from rest_framework.test import APIClient

from accounts import email_links, oauth
from accounts.models import ApiToken, User
from accounts.scopes import ALL
from tests.support.http import assert_error
from tests.support.personas import PASSWORD
from tests.support.sockets import connected, game_path, until_closed
from tests.support.sockets import socket as ws
from tests.support.streams import StreamCall

REDIRECT = "http://127.0.0.1/callback"


def _challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _app(owner: User, redirect: str = REDIRECT) -> Application:
    return oauth.register_app(user=owner, name="Sweeper Stats", redirect_uris=[redirect])


def _consent(
    user: User, app: Application, scope: str, **params: str
) -> tuple[Client, Any, dict[str, Any]]:
    """The player's browser on the consent page: the page and its form's fields."""
    browser = Client()
    browser.force_login(user)
    verifier = params.pop("verifier", "v" * 50)
    query = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": REDIRECT,
        "scope": scope,
        "state": "st4te",
        "code_challenge": _challenge(verifier),
        "code_challenge_method": "S256",
        **params,
    }
    page = browser.get("/oauth/authorize/", {k: v for k, v in query.items() if v})
    form = page.context["form"].initial if page.context and "form" in page.context else {}
    return browser, page, {k: v for k, v in form.items() if v is not None}


def _code(user: User, app: Application, scope: str, verifier: str = "v" * 50) -> str:
    browser, page, form = _consent(user, app, scope, verifier=verifier)
    assert page.status_code == 200, page.content
    answer = browser.post("/oauth/authorize/", {**form, "allow": "1"})
    assert answer.status_code == 302
    location = urlsplit(answer["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    query = parse_qs(location.query)
    assert query["state"] == ["st4te"] and query["iss"]
    return query["code"][0]


def _tokens(user: User, app: Application, scope: str = "game:play account:read") -> dict[str, Any]:
    verifier = secrets.token_urlsafe(48)
    code = _code(user, app, scope, verifier)
    answer = Client().post(
        "/oauth/token/",
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": app.client_id,
            "code_verifier": verifier,
        },
    )
    assert answer.status_code == 200, answer.content
    body: dict[str, Any] = answer.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600
    return body


def _api(access: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {access}")
    return api


@pytest.fixture
def app(bob: User) -> Application:
    return _app(bob)


# --- the code: PKCE, the redirect URI, the consent form -------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change",
    [
        {"code_challenge": ""},  # no PKCE
        {"code_challenge_method": "plain", "code_challenge": "v" * 50},  # only S256
        {"redirect_uri": "http://127.0.0.1/callback/../evil"},
        {"redirect_uri": "https://evil.example/callback"},
        {"client_id": "no-such-client"},
        {"response_type": "token"},  # no implicit grant
        {"scope": "game:play admin"},
    ],
    ids=["no-pkce", "plain", "dot-dot", "other-host", "unknown-client", "implicit", "bad-scope"],
)
def test_a_bad_authorization_request_gives_no_code_and_never_an_open_redirect(
    alice: User, app: Application, change: dict[str, str]
) -> None:
    _, page, _ = _consent(alice, app, **{"scope": "game:play", **change})
    if page.status_code == 302:  # only to the app's own URI, with an error and no code
        location = page["Location"]
        assert location.startswith(REDIRECT + "?"), location
        assert "error=" in location and "code=" not in location
    else:
        assert page.status_code == 400
        assert b"consent-error" in page.content and b"consent-form" not in page.content
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_the_code_needs_its_verifier_the_consent_its_csrf_token_and_a_denial_gives_nothing(
    alice: User, app: Application
) -> None:
    code = _code(alice, app, "game:play", verifier="v" * 50)
    exchange = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": app.client_id,
    }
    for verifier in (None, "w" * 50):
        wrong = Client().post(
            "/oauth/token/", {**exchange, **({"code_verifier": verifier} if verifier else {})}
        )
        assert wrong.status_code == 400 and wrong.json()["error"] in (
            "invalid_grant",
            "invalid_request",
        )
    assert not ApiToken.objects.filter(oauth_token__isnull=False).exists()

    browser, page, form = _consent(alice, app, "game:play")
    assert page.status_code == 200
    assert "form-action 'self' http://127.0.0.1" in page["Content-Security-Policy"]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post("/oauth/authorize/", {**form, "allow": "1"}).status_code == 403
    denied = browser.post("/oauth/authorize/", form)  # no `allow`
    assert parse_qs(urlsplit(denied["Location"]).query)["error"] == ["access_denied"]
    _tokens(alice, app, scope="game:play")
    _, again, _ = _consent(alice, app, "game:play", approval_prompt="auto")
    assert again.status_code == 200 and b"consent-form" in again.content  # asked again


@pytest.mark.django_db
def test_the_token_endpoints_share_the_sign_in_throttle_per_address(rates: Any) -> None:
    rates(auth="2/min")
    answers = [Client().post("/oauth/token/", {"grant_type": "refresh_token"}) for _ in range(2)]
    assert [a.status_code for a in answers] == [400, 400]  # the library's own OAuth errors
    refused = Client().post("/oauth/revoke_token/", {"token": "x"})
    assert_error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) > 0


# --- the token: scopes, what it may not do, expiry, refresh ---------------------------------


@pytest.mark.django_db
def test_the_token_carries_exactly_the_consented_scopes_and_never_manages_credentials(
    alice: User, app: Application
) -> None:
    tokens = _tokens(alice, app, scope="game:play")
    api = _api(tokens["access_token"])
    assert tokens["access_token"].startswith("dmo_") and tokens["scope"] == "game:play"
    assert api.post("/api/games", {"level": "beginner"}, format="json").status_code == 201
    refused = api.get("/api/me")
    assert_error(refused, 403, "missing_scope")
    assert refused["X-OAuth-Scopes"] == "game:play"

    everything = _api(_tokens(alice, app, scope=" ".join(oauth.SCOPE_TEXTS))["access_token"])
    assert everything.get("/api/me").json()["username"] == "alice"
    for method, path, body in [
        ("post", "/api/tokens", {"name": "forever"}),
        ("get", "/api/tokens", None),
        ("post", "/api/me/email", {"email": "mallory@example.org"}),
        ("post", "/api/me/close", {"mode": "close", "password": PASSWORD}),
        ("get", "/api/me/export", None),
    ]:
        assert_error(getattr(everything, method)(path, body, format="json"), 403, "forbidden")
    assert not ApiToken.objects.filter(oauth_token__isnull=True).exists()
    assert User.objects.get(pk=alice.pk).is_active


@pytest.mark.django_db
def test_it_expires_a_refresh_replaces_it_once_and_the_app_revoked_ends_its_refresh(
    alice: User, app: Application
) -> None:
    first = _tokens(alice, app)
    refresh = {"grant_type": "refresh_token", "client_id": app.client_id}
    second = Client().post("/oauth/token/", {**refresh, "refresh_token": first["refresh_token"]})
    assert second.status_code == 200, second.content
    second_access = second.json()["access_token"]
    assert_error(_api(first["access_token"]).get("/api/me"), 401, "authentication_failed")
    assert _api(second_access).get("/api/me").status_code == 200
    ApiToken.objects.filter(oauth_token__isnull=False).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert_error(_api(second_access).get("/api/me"), 401, "authentication_failed")
    # A refresh token works once; replayed, its whole family is revoked (RFC 9700 4.14).
    again = Client().post("/oauth/token/", {**refresh, "refresh_token": first["refresh_token"]})
    latest = Client().post(
        "/oauth/token/", {**refresh, "refresh_token": second.json()["refresh_token"]}
    )
    assert again.status_code == latest.status_code == 400

    third = _tokens(alice, app)
    assert [a.name for a in oauth.authorised_apps(alice)] == ["Sweeper Stats"]
    browser = Client()
    browser.force_login(alice)
    assert b"Sweeper Stats" in browser.get("/account").content
    assert browser.post(f"/account/apps/authorised/{app.pk}/revoke").status_code == 302
    assert oauth.authorised_apps(alice) == []
    gone = Client().post("/oauth/token/", {**refresh, "refresh_token": third["refresh_token"]})
    assert gone.status_code == 400


# --- revoked: refused at once everywhere ----------------------------------------------------


def _revoke_app(user: User, app: Application, tokens: dict[str, Any]) -> None:
    browser = Client()
    browser.force_login(user)
    assert browser.post(f"/account/apps/authorised/{app.pk}/revoke").status_code == 302


def _revoke_token(user: User, app: Application, tokens: dict[str, Any]) -> None:
    # RFC 7009, as the app itself would (a public client names itself)
    body = {"token": tokens["access_token"], "client_id": app.client_id}
    assert Client().post("/oauth/revoke_token/", body).status_code == 200


def _reset(user: User, app: Application, tokens: dict[str, Any]) -> None:
    user.email, user.email_verified = "alice@example.org", True
    user.save()
    body = {"token": email_links.reset_token(user), "new_password": "another long passphrase"}
    assert (
        APIClient().post("/api/auth/password-reset/confirm", body, format="json").status_code == 204
    )
    assert not RefreshToken.objects.filter(user=user).exists()


def _revoke_itself(user: User, app: Application, tokens: dict[str, Any]) -> None:
    assert _api(tokens["access_token"]).delete("/api/auth/token").status_code == 204


@pytest.mark.parametrize(
    "revoke",
    [_revoke_app, _revoke_token, _reset, _revoke_itself],
    ids=["app", "rfc7009", "reset", "itself"],
)
@pytest.mark.usefixtures("close_thread_connections")
@pytest.mark.django_db(transaction=True)
async def test_a_revoked_token_is_refused_over_rest_sockets_and_streams_at_once(
    alice: User, bob: User, new_game: Any, revoke: Any
) -> None:
    app = await database_sync_to_async(_app)(bob)
    tokens = await database_sync_to_async(_tokens)(alice, app)
    access = tokens["access_token"]
    game = await new_game(alice)
    player = ws(game_path(game), token=access)
    assert (await connected(player))["type"] == "state"
    stream = StreamCall("/api/stream/event", token=access)
    assert await stream.open() == 200

    await database_sync_to_async(revoke)(alice, app, tokens)

    frames, code = await until_closed(player)  # the open socket is closed
    assert code == 4401 and frames[-1]["error"]["code"] == "authentication_failed"
    lines = [line for line in await stream.rest() if line]  # the open stream ends
    assert '"authentication_failed"' in lines[-1]
    refused = await database_sync_to_async(lambda: _api(access).get("/api/games").status_code)()
    assert refused == 401
    again = ws(game_path(game), token=access)
    first = await connected(again)
    assert first["type"] == "error" and first["error"]["code"] == "authentication_failed"
    assert await StreamCall("/api/stream/event", token=access).open() == 401


@pytest.mark.django_db
def test_the_schema_offers_the_authorization_code_where_an_apps_token_may_go() -> None:
    schema = Client().get("/api/schema/?format=json").json()
    flow = schema["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == "/oauth/authorize/" and set(flow["scopes"]) == set(ALL)
    paths = schema["paths"]
    assert {"oauth2": ["game:play"]} in paths["/api/games"]["post"]["security"]
    assert not any("oauth2" in r for r in paths["/api/tokens"]["post"]["security"])


# --- registering an app ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("uris", "registered"),
    [
        ("https://stats.example/cb\nhttp://127.0.0.1:8765/cb", True),
        ("http://stats.example/cb", False),  # http only on the player's machine
        ("https://stats.example/cb#x", False),
        ("https://user@stats.example/cb", False),
        ("javascript:alert(1)", False),
        ("", False),
    ],
)
def test_a_player_registers_public_clients_with_safe_redirect_uris(
    alice: User, uris: str, registered: bool
) -> None:
    browser = Client()
    browser.force_login(alice)
    answer = browser.post("/account/apps", {"name": "My app", "redirect_uris": uris})
    assert answer.status_code == (302 if registered else 400)
    apps = list(Application.objects.filter(user=alice))
    assert len(apps) == int(registered)
    if registered:
        assert apps[0].client_type == "public"
        assert apps[0].authorization_grant_type == "authorization-code"
        assert apps[0].client_id.encode() in browser.get("/account/apps").content
