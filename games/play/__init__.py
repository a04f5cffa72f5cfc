"""One game: the only writers of games and moves (services, move_store), what ranks (fairplay),
reads (selectors), what a viewer may see (presenters), the live messages of a game and of the
lobby (events, the only publisher), integrity checks and the profile read. Imports the engine,
the clock and accounts; never races or the doors (docs/ARCHITECTURE.md, The rooms)."""
