"""What players achieved: their tables (models), the rules of statistics and records (records,
pure), their writer (stats), reads and their JSON (selectors, presenters), every leaderboard
(leaderboards) and race ratings (ratings). Imports accounts' models and the engine only, so
that both game rooms can call it and it calls neither; its REST doors (api, serializers) sit
one layer up, on the doors' kit (games.api), still below the game rooms (docs/ARCHITECTURE.md,
The rooms)."""
