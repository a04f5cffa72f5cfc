"""Launchers of the production layout on one machine and the server processes they share."""
