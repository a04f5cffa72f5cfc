from django.urls import re_path

from . import leaderboard_views

urlpatterns = [
    re_path(
        r"^leaderboards/(?P<level>[^/]{1,32})/(?P<board>[^/]{1,32})/?$",
        leaderboard_views.LeaderboardView.as_view(),
        name="api-leaderboard",
    ),
]
