"""The conformance kit type-checks: mypy with the project's settings (--disallow-untyped-defs)."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_kit_is_fully_annotated_and_type_checks():
    pytest.importorskip("mypy")
    r = subprocess.run([sys.executable, "-m", "mypy", "-p", "conformance", "--follow-imports=silent",
                        "--disallow-untyped-defs", "--no-incremental"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
