from django.urls import path
from django.views.i18n import JavaScriptCatalog

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<str:game_id>", views.game, name="game"),
    path("games/<str:game_id>/replay", views.replay, name="replay"),
    path("races", views.races, name="races"),
    path("races/<str:race_id>", views.race, name="race"),
    path("leaderboards", views.leaderboards, name="leaderboards"),
    path("leaderboards/<str:level>", views.leaderboards, name="leaderboards-level"),
    path("players/<str:username>", views.profile, name="profile"),
    path("signup", views.signup, name="signup"),
    path("signin", views.signin, name="signin"),
    path("tokens", views.tokens, name="tokens"),
    path("how-to-play", views.how_to_play, name="how-to-play"),
    path("settings", views.settings_page, name="settings"),
    # Strings used by the scripts, in the page's language (Django's JS catalog).
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["frontend"]), name="javascript-catalog"),
]
