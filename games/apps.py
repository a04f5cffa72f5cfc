from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The one place the rooms are wired: a race game's move reaches its race through the
        # listener races registers, so that games.play never imports games.races.
        from games.play import services
        from games.races import progress

        services.on_race_move(progress.after_race_move)
