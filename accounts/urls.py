from django.urls import re_path

from accounts import views

urlpatterns = [
    re_path(r"^auth/register/?$", views.RegisterView.as_view(), name="api-register"),
    re_path(r"^auth/token/?$", views.TokenView.as_view(), name="api-token"),
    re_path(r"^auth/guest/?$", views.GuestView.as_view(), name="api-guest"),
    re_path(r"^auth/session/?$", views.SessionView.as_view(), name="api-session"),
    re_path(r"^tokens/?$", views.TokenListView.as_view(), name="api-tokens"),
    re_path(r"^tokens/test/?$", views.TokenTestView.as_view(), name="api-tokens-test"),
    re_path(r"^me/settings/?$", views.SettingsView.as_view(), name="api-me-settings"),
    # The account's lifecycle (API.md; docs/ACCOUNTS.md)
    re_path(r"^me/email/?$", views.EmailView.as_view(), name="api-me-email"),
    re_path(r"^auth/email/verify/?$", views.EmailVerifyView.as_view(), name="api-email-verify"),
    re_path(r"^me/password/?$", views.PasswordView.as_view(), name="api-me-password"),
    re_path(
        r"^auth/password-reset/?$", views.PasswordResetView.as_view(), name="api-password-reset"
    ),
    re_path(
        r"^auth/password-reset/confirm/?$",
        views.PasswordResetConfirmView.as_view(),
        name="api-password-reset-confirm",
    ),
    re_path(r"^me/sessions/?$", views.SessionListView.as_view(), name="api-me-sessions"),
    re_path(
        r"^me/sessions/(?P<session_id>[0-9]{1,18})/?$",
        views.SessionDetailView.as_view(),
        name="api-me-session-detail",
    ),
    re_path(r"^me/totp/?$", views.TotpView.as_view(), name="api-me-totp"),
    re_path(r"^me/totp/confirm/?$", views.TotpConfirmView.as_view(), name="api-me-totp-confirm"),
    re_path(r"^me/close/?$", views.CloseView.as_view(), name="api-me-close"),
    re_path(r"^me/export/?$", views.ExportView.as_view(), name="api-me-export"),
    re_path(
        r"^tokens/(?P<token_id>[0-9]{1,18})/?$",
        views.TokenDetailView.as_view(),
        name="api-token-detail",
    ),
]
