from django.urls import re_path

from accounts import views

urlpatterns = [
    re_path(r"^auth/register/?$", views.RegisterView.as_view(), name="api-register"),
    re_path(r"^auth/token/?$", views.TokenView.as_view(), name="api-token"),
    re_path(r"^auth/guest/?$", views.GuestView.as_view(), name="api-guest"),
    re_path(r"^auth/session/?$", views.SessionView.as_view(), name="api-session"),
    re_path(r"^tokens/?$", views.TokenListView.as_view(), name="api-tokens"),
    re_path(r"^me/settings/?$", views.SettingsView.as_view(), name="api-me-settings"),
    re_path(
        r"^tokens/(?P<token_id>[0-9]{1,18})/?$",
        views.TokenDetailView.as_view(),
        name="api-token-detail",
    ),
]
