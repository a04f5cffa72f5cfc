"""Puzzles: positions taken from finished games in which the numbers prove a closed cell safe
(RULES.md, Puzzles; docs/PUZZLES.md)."""
