"""What must hold after a crash or a soak: every acknowledged move is stored, and
`manage.py verify_games` finds nothing wrong (no half-written game: each game's `seq`, board,
clock, statistics agree with the replay of its moves)."""

from __future__ import annotations

from dataclasses import dataclass

from deploy.processes import run_python

from .bots import Ledger


@dataclass
class Stored:
    lost: list[str]  # acknowledged moves not in the database, as "cmid -> (game, seq)"
    games: int
    moves: int
    moves_with_cmid: int


def lost_moves(database_url: str, ledger: Ledger) -> Stored:
    """Look up every acknowledged (game id, seq, client_move_id) in games_move."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT game_id::text, seq, client_move_id FROM games_move "
            "WHERE client_move_id IS NOT NULL"
        ).fetchall()
        games = conn.execute("SELECT count(*) FROM games_game").fetchone()
        moves = conn.execute("SELECT count(*) FROM games_move").fetchone()
    stored = {(str(g).replace("-", ""), int(seq)): cmid for g, seq, cmid in rows}
    lost = []
    for cmid, (game, seq) in ledger.acked.items():
        if stored.get((game.replace("-", ""), seq)) != cmid:
            lost.append(f"{cmid} -> ({game}, seq {seq})")
    return Stored(
        lost=lost,
        games=int(games[0]) if games else 0,
        moves=int(moves[0]) if moves else 0,
        moves_with_cmid=len(rows),
    )


def verify_games(env: dict[str, str], timeout: float = 600) -> tuple[bool, str]:
    """`manage.py verify_games` against the servers' database: (passed, its last lines)."""
    done = run_python("manage.py", "verify_games", "-v0", env=env, timeout=timeout)
    text = (done.stdout + done.stderr).strip()
    return done.returncode == 0, "\n".join(text.splitlines()[-15:])
