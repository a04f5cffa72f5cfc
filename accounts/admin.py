"""Staff view of accounts: kind and fair-play standing. Flagging goes through
games.play.fairplay.account_flag so that the account's rows leave every board at once."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import User


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
