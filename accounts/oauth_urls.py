"""The URLs of "Sign in with Démineur" (accounts.oauth_views), in the library's namespace: its
views and its metadata document find one another by these names."""

from django.urls import path
from oauth2_provider import views as library

from accounts import oauth_views

app_name = "oauth2_provider"

urlpatterns = [
    path("oauth/authorize/", oauth_views.ConsentView.as_view(), name="authorize"),
    path("oauth/token/", oauth_views.TokenView.as_view(), name="token"),
    path("oauth/revoke_token/", oauth_views.RevokeTokenView.as_view(), name="revoke-token"),
    # RFC 8414: where a client library finds the endpoints above, PKCE's methods, the scopes.
    path(
        ".well-known/oauth-authorization-server",
        library.OAuthServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
]

# The player's own pages (outside the library's namespace).
account_urlpatterns = [
    path("account/apps", oauth_views.apps, name="oauth-apps"),
    path("account/apps/<int:app_id>/delete", oauth_views.app_delete, name="oauth-app-delete"),
    path(
        "account/apps/authorised/<int:app_id>/revoke",
        oauth_views.authorised_revoke,
        name="oauth-authorised-revoke",
    ),
]
