"""Race ratings (RULES.md, Races, Ratings) with openskill's Plackett-Luce model, which rates a
finishing order of 2 to 8 players in one step (docs/RACES.md says why it was chosen over a
pairwise Elo or Glicko). The scale is Elo-like: a new player is 1500 ± 500; what is shown and
ranked is round(mu).

    >>> new = Skill.new()
    >>> winner, loser = rate([new, new], places=[1, 2])
    >>> winner.mu > 1500 > loser.mu, round(winner.mu + loser.mu)
    (True, 3000)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from openskill.models import PlackettLuce

MU = 1500.0
SIGMA = 500.0
# openskill's defaults scaled to this MU: beta = sigma / 2, tau = sigma / 100.
_MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=SIGMA / 100)
# A rating is provisional, shown with "?" and kept off the race boards, while its sigma is at
# or above this: 90 % of a new player's. Among new players that is 4 rated races in twos or
# threes, about 6 in fours and 11 in eights (docs/RACES.md, Provisional ratings).
PROVISIONAL_SIGMA = 450.0


def provisional(sigma: float) -> bool:
    """Whether a rating with this sigma is still provisional.

    >>> provisional(SIGMA), provisional(449.9)
    (True, False)
    """
    return sigma >= PROVISIONAL_SIGMA


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @classmethod
    def new(cls) -> Skill:
        return cls(MU, SIGMA)

    @property
    def shown(self) -> int:
        """The rating a player sees, on the board and in a race's results."""
        return shown_rating(self.mu)


@overload
def shown_rating(mu: float) -> int: ...
@overload
def shown_rating(mu: None) -> None: ...
def shown_rating(mu: float | None) -> int | None:
    """The one rounding from a stored mu to the rating shown everywhere (None stays None).

    >>> shown_rating(1512.5), shown_rating(None)
    (1512, None)
    """
    return round(mu) if mu is not None else None


def rate(skills: Sequence[Skill], *, places: Sequence[int]) -> list[Skill]:
    """The new skills of racers who finished at `places` (1 first; equal places tie).

    >>> a, b, c = rate([Skill.new()] * 3, places=[2, 1, 2])
    >>> b.mu > a.mu == c.mu
    True
    """
    if len(skills) != len(places):
        raise ValueError("one place per racer")
    if len(skills) < 2:
        return list(skills)
    teams = [[_MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = _MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Skill(float(team[0].mu), float(team[0].sigma)) for team in rated]
