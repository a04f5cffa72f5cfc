"""Free loopback ports for the benchmarks' own servers, each bench in its own range."""

from __future__ import annotations

import socket
from collections.abc import Iterable

HOST = "127.0.0.1"


def free_port(candidates: Iterable[int], taken: set[int]) -> int:
    """The first port of `candidates` that is neither in `taken` nor bound by anyone; it is
    added to `taken`."""
    for port in candidates:
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind((HOST, port))
            except OSError:
                continue
        taken.add(port)
        return port
    raise SystemExit(f"no free port in {candidates}")
