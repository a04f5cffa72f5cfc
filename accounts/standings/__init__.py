"""What players achieved: the rules of statistics and records (records, pure), their writer
(stats), reads and their JSON (selectors, presenters), every leaderboard (leaderboards) and
race ratings (ratings). Imports accounts' models and the engine only, so that both game rooms
can call it and it calls neither (docs/ARCHITECTURE.md, The rooms)."""
