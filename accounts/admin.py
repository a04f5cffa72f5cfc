"""Staff view of accounts: kind and fair-play standing. Flagging goes through
games.play.fairplay.account_flag so that the account's rows leave every board at once.

`admin_login` is the admin's sign-in form behind the API's sign-in throttles (issue 20, item
3): demineur_site/urls.py serves it at the admin's own login path, ahead of the admin."""

from __future__ import annotations

import math
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html

from accounts.models import User
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
    return admin.site.login(request, **kwargs)


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
