"""The whole-stack Docker tests (tests/deploy/test_compose_stack.py, test_swarm_stack.py):
skipped unless their make target asks for them, skipped with the reason when no Docker engine
can run, and each writes the figures it measured to a JSON file (docs/DEPLOYMENT.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from deploy.compose_stack import Engine, engine_missing, progress


def only_when_asked(variable: str, reason: str) -> pytest.MarkDecorator:
    """Skip the module unless `variable` is 1 (the make target sets it): a slow test."""
    return pytest.mark.skipif(os.environ.get(variable) != "1", reason=reason)


def docker_engine() -> Engine:
    """The Docker engine to run the stack on; the test is skipped, saying why, without one."""
    reason = engine_missing()
    if reason:
        pytest.skip(f"no Docker engine: {reason}")
    engine = Engine.find()
    assert engine is not None
    return engine


def write_figures(figures: dict[str, Any], variable: str, default: str) -> None:
    """The figures as JSON to the file `variable` names (else `default`), and to the log."""
    out = Path(os.environ.get(variable, default))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    progress(f"figures ({out}): {json.dumps(figures)}")
