from django.urls import re_path

from . import race_views

RACE = r"(?P<race_id>[^/]{1,64})"

urlpatterns = [
    re_path(r"^races/?$", race_views.RaceListView.as_view(), name="api-races"),
    re_path(r"^races/queue/?$", race_views.QueueView.as_view(), name="api-race-queue"),
    re_path(rf"^races/{RACE}/?$", race_views.RaceDetailView.as_view(), name="api-race"),
    re_path(rf"^races/{RACE}/join/?$", race_views.RaceJoinView.as_view(), name="api-race-join"),
    re_path(rf"^races/{RACE}/leave/?$", race_views.RaceLeaveView.as_view(), name="api-race-leave"),
    re_path(rf"^races/{RACE}/ready/?$", race_views.RaceReadyView.as_view(), name="api-race-ready"),
    re_path(rf"^races/{RACE}/start/?$", race_views.RaceStartView.as_view(), name="api-race-start"),
    re_path(
        r"^users/(?P<username>[^/]{1,150})/races/?$",
        race_views.PlayerRacesView.as_view(),
        name="api-user-races",
    ),
    re_path(
        r"^leaderboards/(?P<level>[^/]{1,32})/races/?$",
        race_views.RaceBoardView.as_view(),
        name="api-race-board",
    ),
]
