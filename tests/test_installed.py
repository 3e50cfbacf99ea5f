"""A player started with a Python that lacks the game's dependencies (outside the project's
environment) is told in one line what to activate or install, not shown a traceback.  ``-S``
leaves out every site-packages folder: the dependencies are missing as they are outside the
environment, and the packages still come from this folder."""
import subprocess
import sys

import pytest

from peer import installed
from peertools import ROOT


def bare(*argv):
    return subprocess.run([sys.executable, "-S", "-E", *argv], cwd=ROOT, capture_output=True, text=True,
                          encoding="utf-8", timeout=60)


@pytest.mark.parametrize("argv, program", [(["black.py", "--help"], "black.py"), (["white.py"], "white.py"),
                                           (["-m", "peer", "demo"], "python -m peer")])
def test_without_the_dependencies_one_line_says_what_to_do(argv, program):
    r = bare(*argv)
    assert r.returncode == 2 and r.stdout == "", (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"{program}: this Python ({sys.executable}) has no colorama, prompt_toolkit")
    assert ". .venv/bin/activate" in r.stderr and f"python -m pip install -e {ROOT}" in r.stderr


def test_in_japanese():
    r = bare("black.py", "--lang", "ja")
    assert r.returncode == 2 and "対局に必要な colorama" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_the_engine_needs_none_of_them():
    r = bare("-m", "engine", "info")
    assert r.returncode == 0 and "rules core" in r.stdout, r.stderr


def test_with_them_nothing_is_said():
    r = subprocess.run([sys.executable, "black.py", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("usage: python black.py") and r.stderr == "", r.stderr


def test_the_modules_are_the_projects_dependencies():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [d.split(">")[0].split("=")[0].split(";")[0].strip().lower() for d in project["dependencies"]]
    assert sorted(n.replace("-", "_") for n in names) == sorted(installed.NEEDED)
