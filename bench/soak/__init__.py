"""Reliability under load: the crash test (crash.py) and the soak (soak.py), run by
`make soak`; docs/RELIABILITY.md, "Crash" and "Soak"."""
