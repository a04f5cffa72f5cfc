"""The stack file for `docker stack deploy`, from docker-compose.yml as Compose merges it
(docs/DEPLOYMENT.md, "Swarm"; make swarm-test):

    SECRET_KEY=in-a-secret POSTGRES_PASSWORD=in-a-secret docker-compose \\
        -f docker-compose.yml -f docker-compose.swarm.yml config | python3 deploy/swarm_file.py > stack.yml
    docker stack deploy -c stack.yml demineur

`docker-compose config` merges the files, fills in the ${...} names and the env file, and makes
bind paths absolute. What Swarm refuses is rewritten, nothing else:
* a `depends_on` with conditions (service_healthy, service_completed_successfully) becomes the
  plain list of names, which Swarm ignores anyway (it starts every service at once; the app
  services wait for PostgreSQL and the migration through their readiness checks and restarts);
* a published port of a service with `endpoint_mode: dnsrr` (every service of
  docker-compose.swarm.yml) is published in `host` mode: Swarm's ingress needs a virtual IP.
  A host address (PUBLISH_ADDRESS) cannot be kept: Swarm binds every address of the node.
`--no-publish` drops every published port (make swarm-test: its clients run on the stack's
network, nothing is opened on the host). A service of a compose profile (the `monitoring`
pair) is left out: Swarm has no profiles and would deploy it; `--profile NAME` keeps that
profile's services.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml


def _port(spec: Any) -> dict[str, Any]:
    """A compose port (long form, or "[ip:]published:target[/proto]") in Swarm's long form."""
    if isinstance(spec, dict):
        published, target, protocol = spec.get("published"), spec["target"], spec.get("protocol")
    else:
        text, _, protocol = str(spec).partition("/")
        parts = text.split(":")
        published, target = (parts[-2] if len(parts) > 1 else None), parts[-1]
    port: dict[str, Any] = {"target": int(target), "mode": "host"}
    if published:
        port["published"] = int(published)
    if protocol:
        port["protocol"] = protocol
    return port


def for_swarm(
    config: dict[str, Any], *, publish: bool = True, profiles: tuple[str, ...] = ()
) -> dict[str, Any]:
    """`config` (a merged compose file) as Swarm takes it.

    >>> for_swarm({"services": {"web": {"depends_on": {"db": {"condition": "service_healthy"}}}}})
    {'services': {'web': {'depends_on': ['db']}}}
    >>> for_swarm({"services": {"proxy": {"ports": ["127.0.0.1:8000:8000"],
    ...     "deploy": {"endpoint_mode": "dnsrr"}}}})["services"]["proxy"]["ports"]
    [{'target': 8000, 'mode': 'host', 'published': 8000}]
    >>> for_swarm({"services": {"proxy": {"ports": ["8000:8000"]}}}, publish=False)
    {'services': {'proxy': {}}}
    >>> for_swarm({"services": {"web": {}, "grafana": {"profiles": ["monitoring"]}}})
    {'services': {'web': {}}}
    >>> sorted(for_swarm({"services": {"web": {}, "grafana": {"profiles": ["monitoring"]}}},
    ...     profiles=("monitoring",))["services"]["grafana"])
    []
    """
    services = config.get("services", {})
    for name in list(services):
        wanted = services[name].pop("profiles", None)
        if wanted is not None and not set(wanted) & set(profiles):
            del services[name]
    for service in config.get("services", {}).values():
        depends = service.get("depends_on")
        if isinstance(depends, dict):
            service["depends_on"] = sorted(depends)
        if "ports" in service:
            if not publish:
                del service["ports"]
            elif service.get("deploy", {}).get("endpoint_mode") == "dnsrr":
                service["ports"] = [_port(spec) for spec in service["ports"]]
    return config


def main() -> int:
    args = sys.argv[1:]
    publish = "--no-publish" not in args
    profiles = tuple(args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--profile")
    config = yaml.safe_load(sys.stdin)
    if not isinstance(config, dict) or "services" not in config:
        print(
            "swarm_file: stdin is not a compose file (pipe `docker-compose config` in)",
            file=sys.stderr,
        )
        return 2
    yaml.safe_dump(
        for_swarm(config, publish=publish, profiles=profiles), sys.stdout, sort_keys=False
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
