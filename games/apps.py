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
        services.on_unlocked_race_move(progress.UnlockedShare())
        # The daily's share of a daily game's moves (its board, its statistics), likewise.
        from games.daily.progress import progress as daily_progress

        services.on_daily_move(daily_progress)
        # Arenas sit above races: the race services call them back at each race's end (to
        # score it) and on each tick of the race clock (to start, pair and end arenas).
        from games.arenas import services as arenas
        from games.races import services as race_services

        race_services.on_race_end(arenas.arena_race_ended)
        race_services.on_clock_tick(arenas.arena_clock_tick)
        race_services.on_busy_check(arenas.player_in_running_arena)
        # Puzzles sit above play: the analysis worker hands each game it has analysed to the
        # puzzles' generator, off the request path.
        from games.play import analysis_jobs
        from games.puzzles import generator

        analysis_jobs.on_analysed(generator.after_analysis)
