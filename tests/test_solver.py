"""Exact solving: the FFO endgame positions #1-#19, both cores, and the command line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Position, backend, notation, strategies
from engine.__main__ import main

FFO = Path(__file__).parent / "data" / "fforum-1-19.obf"


def ffo_positions():
    for line in FFO.read_text().splitlines():
        board, rest = line.split(";", 1)
        scores = {}
        for item in rest.split(";"):
            mv, sep, sc = item.strip().partition(":")
            if sep:
                scores[mv.lower()] = int(sc)
        yield Position.from_text(board.strip()), scores


@pytest.mark.skipif(backend.compiled is None, reason="compiled core not built")
def test_ffo_1_to_19_exact_score_and_a_best_move():
    for i, (p, scores) in enumerate(ffo_positions(), 1):
        score, move, nodes, complete = backend.compiled.solve(8, p.player, p.opponent)
        best = max(scores.values())
        assert complete and score == best, f"#{i}: {score} != {best}"
        name = notation.square_name(move)
        assert scores.get(name, best) == best, f"#{i}: {name} is not a best move"
        after = p.play(move)
        s2, _, _, _ = backend.compiled.solve(8, after.player, after.opponent)
        assert -s2 == best, f"#{i}: the chosen move does not keep the score"


def pure_solve(p):
    """``strategies.solve`` with the compiled solver switched off."""
    saved = strategies.compiled
    try:
        strategies.compiled = None
        return strategies.solve(p)
    finally:
        strategies.compiled = saved


def test_pure_python_solver_agrees_on_small_endgames():
    import random
    rng = random.Random(4)
    for _ in range(6):
        p = Position.start()
        while p.empties() > 9 and not p.is_game_over():
            m = p.legal_moves()
            p = p.play(rng.choice(m) if m else -1)
        if p.is_game_over():
            continue
        compiled = backend.compiled.solve(8, p.player, p.opponent)[0] if backend.compiled else None
        pure = pure_solve(p)
        assert pure[3]
        if compiled is not None:
            assert pure[0] == compiled


@pytest.mark.skipif(backend.compiled is None, reason="compiled core not built")
@pytest.mark.parametrize("size", [4, 6])
def test_other_sizes_solve_like_plain_negamax(size):
    import random
    rng = random.Random(size)
    for _ in range(4):
        p = Position.start(size)
        while p.empties() > 10 and not p.is_game_over():
            m = p.legal_moves()
            p = p.play(rng.choice(m) if m else -1)
        if p.is_game_over():
            continue
        c = backend.compiled.solve(size, p.player, p.opponent)
        pure = pure_solve(p)
        assert c[0] == pure[0] and c[3]


def test_solve_time_limit_gives_up_cleanly():
    start = Position.start()
    score, move, nodes, complete = strategies.solve(start, 0.05)
    assert not complete
    assert strategies.solve_move(start, 0.05) is None
    if strategies.compiled is not None:  # 14 empties: milliseconds compiled, far too long in Python
        p = Position.from_text(FFO.read_text().splitlines()[0].split(";")[0])
        assert strategies.solve(p)[3]


@pytest.mark.skipif(strategies.compiled is None, reason="FFO #1-19 need the compiled solver")
def test_solve_cli_text_and_json(capsys):
    assert main(["solve", str(FFO)]) == 0
    out = capsys.readouterr().out
    assert out.count(" ok") == 19 and "total:" in out
    line = FFO.read_text().splitlines()[0].split(";")[0]
    assert main(["solve", line, "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["score"] == 18 and obj["move"] == "g8" and set(obj) >= {"score", "move", "nodes", "seconds"}


def test_solve_cli_reports_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.obf"
    bad.write_text("not a position X\n")
    assert main(["solve", str(bad)]) == 1
    assert "not a position" in capsys.readouterr().err
    assert main(["solve", str(tmp_path / "missing.obf")]) == 2


def test_move_cli_one_shot():
    req = "1\n8\n" + "\n".join(" ".join("0" for _ in range(8)) for _ in range(3)) + \
        "\n0 0 0 -1 1 0 0 0\n0 0 0 1 -1 0 0 0\n" + "\n".join(" ".join("0" for _ in range(8)) for _ in range(3))
    r = subprocess.run([sys.executable, "-m", "engine", "move", "--ai", "best", "--time", "0.2"],
                       input=req, capture_output=True, text=True, timeout=60)
    x, y = map(int, r.stdout.split())
    assert notation.square_name(y * 8 + x) in ("d3", "c4", "f5", "e6")
    r = subprocess.run([sys.executable, "-m", "engine", "move"], input="1 8 0", capture_output=True, text=True)
    assert r.returncode == 2 and "expected 64 cells" in r.stderr


def test_solve_cli_on_a_small_endgame_any_core(capsys):
    import random
    rng = random.Random(9)
    p = Position.start()
    while p.empties() > 8 and not p.is_game_over():
        m = p.legal_moves()
        p = p.play(rng.choice(m) if m else -1)
    assert main(["solve", p.text(), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["complete"] and obj["score"] == strategies.solve(p)[0]
