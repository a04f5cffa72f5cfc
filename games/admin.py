"""The staff view of fair play (docs/FAIRPLAY.md): the queue of won games held for review, and
the puzzle ratings held for machine-paced attempts.

Staff open a review, look at the findings and the replay, and take one of two actions:
*clear* (the game ranks) or *confirm* (the account is flagged and none of its games rank
again). Both go through games.play.fairplay, the only writer of those decisions."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from accounts.admin import ReadOnlyAdmin
from games.play import fairplay
from games.play.models import Game, Review, ReviewStatus
from games.puzzles import services as puzzle_services
from games.puzzles.models import PuzzleRating


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("created_at", "player", "level", "summary", "status", "replay")
    list_filter = ("status", "level")
    search_fields = ("player__username",)
    ordering = ("status", "created_at")
    readonly_fields = (
        "game",
        "player",
        "level",
        "findings",
        "status",
        "created_at",
        "decided_at",
        "decided_by",
        "replay",
    )
    actions = ("clear_reviews", "confirm_reviews")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # reviews are opened by the server at a game's end, never by hand

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a decision is kept: delete the account instead

    @admin.display(description="findings")
    def summary(self, obj: Review) -> str:
        return ", ".join(f"{f['check']} {f['value']} > {f['limit']}" for f in obj.findings or [])

    @admin.display(description="replay")
    def replay(self, obj: Review) -> str:
        return format_html('<a href="/games/{}/replay" target="_blank">replay</a>', obj.game_id)

    def _decide(self, request: HttpRequest, queryset: QuerySet[Review], *, clear: bool) -> None:
        done = 0
        staff = request.user
        for review in queryset.filter(status=ReviewStatus.PENDING):
            try:
                if clear:
                    fairplay.review_clear(review_id=review.pk, staff=staff)  # type: ignore[arg-type]
                else:
                    fairplay.review_confirm(review_id=review.pk, staff=staff)  # type: ignore[arg-type]
                done += 1
            except fairplay.ReviewError as exc:
                self.message_user(request, f"{review}: {exc}", messages.WARNING)
        verb = "cleared (the games rank)" if clear else "confirmed (the accounts are flagged)"
        self.message_user(request, f"{done} review(s) {verb}.", messages.SUCCESS)

    @admin.action(description="Clear: the game was human, let it rank")
    def clear_reviews(self, request: HttpRequest, queryset: QuerySet[Review]) -> None:
        self._decide(request, queryset, clear=True)

    @admin.action(description="Confirm: superhuman, flag the account")
    def confirm_reviews(self, request: HttpRequest, queryset: QuerySet[Review]) -> None:
        self._decide(request, queryset, clear=False)


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    """Read-only: games are written by games.play.services alone."""

    list_display = ("id", "player", "level", "state", "elapsed_ms", "ranked", "unranked_reason")
    list_filter = ("level", "state", "unranked_reason")
    search_fields = ("player__username",)
    exclude = ("board",)
    deletable = True


@admin.register(PuzzleRating)
class PuzzleRatingAdmin(ReadOnlyAdmin):
    """Puzzle ratings, read-only, and the one decision staff take on them: clearing a hold
    (docs/FAIRPLAY.md, Puzzles in machine time). Written by games.puzzles.services alone."""

    list_display = ("player", "rating", "deviation", "rated_attempts", "machine_attempts", "held")
    list_filter = ("held", "pool")
    search_fields = ("player__username",)
    actions = ("clear_holds",)

    @admin.action(description="Clear the hold: the fast attempts were human, rate again")
    def clear_holds(self, request: HttpRequest, queryset: QuerySet[PuzzleRating]) -> None:
        held = list(queryset.filter(held=True).select_related("player"))
        for row in held:
            puzzle_services.hold_clear(player=row.player)
        self.message_user(request, f"{len(held)} hold(s) cleared.", messages.SUCCESS)
