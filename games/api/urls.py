from django.urls import re_path

from . import views

UUIDISH = r"(?P<game_id>[^/]{1,64})"

urlpatterns = [
    re_path(r"^games/?$", views.GameListView.as_view(), name="api-games"),
    re_path(rf"^games/{UUIDISH}/?$", views.GameDetailView.as_view(), name="api-game"),
    re_path(rf"^games/{UUIDISH}/reveal/?$", views.RevealView.as_view(), name="api-reveal"),
    re_path(rf"^games/{UUIDISH}/flag/?$", views.FlagView.as_view(), name="api-flag"),
    re_path(rf"^games/{UUIDISH}/chord/?$", views.ChordView.as_view(), name="api-chord"),
    re_path(rf"^games/{UUIDISH}/pause/?$", views.PauseView.as_view(), name="api-pause"),
    re_path(rf"^games/{UUIDISH}/resume/?$", views.ResumeView.as_view(), name="api-resume"),
    re_path(rf"^games/{UUIDISH}/resign/?$", views.ResignView.as_view(), name="api-resign"),
    re_path(rf"^games/{UUIDISH}/moves/?$", views.MoveListView.as_view(), name="api-moves"),
    re_path(r"^me/?$", views.MeView.as_view(), name="api-me"),
    re_path(
        r"^users/(?P<username>[^/]{1,150})/?$", views.UserProfileView.as_view(), name="api-user"
    ),
]
