from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path

from accounts import oauth_urls
from accounts.admin import admin_login

from . import api_errors, health
from .schema_views import DocsView, SchemaView

urlpatterns = [
    # For load balancers, compose and the soak script: outside /api/, no auth, no throttle.
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    re_path(r"^api/schema/?$", SchemaView.as_view(), name="api-schema"),
    re_path(r"^api/docs/?$", DocsView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("accounts.urls")),
    path("api/", include("games.urls")),
    # Any other /api/ path is a JSON 404, in DEBUG too (Django's debug 404 page is HTML).
    re_path(r"^api/", api_errors.api_not_found),
    # Staff only: fair-play reviews and flagged accounts (docs/FAIRPLAY.md), at ADMIN_PATH;
    # its sign-in form first, behind the API's sign-in throttles (accounts.admin.admin_login).
    path(f"{settings.ADMIN_PATH}login/", admin_login, name="admin-login-throttled"),
    path(settings.ADMIN_PATH, admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # "Sign in with Démineur": OAuth 2.0 for other players' apps (docs/API-CLIENTS.md).
    path("", include("accounts.oauth_urls")),
    path("", include(oauth_urls.account_urlpatterns)),
    path("", include("frontend.urls")),
]

handler400 = api_errors.handler400
handler403 = api_errors.handler403
handler404 = api_errors.handler404
handler500 = api_errors.handler500
