"""Django's registry of the games app: each room keeps its own tables (games/play/models.py,
games/daily/models.py, games/races/models.py, games/arenas/models.py, games/puzzles/models.py)
and Django finds them here, under the one app label `games` (no table was renamed). Only the
registry imports this module; code imports the room that owns the table."""

from games.arenas.models import *  # noqa: F403
from games.daily.models import *  # noqa: F403
from games.play.models import *  # noqa: F403
from games.puzzles.models import *  # noqa: F403
from games.races.models import *  # noqa: F403
