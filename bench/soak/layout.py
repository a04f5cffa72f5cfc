"""The layout the soak and the crash test load: a private PostgreSQL and a private Redis
(bench/harness/servers.py), seeded players, gunicorn (2 sync workers) for /api/ and uvicorn
(2 workers, DB_POOL=1) for /ws/ with the production settings, all on ports 18500-18549.

    with production_layout("crash", database="demineur_crash", players=32, log=say) as layout:
        ...                      # layout.web, layout.live, layout.pg, layout.accounts
        layout.stop_servers()    # before the database is checked
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.harness.servers import AppServer, Ports, PrivatePostgres, PrivateRedis, app_env
from deploy.processes import run_python

PORTS = range(18500, 18550)


def seed(env: dict[str, str], players: int, prefix: str) -> list[dict[str, str]]:
    """`players` accounts with a token each (bench/soak/seed.py, in the servers' environment)."""
    args = ("--players", str(players), "--prefix", prefix)
    done = run_python("-m", "bench.soak.seed", *args, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"seeding failed:\n{done.stderr[-3000:]}")
    accounts: list[dict[str, str]] = json.loads(done.stdout)["players"]
    return accounts


@dataclass
class Layout:
    logs: Path
    pg: PrivatePostgres
    database_url: str
    redis_url: str
    env: dict[str, str]
    accounts: list[dict[str, str]]
    web: AppServer
    live: AppServer

    def stop_servers(self) -> None:
        self.web.stop()
        self.live.stop()


@contextmanager
def production_layout(
    name: str,
    *,
    database: str,
    players: int,
    log: Callable[[str], None],
    workdir: Path | None = None,
) -> Iterator[Layout]:
    """The layout, ready; its servers are stopped, and PostgreSQL and Redis removed, on exit.
    `name` prefixes the log lines, the channel and cache prefixes and the players' names."""
    logs = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=workdir))
    ports = Ports(PORTS)
    pg_port, redis_port, web_port, live_port = (ports.take() for _ in range(4))
    log(f"{name}: logs in {logs}; PostgreSQL :{pg_port}, Redis :{redis_port} (private)")
    with PrivatePostgres(pg_port) as pg, PrivateRedis(redis_port) as redis:
        database_url = pg.create_database(database)
        env = app_env(database_url, redis.url(0), name)
        accounts = seed(env, players, name)
        log(f"{name}: {len(accounts)} players seeded")
        web = AppServer("gunicorn", web_port, env, logs)
        live = AppServer("uvicorn", live_port, env, logs)
        layout = Layout(logs, pg, database_url, redis.url(0), env, accounts, web, live)
        try:
            web.start()
            live.start()
            web.wait_ready()
            live.wait_ready()
            log(
                f"{name}: gunicorn :{web_port} (pid {web.pid}), uvicorn :{live_port} (pid {live.pid})"
            )
            yield layout
        finally:
            layout.stop_servers()
