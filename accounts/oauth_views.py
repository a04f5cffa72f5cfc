"""The pages and endpoints of "Sign in with Démineur" (accounts.oauth; docs/API-CLIENTS.md).

* `/oauth/authorize/`: the consent page, the library's view with the site's template. Signed
  out, the library sends the visitor to the sign-in page with `?next=` (a path of this site
  only, frontend/static/frontend/js/next.js). Allowing is a POST with the CSRF token; the
  answer goes only to a redirect URI the app registered (matched exactly, a loopback one on any
  port), never to one the request names otherwise: a bad client or redirect URI is a page
  here, not a redirect.
* `/oauth/token/` and `/oauth/revoke_token/` (RFC 7009): the library's, behind the sign-in
  throttle per address (`THROTTLE_AUTH`), as the API's own token endpoint.
* `/account/apps`: the apps a player registers (a form, plain POSTs with the CSRF token), and
  `/account/apps/authorised/<id>/revoke`, the account page's revoke button for an app the
  player let in. Pages of the site, not API endpoints: an app's token must never register,
  change or revoke apps, and a page needs no scope to keep it so.
"""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlsplit

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST
from oauth2_provider import views as oauth_views
from oauth2_provider.models import Application

from accounts import oauth
from accounts.models import User
from accounts.throttles import AuthAddressThrottle
from demineur_site.api_errors import error_body
from demineur_site.middleware import content_security_policy


class ConsentView(oauth_views.AuthorizationView):  # type: ignore[misc]  # the library has no types
    """The library's authorization endpoint, drawn by the site's base template."""

    template_name = "accounts/oauth_consent.html"

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # The player is asked every time: an app may not ask the library to skip the page
        # for a player who allowed it before (`approval_prompt=auto`).
        if "approval_prompt" in request.GET:
            query = request.GET.copy()
            del query["approval_prompt"]
            request.GET = query  # type: ignore[assignment]  # a mutable copy, as Django's own
        return cast(HttpResponse, super().get(request, *args, **kwargs))

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)
        scopes = context.get("scopes") or []
        context["scope_texts"] = [oauth.SCOPE_TEXTS[s] for s in oauth.SCOPE_TEXTS if s in scopes]
        redirect_uri = context.get("redirect_uri") or ""
        context["redirect_host"] = urlsplit(redirect_uri).netloc
        return context

    def render_to_response(self, context: dict[str, Any], **kwargs: Any) -> HttpResponse:
        response = cast(HttpResponse, super().render_to_response(context, **kwargs))
        if context.get("error"):
            response.status_code = 400
            return response
        # Allowing or denying ends in a redirect to the app, which a form may follow only when
        # the page's `form-action` names its origin (the site's policy names only 'self').
        parts = urlsplit(context.get("redirect_uri") or "")
        policy = content_security_policy(self.request)
        if parts.scheme in ("http", "https") and parts.netloc:
            origin = f"{parts.scheme}://{parts.netloc}"
            policy = policy.replace("form-action 'self'", f"form-action 'self' {origin}")
        response["Content-Security-Policy"] = policy
        return response


def _throttled(request: HttpRequest) -> HttpResponse | None:
    throttle = AuthAddressThrottle()
    if throttle.allow_request(request, None):  # type: ignore[arg-type]
        return None
    # As the API's own throttles answer (demineur_site.api_errors): the body, Retry-After.
    wait = int(throttle.wait() or 0) + 1
    message = f"Request was throttled. Expected available in {wait} seconds."
    answer = JsonResponse(error_body("throttled", message), status=429)
    answer["Retry-After"] = str(wait)
    return answer


class TokenView(oauth_views.TokenView):  # type: ignore[misc]  # the library has no types
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return _throttled(request) or cast(HttpResponse, super().post(request, *args, **kwargs))


class RevokeTokenView(oauth_views.RevokeTokenView):  # type: ignore[misc]  # the library has no types
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return _throttled(request) or cast(HttpResponse, super().post(request, *args, **kwargs))


# --- The player's apps --------------------------------------------------------------------


class AppForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=64, strip=True)
    redirect_uris = forms.CharField(
        label=_("Redirect URIs, one a line"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=2000,
    )

    def clean_redirect_uris(self) -> list[str]:
        uris = [line.strip() for line in self.cleaned_data["redirect_uris"].splitlines()]
        uris = [u for u in uris if u]
        if not uris or len(uris) > 5:
            raise forms.ValidationError(gettext("Give one to five redirect URIs."))
        for uri in uris:
            problem = oauth.redirect_uri_problem(uri)
            if problem:
                raise forms.ValidationError(f"{uri}: {problem}")
        return uris


def _apps_page(request: HttpRequest, form: AppForm, status: int = 200) -> HttpResponse:
    apps = Application.objects.filter(user=request.user).order_by("-created")
    context = {"form": form, "apps": apps, "cap": oauth.APPS_PER_USER}
    return render(request, "accounts/oauth_apps.html", context, status=status)


@login_required
def apps(request: HttpRequest) -> HttpResponse:
    """GET: the player's registered apps and the form; POST: register one."""
    user = cast(User, request.user)
    if request.method != "POST":
        return _apps_page(request, AppForm())
    form = AppForm(request.POST)
    if getattr(user, "kind", None) == "guest":
        form.add_error(None, gettext("Sign up to register an app."))
    elif Application.objects.filter(user=user).count() >= oauth.APPS_PER_USER:
        form.add_error(None, gettext("You have registered as many apps as one account may."))
    if not form.is_valid():
        return _apps_page(request, form, status=400)
    oauth.register_app(
        user=user, name=form.cleaned_data["name"], redirect_uris=form.cleaned_data["redirect_uris"]
    )
    return redirect("oauth-apps")


@login_required
@require_POST
def app_delete(request: HttpRequest, app_id: int) -> HttpResponse:
    """Delete one of the player's registered apps, and with it every token it holds."""
    Application.objects.filter(user=request.user, pk=app_id).delete()
    return redirect("oauth-apps")


@login_required
@require_POST
def authorised_revoke(request: HttpRequest, app_id: int) -> HttpResponse:
    """The account page's button: the app loses every token it holds for this player."""
    oauth.revoke_app(user=cast(User, request.user), application_id=app_id)
    return redirect("/account#apps-section")
