"""Races: rooms, quick match, one layout and one clock for all racers (services, the only
writer of races and racers), pure rules, a move's effect on its race (progress), the race
clock, reads, presenters and the race's live messages. Builds on games.play; never imports
the doors (docs/RACES.md, docs/ARCHITECTURE.md)."""
