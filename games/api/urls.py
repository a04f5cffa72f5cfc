"""Every REST path of the games app: one game, races, leaderboards and profiles. Order matters
once: the race board (`leaderboards/{level}/races`) comes before the solo boards' pattern."""

from django.urls import re_path

from games.api import leaderboard_views, race_views, views

GAME = r"(?P<game_id>[^/]{1,64})"
RACE = r"(?P<race_id>[^/]{1,64})"
USER = r"(?P<username>[^/]{1,150})"
LEVEL = r"(?P<level>[^/]{1,32})"

games = [
    re_path(r"^games/?$", views.GameListView.as_view(), name="api-games"),
    re_path(rf"^games/{GAME}/?$", views.GameDetailView.as_view(), name="api-game"),
    re_path(rf"^games/{GAME}/reveal/?$", views.RevealView.as_view(), name="api-reveal"),
    re_path(rf"^games/{GAME}/flag/?$", views.FlagView.as_view(), name="api-flag"),
    re_path(rf"^games/{GAME}/chord/?$", views.ChordView.as_view(), name="api-chord"),
    re_path(rf"^games/{GAME}/pause/?$", views.PauseView.as_view(), name="api-pause"),
    re_path(rf"^games/{GAME}/resume/?$", views.ResumeView.as_view(), name="api-resume"),
    re_path(rf"^games/{GAME}/resign/?$", views.ResignView.as_view(), name="api-resign"),
    re_path(rf"^games/{GAME}/moves/?$", views.MoveListView.as_view(), name="api-moves"),
    re_path(r"^me/?$", views.MeView.as_view(), name="api-me"),
    re_path(rf"^users/{USER}/?$", views.UserProfileView.as_view(), name="api-user"),
]

races = [
    re_path(r"^races/?$", race_views.RaceListView.as_view(), name="api-races"),
    re_path(r"^races/queue/?$", race_views.QueueView.as_view(), name="api-race-queue"),
    re_path(rf"^races/{RACE}/?$", race_views.RaceDetailView.as_view(), name="api-race"),
    *(
        re_path(rf"^races/{RACE}/{action}/?$", view.as_view(), name=f"api-race-{action}")
        for action, view in race_views.ACTION_VIEWS.items()
    ),
    re_path(rf"^users/{USER}/races/?$", race_views.PlayerRacesView.as_view()),
    re_path(rf"^leaderboards/{LEVEL}/races/?$", race_views.RaceBoardView.as_view()),
]

leaderboards = [
    re_path(
        rf"^leaderboards/{LEVEL}/(?P<board>[^/]{{1,32}})/?$",
        leaderboard_views.LeaderboardView.as_view(),
        name="api-leaderboard",
    ),
]

urlpatterns = [*games, *races, *leaderboards]
