"""The sample programs, copied by ``python -m peer samples`` into a folder of their own, run as
they are there (with the packages on the path as an installed game has them)."""
import os
import subprocess
import sys

import pytest

from peertools import ROOT, final_line, finish, player


def run(argv, cwd, timeout=120, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          encoding="utf-8", timeout=timeout, **kw)


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    dest = tmp_path_factory.mktemp("s") / "mine"
    r = run(["-m", "peer", "samples", str(dest)], ROOT)
    assert r.returncode == 0 and "files copied" in r.stdout, r.stderr
    return dest


def test_every_sample_is_copied_and_nothing_is_overwritten(samples):
    names = {p.name for p in samples.iterdir()}
    assert {"first_ai.py", "table_ai.py", "minimax_ai.py", "tournament.py", "tune_table.py",
            "classic_black.py", "classic_white.py", "README.md"} <= names
    before = (samples / "first_ai.py").read_bytes()
    (samples / "first_ai.py").write_text("# mine\n")
    r = run(["-m", "peer", "samples", str(samples)], ROOT)
    assert r.returncode == 2 and "nothing copied" in r.stderr and "Traceback" not in r.stderr
    assert (samples / "first_ai.py").read_text() == "# mine\n"
    (samples / "first_ai.py").write_bytes(before)


@pytest.mark.parametrize("argv, words", [
    (["first_ai.py"], "FirstAI (black)"),
    (["table_ai.py"], "TableAI (black)"),
    (["minimax_ai.py"], "MinimaxAI (black)"),
    (["tune_table.py", "3"], "round  3:"),
    (["tournament.py", "1"], "MinimaxAI"),
])
def test_each_sample_runs_as_it_is(samples, argv, words):
    r = run(argv, samples, timeout=300)
    assert r.returncode == 0 and words in r.stdout, (r.stdout[-800:], r.stderr[-800:])


@pytest.mark.parametrize("argv", [["tune_table.py", "1e3"], ["tune_table.py", "-5"], ["tune_table.py", "99999999"],
                                  ["tournament.py", "x"], ["tournament.py", "0"]])
def test_a_samples_bad_count_is_said_in_one_line(samples, argv):
    r = run(argv, samples, timeout=60)
    assert r.returncode == 1 and r.stderr.startswith("usage: python ") and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1


def test_the_classic_programs_play_each_other(samples, tmp_path):
    board = tmp_path / "b"
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    procs = [subprocess.Popen([sys.executable, f"classic_{c}.py", str(board)], cwd=samples, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8")
             for c in ("black", "white")]
    outs = [finish(p)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[-600:] for o in outs]
    last = [o.strip().splitlines()[-1] for o in outs]
    assert last[0] == last[1] and last[0].startswith("black "), last


def test_a_sample_ai_plays_on_the_board(samples, tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", f"{samples / 'first_ai.py'}:FirstAI", "--time", "0.2")
    w = player("white", board, "--ai", f"{samples / 'minimax_ai.py'}:MinimaxAI", "--time", "2")
    (rb, ob), (rw, ow) = finish(b, 300), finish(w, 300)
    assert rb == rw == 0, (ob[-600:], ow[-600:])
    assert "FirstAI (black X) vs MinimaxAI (white O)" in ob and final_line(ob) == final_line(ow) is not None
    assert "failed" not in ob + ow
