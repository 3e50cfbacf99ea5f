"""Every package is typed: mypy, with the project's settings (pyproject.toml) and
--disallow-untyped-defs, finds no error in engine, comm, othellotool, peer and conformance.

mypy runs once for the whole suite (the stub of the compiled core is checked against the core
itself in test_engine_types.py).  Its cache goes to a fresh temporary folder: every run is a cold
one (6 s on two idle cores, 12 s on busy ones), and nothing is left in the work tree."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "comm", "othellotool", "peer", "conformance")


def test_mypy_finds_no_error_in_any_package(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    command = [sys.executable, "-m", "mypy", "--disallow-untyped-defs", "--cache-dir", str(tmp_path / "cache")]
    for package in PACKAGES:
        command += ["-p", package]
    r = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    errors = [line for line in r.stdout.splitlines() if re.match(r"[^:]+:\d+: error:", line)]
    if r.returncode != 0 or errors:
        pytest.fail(f"mypy finds {len(errors)} errors:\n" + "\n".join(errors or [r.stdout, r.stderr]), pytrace=False)
