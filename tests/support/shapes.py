"""The JSON shapes API.md fixes for profiles, shared by the tests that check them."""

BUCKETS = ["beginner", "intermediate", "hard", "expert", "extreme", "marathon", "custom"]
STATS_KEYS = {
    "played",
    "won",
    "win_rate",
    "current_streak",
    "best_streak",
    "best_time_ms",
    "best_time_game_id",
    "best_bbbv_per_s",
    "best_bbbv_per_s_game_id",
    "average_win_ms",
    "best_times",
}
RECENT_KEYS = {
    "id", "level", "no_guess", "state", "end_reason", "elapsed_ms", "result_stats", "ended_at",
}  # fmt: skip
