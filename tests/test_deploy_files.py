"""docker-compose.yml cannot be run here (no Docker engine): check that it parses and that
what it starts exists in this repository."""

from __future__ import annotations

import importlib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_file_starts_the_wsgi_and_asgi_entry_points_that_exist():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"db", "redis", "web", "live", "migrate", "proxy", "scheduler"} <= set(services)
    assert "close_idle_games" in " ".join(services["scheduler"]["command"])
    web, live = " ".join(services["web"]["command"]), " ".join(services["live"]["command"])
    assert "demineur_site.wsgi:application" in web
    assert "demineur_site.asgi:application" in live
    assert services["live"]["environment"]["DB_POOL"] == "1"
    for path in ("demineur_site.wsgi", "demineur_site.asgi"):
        assert importlib.util.find_spec(path) is not None
    caddy = (ROOT / "docs" / "Caddyfile").read_text()
    assert "/ws/*" in caddy and "live:8002" in caddy and "web:8001" in caddy
