"""What each operation of the OpenAPI schema says in words: its summary and its description, in
the contract's terms (API.md; docs/ where the contract leaves the design to the server). One
table, read by demineur_site.schema_reference's hook, so that the schema reads as API.md does
and tests/api/test_schema_reference.py can check that every operation has its entry (and
every entry its operation).

A description names the refusals an operation can answer with their `code`s; the statuses any
request may meet (401 for an unknown token, 406, 429, 503 ...) are documented on every
operation by demineur_site.schema_views.document_errors, and the scopes a token needs by
demineur_site.schema_reference."""

from __future__ import annotations

# operationId: (summary, description)
OPERATIONS: dict[str, tuple[str, str]] = {
    # --- accounts (API.md, Accounts) ---------------------------------------------------------
    "auth_register_create": (
        "Sign up",
        "A new account: `{username, password, email?, kind?}`; `kind` is `human` (default) or "
        "`bot`. Answers 201 `{id, username, kind}`. Needs no sign-in. A username already taken "
        "is 400 with `details.codes.username` `username_taken`. From a guest's browser session "
        "the guest account itself becomes the account, keeping its games (docs/GUESTS.md).",
    ),
    "auth_token_create": (
        "Sign in for a token",
        "Exchanges `{username, password}` (and `otp` when two-factor sign-in is on) for a new "
        "API token: 200 `{token}`, shown once. `scopes` (a list) narrows it; without it the "
        "token has all four. Send it as `Authorization: Token <key>` or `Bearer <key>`. Wrong "
        "credentials 401 `invalid_credentials`; two-factor on and no `otp` 401 "
        "`otp_required`, a wrong one 401 `otp_invalid`. Needs no sign-in.",
    ),
    "auth_token_destroy": (
        "Revoke the token used",
        "204: the token that signed this request is revoked, and every socket it opened is "
        "closed. A token may always revoke itself, whatever its scopes.",
    ),
    "auth_guest_create": (
        "Become a guest (browsers)",
        "Play first, sign up later (docs/GUESTS.md): makes this browser session a guest's. 201 "
        "a new guest, signed in; 200 the guest this session already is; 409 for a signed-in "
        "player. Only a browser session gets a guest: an API client signs up instead.",
    ),
    "auth_session_retrieve": (
        "Who is signed in (browsers)",
        "The web page's session sign-in, an extension of API.md: who this session is signed in "
        "as, or an anonymous answer.",
    ),
    "auth_session_create": (
        "Sign in with a session (browsers)",
        "The web page signs in with the session cookie: `{username, password, otp?}` as for "
        "`POST /api/auth/token`, with the same refusals. API clients use a token instead.",
    ),
    "auth_session_destroy": (
        "Sign out (browsers)",
        "Ends this browser session; its sockets are closed.",
    ),
    "me_retrieve": (
        "My profile",
        "The signed-in player's profile with stats (API.md, Accounts), and what only its owner "
        "sees: `email`, `email_verified`, `two_factor`, `closed`.",
    ),
    "me_partial_update": (
        "Declare the account a bot (or a human)",
        '`{kind: "bot"}` or `{kind: "human"}`: the profile. Only before the account\'s first '
        "game: afterwards 409 `account_has_games` (RULES.md).",
    ),
    "users_retrieve": (
        "A player's public profile",
        "`{username, kind, date_joined, stats, stats_no_guess, recent_games, daily}`: stats per "
        "level for all seven buckets (six levels and `custom`), zeros and nulls where nothing "
        "was played; `recent_games` the 20 newest ended games. Unknown player: 404.",
    ),
    "users_luck": (
        "A player's luck",
        "Luck against expectation per level of one `mode` (classic by default): forced guesses "
        "survived and lost, the expected survivals (the sum of 1 - p), their difference, in all "
        "and per month of the newest 24 (docs/STATS.md, Luck, measured). Unknown player: 404.",
    ),
    "users_insights": (
        "A player's insights",
        "A player's analysed solo games of one `mode` (classic by default) summed per level, in "
        "all and per month of the newest 24: avoidable and forced guesses, the mean think time "
        "of deduced moves and of guesses, the mean 3BV/s and IOE of wins, luck against "
        "expectation, and where on the board the guesses were (docs/STATS.md, Insights). Read "
        "from sums kept as each analysis is stored, never from the games. Public where the "
        "profile is: unknown or closed player 404; a `mode` other than `classic` or "
        "`no_guess` 400 `invalid_mode`.",
    ),
    "tokens_retrieve": (
        "My tokens",
        "The signed-in player's API tokens with their names, `scopes` and last use; never a key.",
    ),
    "tokens_create": (
        "Make a named token",
        "A new token with a name and `scopes` (without them: the maker's own). The key is in "
        "this answer only. A token makes tokens only within its own scopes: asking for more is "
        "403 `missing_scope`, an unknown scope 400 `unknown_scope` (docs/ACCOUNTS.md).",
    ),
    "tokens_destroy": (
        "Revoke a token",
        "204: the token is revoked and its sockets closed. Another account's token id is 404.",
    ),
    "tokens_test_create": (
        "What keys may do",
        "`{tokens: [...]}`: for each key, its account and scopes, or null for a key that is no "
        "token. Holding a key is what this needs; it changes nothing.",
    ),
    "me_settings_retrieve": (
        "My site settings",
        "The web page's settings of the signed-in player (defaults filled in), an extension of "
        "API.md.",
    ),
    "me_settings_partial_update": (
        "Change my site settings",
        "Changes the keys it sends; answers the settings.",
    ),
    # --- the account's lifecycle (API.md; docs/ACCOUNTS.md) ----------------------------------
    "me_email_create": (
        "Set my e-mail address",
        "`{email}`: 202; a verification link is mailed and the profile's `email_verified` is "
        "false until it is followed. Limited per recipient and per account (429).",
    ),
    "auth_email_verify_create": (
        "Verify an e-mail address",
        "`{token}` from the mailed link: 200 the profile (`email`, `email_verified: true`). "
        "Needs no sign-in. A forged, expired or superseded token is 400 `token_invalid`.",
    ),
    "me_password_create": (
        "Change my password",
        "`{current_password, new_password}`: 204; every other session of the account is "
        "signed out (their sockets closed); tokens stay. A wrong current password is 403 "
        "`wrong_password`, nothing changed.",
    ),
    "auth_password_reset_create": (
        "Ask for a password reset",
        "`{email}`: 202, the same answer whether or not an account has that verified address; "
        "a link is mailed if one does. Needs no sign-in.",
    ),
    "auth_password_reset_confirm_create": (
        "Reset a password",
        "`{token, new_password}` from the mailed link: 204. A token works once and expires "
        "(400 `token_invalid`); every session is signed out and every API token revoked.",
    ),
    "me_sessions_list": (
        "My browser sessions",
        "`[{id, created_at, last_seen_at, user_agent, address, current}]`: where the account is "
        "signed in with a session (tokens are at `/api/tokens`).",
    ),
    "me_sessions_destroy": (
        "Sign a session out",
        "204; that session is signed out and its sockets closed. Another account's id is 404.",
    ),
    "me_totp_create": (
        "Start two-factor sign-in",
        "201 `{secret, otpauth_uri}`: two-factor sign-in (TOTP, RFC 6238), inactive until "
        "confirmed with a code. 409 `totp_active` when it is already on.",
    ),
    "me_totp_confirm_create": (
        "Confirm two-factor sign-in",
        "`{code}`: 200 `{recovery_codes: [...]}` (ten, shown once); from now on sign-in needs "
        "`otp`. A wrong code is 403 `wrong_otp`.",
    ),
    "me_totp_destroy": (
        "Turn two-factor sign-in off",
        "`{code}` (a current or recovery code) and, when given, `password`: 204. A wrong code "
        "is 403 `wrong_otp`, a wrong password 403 `wrong_password`; the caller stays signed "
        "in. 409 `totp_inactive` when it is not on.",
    ),
    "me_close_create": (
        "Close or delete my account",
        '`{mode: "close"|"delete", password}`: 202. *close*: off every board and list, '
        "reopened by signing in within 30 days; *delete*: after a grace period the personal "
        "data goes and the games stay under an anonymous name. A wrong password is 403 "
        "`wrong_password`.",
    ),
    "me_export_retrieve": (
        "Export my personal data",
        "The personal data as JSON: account, settings, tokens without secrets, sessions, "
        "statistics (docs/ACCOUNTS.md, Your data).",
    ),
    "users_games_export_retrieve": (
        "Export a player's games",
        "NDJSON (`application/x-ndjson`), one ended Game a line with its layout and moves, "
        "under the Game's own visibility rules; `?level=`, `?mode=`, `?since=` filter. "
        "Throttled per client (429).",
    ),
    # --- games (API.md, Games) ---------------------------------------------------------------
    "games_create": (
        "Create a game",
        "`{level}` or `{width, height, mines}` (not both), with `no_guess` (default false) for "
        "a board solvable by deduction from the first tap. 201 Game, state `new`, no mines "
        "placed yet: the first reveal places them, never under the 3x3 around it. A started "
        "game of the same level is ended as abandoned, an untapped one discarded (404 from "
        "then on). A custom density the server cannot serve without a guess is 400 "
        "`no_guess_unavailable`.",
    ),
    "games_list": (
        "List games",
        "A page of Games, newest first, filtered by `?state=` (comma-separated), `?level=`, "
        "`?user=`. The live ones (`playing`) are spectatable over `/ws/games/{id}` and "
        "`/api/stream/game/{id}`.",
    ),
    "games_retrieve": (
        "A game",
        "The Game. `board` is one string per row (see the Game schema for its characters); "
        "`null` while paused, and to anyone but its player while its race or its day runs. A "
        "non-uuid or unknown id, or a discarded game, is 404.",
    ),
    "games_reveal_create": (
        "Reveal a cell",
        "`{x, y, client_move_id?}`: MoveResult `{game, changes, seq}`, `changes` listing every "
        "cell opened, in order. Revealing a flagged or opened cell is an accepted no-op (200, "
        "`changes: []`, its own `seq`). Refused, nothing stored: 400 a cell outside the board "
        "(`out_of_bounds`) or coordinates that are not JSON integers; 403 `not_your_game`; 409 "
        "`game_paused`, `game_over`, `idempotency_conflict` (a `client_move_id` reused with a "
        "different move). The same `client_move_id` again answers the original result.",
    ),
    "games_flag_create": (
        "Flag or unflag a cell",
        "`{x, y, flagged?, client_move_id?}`: MoveResult; without `flagged` it toggles. "
        "`flagged: true` on a flagged cell (or false on an unflagged one) is an accepted no-op. "
        "Refused: 409 `game_not_started` (before the first tap), `cell_open`, `game_paused`, "
        "`game_over`, `idempotency_conflict`; 403 `not_your_game`; 400 `out_of_bounds`.",
    ),
    "games_chord_create": (
        "Chord on a number",
        "`{x, y, client_move_id?}`: MoveResult. On an opened number whose flag count matches, "
        "opens its other closed neighbours; otherwise (or on a zero) an accepted no-op. "
        "Refused: 409 `game_not_started`, `cell_closed` (a closed or flagged cell), "
        "`game_paused`, `game_over`, `idempotency_conflict`; 403 `not_your_game`; 400 "
        "`out_of_bounds`.",
    ),
    "games_pause_create": (
        "Pause a game",
        "The Game, `paused`, its board hidden (`null`) and its clock stopped; unranked from "
        "then on (`unranked_reason: paused`). Recorded in `/moves` with its own `seq`. Pausing "
        "a paused game answers 200 and changes nothing. 409 `game_not_started`, `game_over`, "
        "`race_game` (race games cannot pause).",
    ),
    "games_resume_create": (
        "Resume a game",
        "The Game, `playing` again. Resuming a running game answers 200 and changes nothing; "
        "before the first tap 409 `game_not_started`; after the end 409 `game_over`.",
    ),
    "games_resign_create": (
        "Resign a game",
        "The Game, lost with `end_reason: resigned`, its whole layout shown. 409 "
        "`game_not_started` before the first tap, `game_over` after the end.",
    ),
    "games_moves_list": (
        "A game's moves",
        "A page of the game's moves in order, each `{seq, action, x, y, at_ms, flagged}`: "
        "`at_ms` is the game clock at that move (elapsed ms, pauses excluded); `pause`, "
        "`resume`, `resign` and the server's `abandon` have `x` and `y` null. 403 "
        "`race_running` or `daily_running` to anyone but the player while the race or the day "
        "runs.",
    ),
    "games_replay_evf": (
        "A game as an EVF replay",
        "The ended game as an EVF (version 3) replay file, `application/octet-stream`, under "
        "the Game's visibility rules. 409 `game_not_over` before the end.",
    ),
    "games_probabilities": (
        "A replay step's mine probabilities",
        "One step of an ended game's replay (`?step=N`: the position after its first N moves, "
        "pauses and resumes left out) with every closed cell's chance of being a mine, from the "
        "numbers open then and the count of mines: `{game, step, steps, width, height, exact, "
        "p_mine}`, `p_mine` rows of chances to the half percentage point, null for an opened "
        "cell (docs/ANALYSIS.md, The probability overlay). Made with the game's analysis, off "
        "the request path, and shown where the analysis is: 409 `game_not_over` before the end "
        "(to everyone, the player too), 403 `race_running` or `daily_running` while the race or "
        "the day runs (its own player too), 404 `not_found` until the analysis has stored it; a "
        "missing or out-of-range `step` 400 `invalid`.",
    ),
    # --- leaderboards (API.md, Leaderboards and statistics) ----------------------------------
    "leaderboards_times": (
        "Best times",
        "Rows `{rank, player, time_ms, game_id, achieved_at}`, one per player (their best won "
        "time), over a rolling `period`. Only ranked games. `me` is the signed-in player's "
        "row or null; `around=me` (signed in, else 401) is the page that holds it; "
        "`players=bots` ranks bot accounts; `mode=no_guess` the no-guess games.",
    ),
    "leaderboards_speed": (
        "Best speeds (3BV/s)",
        "Rows `{rank, player, bbbv_per_s, game_id, achieved_at}`, one per player, over a "
        "rolling `period`. A game won by its first tap (0 ms) is not on it. `me`, `around=me`, "
        "`players`, `mode` as on every board.",
    ),
    "leaderboards_streaks": (
        "Win streaks",
        "Rows `{rank, player, best_streak, current_streak, ...}` sorted by `best` unless "
        "`sort=current` (or `skill`: the runs a loss on a forced guess does not break). No "
        "period. `me`, `around=me`, `players`, `mode` as on every board.",
    ),
    "leaderboards_races": (
        "Race ratings",
        "Rows `{rank, player, rating, races, wins}` for a level's races, with `me`; "
        "`around=me` is the page holding the viewer's row. Only ratings no longer provisional "
        "(docs/RACES.md, Provisional ratings): a provisional player's `me` is null. "
        "`season=current` or `season=2026Q4` is that season's board (calendar quarters, UTC; "
        "a season not begun or not so named is 400 `invalid_season`), without it the lasting "
        "ratings; the page says the `season` shown (null: lasting) and the `seasons` it can "
        "show, the current one first.",
    ),
    "leaderboards_daily": (
        "A daily's board",
        "Rows `{rank, player, state, time_ms, opened, game_id}` of a level's daily on `date` "
        "(default today); `me`, `around=me`, `players=bots` as on every board.",
    ),
    "leaderboards_puzzles": (
        "Puzzle ratings",
        "Rows `{rank, player, rating, solved}`; `me` and `around=me` as on every board.",
    ),
    "leaderboards_puzzles_streak": (
        "Puzzle streak bests",
        "The best puzzle streaks (docs/PUZZLES.md), one row per player.",
    ),
    "leaderboards_puzzles_storm": (
        "Puzzle storm bests",
        "The best puzzle storm scores (docs/PUZZLES.md) over a `period`, one row per player.",
    ),
    # --- races (API.md, Races) ---------------------------------------------------------------
    "races_create": (
        "Create a race",
        "`{level, max_players?, no_guess?}` (`max_players` 2…8, default 8): 201 Race, state "
        "`open`; the creator is its host and first racer. 409 `already_racing` when already "
        "in an active race or the queue.",
    ),
    "races_list": (
        "List races",
        "A page of Races filtered by `?state=open|running|finished`, `?level=`, `?code=`.",
    ),
    "races_retrieve": (
        "A race",
        "The Race. `start_cell` and each racer's `game` appear when it starts; places and "
        "ratings when it ends. Watch it live over `/ws/races/{id}`.",
    ),
    "races_join_create": (
        "Join a race",
        "The Race. Refused: 409 `race_full`, `race_closed` (started or ended), `already_racing`.",
    ),
    "races_leave_create": (
        "Leave a race",
        "The Race. If the host leaves an open race the next racer becomes host; an open race "
        "with nobody left is `cancelled`. Leaving a running race ends the player's game as "
        "lost (`left`).",
    ),
    "races_ready_create": (
        "Say ready",
        "`{ready?}` (default true): the Race. An open race starts by itself (3 s countdown) "
        "once every racer, two or more, is ready.",
    ),
    "races_start_create": (
        "Start a race",
        "The Race, `countdown`, `starts_at` 3 s ahead. Host only (403 `not_race_host`), at "
        "least 2 racers (409 `race_needs_players`); on a race already counting down an "
        "accepted no-op.",
    ),
    "races_queue_create": (
        "Quick match",
        '`{level, no_guess?}`: 200 `{state: "waiting"|"matched", level, race}`: the player '
        "waits in the level's queue until a race forms. 409 `already_racing`.",
    ),
    "races_queue_retrieve": (
        "My place in the queue",
        "`{state, level, race}`: waiting, or matched with the race formed.",
    ),
    "races_queue_destroy": ("Leave the queue", "204: the player leaves the quick-match queue."),
    "users_races_retrieve": (
        "A player's races",
        "Race statistics per level (rating, `provisional`, races, wins, podiums), totals, the "
        "20 newest finished races, the podiums of the seasons that have ended "
        "(`season_podiums`: `{season, level, no_guess, rank, rating}`, top three of a season's "
        "board) and the player's arenas (docs/RACES.md, docs/ARENAS.md).",
    ),
    # --- arenas (API.md, Arenas) -------------------------------------------------------------
    "arenas_create": (
        "Create an arena",
        "`{level, name?, no_guess?, starts_at?, minutes, players?}` (`minutes` 20…180; "
        "`starts_at` now or later, default now; `players` `humans` (default) or `bots`): 201 "
        "Arena. A human account creates human arenas, a bot bot arenas.",
    ),
    "arenas_list": (
        "List arenas",
        "A page of Arenas, the next to start first, filtered by "
        "`?state=scheduled|running|finished` and `?level=`; the server's scheduled ones among "
        "them.",
    ),
    "arenas_retrieve": (
        "An arena",
        "The Arena; `me` is the viewer's score and current race, or null for someone who has "
        "not joined. Watch it over `/ws/arenas/{id}`.",
    ),
    "arenas_join_create": (
        "Join an arena",
        "The Arena; the player enters its pool and is paired as soon as another waits. Joining "
        "again is an accepted no-op. Refused: 409 `arena_closed`, `already_racing`; 403 "
        "`arena_players` (a bot in a human arena or the reverse).",
    ),
    "arenas_leave_create": (
        "Leave an arena",
        "The Arena; the player leaves the pool (a race they are in goes on). Leaving an arena "
        "one is not in is an accepted no-op.",
    ),
    "arenas_standings": (
        "An arena's standings",
        "Rows `{rank, player, score, races, wins, streak, fire}` (`fire`: the next win scores "
        "double), public; `me`, `around=me` as on every board.",
    ),
    # --- daily challenge (API.md, Daily challenge) -------------------------------------------
    "daily_today": (
        "Today's dailies",
        "`{date, ends_at, levels: [{level, no_guess, players, winners, game}]}`: the six "
        "dailies of the day; `game` is the signed-in player's, else null.",
    ),
    "daily_start": (
        "Play today's daily",
        "POST `/api/daily/{level}`: 201 Game on the first call of the day (already started at "
        "the daily's start cell, move seq 1 the server's opening), 200 the same Game after.",
    ),
    "daily_day": (
        "A day's dailies",
        "GET `/api/daily/{YYYY-MM-DD}`: that day's six dailies as today's; after the day, each "
        "with `start_cell`. A day that names nothing is 404.",
    ),
    "daily_practice": (
        "Practise a past daily",
        "A past day only: 201 a new practice Game (unranked, `unranked_reason: practice`); 409 "
        "`daily_not_over` for today or later.",
    ),
    "users_daily": (
        "A player's daily calendar",
        "The player's dailies between `from` and `to` (at most 366 days), day by day "
        "(docs/DAILY.md).",
    ),
    # --- puzzles (API.md, Puzzles) -----------------------------------------------------------
    "puzzles_next": (
        "Next puzzle",
        "A Puzzle near the player's puzzle rating that they have not tried (the same one until "
        "it is played), optionally of a `theme`; 404 when none is left. Signed in, guests too.",
    ),
    "puzzles_daily": (
        "The day's puzzle",
        "The day's Puzzle, the same for everyone (404 while there is none).",
    ),
    "puzzles_get": ("A puzzle", "The Puzzle, with the caller's attempt."),
    "puzzles_open": (
        "Open a cell of a puzzle",
        "`{x, y}`: `{correct, puzzle}`; the attempt starts at the first opening and fails on a "
        "cell that was not provably safe. Refused: 400 `out_of_bounds`, 409 `cell_open`, 409 "
        "`attempt_over`.",
    ),
    "puzzles_retry": (
        "Try a puzzle again",
        "A new attempt, practice (201), once the last one has ended; the attempt still in play "
        "otherwise (200).",
    ),
    "puzzles_dashboard": (
        "My puzzle dashboard",
        "Per theme: attempts, solved, and the player's puzzle rating.",
    ),
    "puzzles_streak_get": (
        "My puzzle streak",
        "The player's running streak, else their last one (docs/PUZZLES.md).",
    ),
    "puzzles_streak_start": (
        "Start a puzzle streak",
        "A new streak with its first puzzle (a running one ends first).",
    ),
    "puzzles_storm_get": (
        "My puzzle storm",
        "The player's running storm, else their last one (docs/PUZZLES.md).",
    ),
    "puzzles_storm_start": (
        "Start a puzzle storm",
        "A new storm with its first puzzle (a running one ends first).",
    ),
    # --- streams (API.md, Token scopes and event streams) ------------------------------------
    "stream_a_game": (
        "Stream a game",
        "NDJSON (`application/x-ndjson`), one JSON object a line, an empty line at least "
        "every 7 s: first `{type: state, seq, game}`, then the very frames `/ws/games/{id}` "
        "sends (`move`, `paused`, `resumed`, `ended`), each with its `seq`; the answer ends "
        "after `ended`. Anyone who may watch the game. Refusals before the first line are the "
        "REST statuses with the error body; after it, an `error` line is the last.",
    ),
    "stream_my_events": (
        "Stream my events",
        "NDJSON, signed in: first one `game_start` per game of the player still playing, then "
        "`game_start`, `game_end`, `game_discarded` (`game`), `race_start`, `race_end` "
        "(`race`), `arena_race` "
        "and `arena_end` as they happen; empty lines keep the connection alive. One stream "
        "per account: opening a second ends the first.",
    ),
}
