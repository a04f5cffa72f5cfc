"""Staff view of accounts: kind and fair-play standing. Flagging goes through
games.play.fairplay.account_flag so that the account's rows leave every board at once.

`admin_login` is the admin's sign-in form behind the API's sign-in throttles (it had
none of its own): demineur_site/urls.py serves it at the admin's own login path, ahead of the admin."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html

from accounts import two_factor
from accounts.models import User
from accounts.standings.models import DailyEntry
from accounts.throttles import admin_sign_in_wait


def admin_login(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    """The admin's sign-in with the API's limits: per address (THROTTLE_AUTH) and per
    username (THROTTLE_AUTH_USERNAME), the same counts as POST /api/auth/token and
    /api/auth/session. Each POST counts; over either limit the attempt is refused with a 429
    page and Retry-After before any password is checked, the right one included. The CSRF
    check (the middleware's) comes first, as for every form of the site."""
    if request.method == "POST":
        wait = admin_sign_in_wait(request)
        if wait is not None:
            return _too_many_attempts(wait)
    response = admin.site.login(request, **kwargs)
    user = getattr(request, "user", None)
    signed_in = request.method == "POST" and user is not None and user.is_authenticated
    if signed_in and two_factor.is_active(user):  # type: ignore[arg-type]  # the form checked it
        request.session[two_factor.OTP_SESSION_KEY] = True
    return response


class AdminSignInForm(AdminAuthenticationForm):
    """The admin's sign-in form with the second factor: a staff account with two-factor
    sign-in on gives its code (or a recovery code), as over the API. Under
    STAFF_REQUIRE_TOTP a staff account without it is not signed in at all: the password alone
    opens nothing here, and the page says how to enrol."""

    otp = forms.CharField(
        label="Two-factor code", required=False, max_length=64, strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code"}),
    )  # fmt: skip

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        if not two_factor.is_active(user):
            if settings.STAFF_REQUIRE_TOTP:
                raise ValidationError(
                    "Staff sign in with two-factor sign-in on. Ask an operator for an "
                    "enrolment code (manage.py staff_enrol), then turn two-factor sign-in on "
                    "with it (docs/ACCOUNTS.md, Staff).",
                    code="totp_required",
                )
            return
        if not two_factor.check(user=user, code=self.cleaned_data.get("otp") or ""):
            raise ValidationError("The two-factor code is wrong or missing.", code="otp_invalid")


_admin_has_permission = admin.site.has_permission


def _staff_signed_in_with_second_factor(request: HttpRequest) -> bool:
    """STAFF_REQUIRE_TOTP (on with DEBUG off): the admin opens only to a staff session that
    signed in with a second factor, and only while that second factor is still on (turned
    off, or reset by `manage.py staff_enrol --replace`, it no longer vouches for the
    session). A staff account without one enrols with an operator's enrolment code first
    (docs/ACCOUNTS.md, Staff)."""
    if not _admin_has_permission(request):
        return False
    if not settings.STAFF_REQUIRE_TOTP:
        return True
    if not request.session.get(two_factor.OTP_SESSION_KEY):
        return False
    return two_factor.is_active(request.user)  # type: ignore[arg-type]  # staff: signed in


admin.site.has_permission = _staff_signed_in_with_second_factor  # type: ignore[method-assign]
admin.site.login_form = AdminSignInForm


def _too_many_attempts(wait: float) -> HttpResponse:
    seconds = max(1, math.ceil(wait))
    page = format_html(
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<title>Too many sign-in attempts</title></head><body>"
        "<h1>Too many sign-in attempts</h1>"
        "<p>Try again in {} seconds.</p></body></html>",
        seconds,
    )
    response = HttpResponse(page, status=429, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(seconds)
    return response


@admin.register(User)
class UserAdmin(BaseUserAdmin):  # type: ignore[type-arg]
    list_display = ("username", "kind", "flagged", "is_staff", "date_joined")
    list_filter = ("kind", "flagged", "is_staff")
    readonly_fields = ("flagged", "flagged_at")
    fieldsets = (
        *(BaseUserAdmin.fieldsets or ()),
        ("Fair play", {"fields": ("kind", "flagged", "flagged_at")}),
    )
    actions = ("flag_accounts",)

    @admin.action(description="Flag: none of these accounts' games rank again")
    def flag_accounts(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        from games.play.fairplay import account_flag

        for user in queryset:
            account_flag(user=user, staff=request.user)  # type: ignore[arg-type]
        self.message_user(request, f"{queryset.count()} account(s) flagged.", messages.SUCCESS)


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """A table its services alone write: staff read it, and act on it only through admin
    actions that call those services. `deletable`: staff may delete rows too."""

    deletable = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.deletable and super().has_delete_permission(request, obj)


@admin.register(DailyEntry)
class DailyEntryAdmin(ReadOnlyAdmin):
    """Staff review of each day's top times (docs/SECURITY.md, The daily challenge): filter a
    day and a level, the board's order is the list's; a row links to its game's replay, and
    the user admin's `flag_accounts` takes a cheat off every board. Read only: the rows are
    written by accounts.standings.daily alone."""

    list_display = ("day", "level", "place", "user", "state", "time_ms", "opened", "ranked", "pool")
    list_filter = ("day", "level", "pool", "state", "ranked")
    search_fields = ("user__username",)
    ordering = ("-day", "level", "pool", "score", "achieved_at", "user_id")
    readonly_fields = (
        "user",
        "day",
        "level",
        "game_id",
        "pool",
        "ranked",
        "state",
        "time_ms",
        "opened",
        "bbbv_per_s",
        "score",
        "achieved_at",
        "place",
        "replay",
    )
    list_select_related = ("user",)

    @admin.display(description="replay")
    def replay(self, entry: DailyEntry) -> str:
        from django.utils.html import format_html

        return format_html('<a href="/games/{}/replay">{}</a>', entry.game_id, entry.game_id)
