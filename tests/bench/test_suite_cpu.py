"""The suite's own CPU tools: the CPU of the processes below one (bench/harness/timing.py),
and the per-test table that adds it up by folder (bench/suite/cpu_per_test.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.harness.timing import descendants_cpu
from bench.suite import cpu_per_test

# A child that spins until it has spent 0.3 s of CPU, says so, then waits for its stdin to close.
SPINNER = (
    "import sys, time\n"
    "while time.process_time() < 0.3: pass\n"
    "print('spun', flush=True)\n"
    "sys.stdin.read()\n"
)


def test_the_cpu_of_a_child_and_of_its_child_is_counted() -> None:
    before = descendants_cpu(os.getpid())
    # The spinner runs as a grandchild (a shell between), as Chromium runs below Playwright's
    # driver: the count follows the whole tree.
    child = subprocess.Popen(
        ["/bin/sh", "-c", '"$0" -c "$1"', sys.executable, SPINNER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "spun"
        spent = descendants_cpu(os.getpid()) - before
        # /proc counts CPU in clock ticks (10 ms), charged by sampling: a tick or so may be
        # missing from 0.3 s.
        assert spent >= 0.25
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


def test_the_summary_adds_the_tests_up_by_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "gw0-1.tsv").write_text(
        "tests/play/test_a.py::test_one\t1.000\t3.000\t0.500\n"
        "tests/browser/test_b.py::test_two\t0.250\t9.000\t4.000\n"
    )
    (tmp_path / "gw1-2.tsv").write_text("tests/play/test_c.py::test_three\t2.000\t2.500\t0.000\n")
    monkeypatch.setattr(sys, "argv", ["cpu_per_test", str(tmp_path), "--top", "2"])
    cpu_per_test.main()
    out = capsys.readouterr().out
    assert "| play | 2 | 3.0 | 0.5 | 5.5 |" in out
    assert "| browser | 1 | 0.2 | 4.0 | 9.0 |" in out
    assert "all: 3.2 s own CPU, 4.5 s below" in out
    # The costliest first, own and below together: the browser test (4.25 s), then test_three.
    costly = out.split("| test |", 1)[1]
    assert costly.index("test_two") < costly.index("test_three")
    assert "test_one" not in costly


def test_the_plugin_writes_a_line_per_test(tmp_path: Path) -> None:
    """pytest run with the plugin on a module of two tests, one spinning for 0.2 s of CPU."""
    module = tmp_path / "test_spin.py"
    module.write_text(
        "import time\n"
        "def test_spins():\n"
        "    start = time.process_time()\n"
        "    while time.process_time() - start < 0.2: pass\n"
        "    assert True\n"
        "def test_idles():\n"
        "    assert True\n"
    )
    out = tmp_path / "cpu"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "bench.suite.cpu_per_test", str(module)],
        cwd=tmp_path,
        env={
            **os.environ,
            "SUITE_CPU_DIR": str(out),
            "PYTHONPATH": str(root),
            # Only the plugin under test: no pytest-django (no settings in tmp_path), no xdist.
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split("\t") for f in out.glob("*.tsv") for line in f.read_text().splitlines()]
    by_test = {node.rsplit("::", 1)[1]: (float(own), float(wall)) for node, own, wall, _ in lines}
    assert set(by_test) == {"test_spins", "test_idles"}
    assert by_test["test_spins"][0] >= 0.15
    assert by_test["test_idles"][0] < by_test["test_spins"][0]
    assert all(wall >= 0 for _, wall in by_test.values())
