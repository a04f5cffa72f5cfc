from django.urls import re_path

from . import race_views as views

RACE = r"(?P<race_id>[^/]{1,64})"

urlpatterns = [
    re_path(r"^races/?$", views.RaceListView.as_view(), name="api-races"),
    re_path(r"^races/queue/?$", views.QueueView.as_view(), name="api-race-queue"),
    re_path(rf"^races/{RACE}/?$", views.RaceDetailView.as_view(), name="api-race"),
    *(
        re_path(rf"^races/{RACE}/{action}/?$", view.as_view(), name=f"api-race-{action}")
        for action, view in views.ACTION_VIEWS.items()
    ),
    re_path(r"^users/(?P<username>[^/]{1,150})/races/?$", views.PlayerRacesView.as_view()),
    re_path(r"^leaderboards/(?P<level>[^/]{1,32})/races/?$", views.RaceBoardView.as_view()),
]
