from django.urls import path
from django.views.i18n import JavaScriptCatalog

from . import views

# The pages whose URL is their name, each served by the view of that name (snake case).
NAMED_PAGES = ("races", "arenas", "leaderboards", "signup", "signin", "tokens", "how-to-play")

urlpatterns = [
    path("", views.home, name="home"),
    *(path(page, getattr(views, page.replace("-", "_")), name=page) for page in NAMED_PAGES),
    path("games/<str:game_id>", views.game, name="game"),
    path("games/<str:game_id>/replay", views.replay, name="replay"),
    # Links people share and the installed app (docs/FRONTEND.md, Links people share).
    path("games/<str:game_id>/preview.png", views.game_preview, name="game-preview"),
    path("races/<str:race_id>/preview.png", views.race_preview, name="race-preview"),
    path("icons/<int:size>.png", views.app_icon, name="app-icon"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("sw.js", views.service_worker, name="service-worker"),
    path("offline", views.offline, name="offline"),
    path("races/<str:race_id>", views.race, name="race"),
    path("arenas/<str:arena_id>", views.arena, name="arena"),
    path("daily", views.daily, name="daily"),
    path("daily/<str:day>", views.daily, name="daily-day"),
    # Puzzles (docs/FRONTEND.md, The puzzle pages): the named pages before one puzzle's id.
    path("puzzles", views.puzzles, name="puzzles"),
    path("puzzles/daily", views.puzzle_daily, name="puzzle-daily"),
    path("puzzles/streak", views.puzzle_streak, name="puzzle-streak"),
    path("puzzles/storm", views.puzzle_storm, name="puzzle-storm"),
    path("puzzles/dashboard", views.puzzle_dashboard, name="puzzle-dashboard"),
    path("puzzles/<str:puzzle_id>", views.puzzle, name="puzzle"),
    path("leaderboards/<str:level>", views.leaderboards, name="leaderboards-level"),
    path("players/<str:username>", views.profile, name="profile"),
    path("players/<str:username>/insights", views.insights, name="insights"),
    path("settings", views.settings_page, name="settings"),
    path("account", views.account, name="account"),
    path("account/verify-email", views.verify_email, name="verify-email"),
    path("account/reset-password", views.reset_password, name="reset-password"),
    # The API reference: the contract and docs/ rendered from the repository's Markdown.
    path("reference/", views.api_reference, name="reference"),
    path("reference/<path:name>", views.api_reference, name="reference-page"),
    # Strings used by the scripts, in the page's language (Django's JS catalog).
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["frontend"]), name="javascript-catalog"),
]
