"""Races benchmark (bench/races/run.py): eight bots race on Expert while 100 spectators watch."""
