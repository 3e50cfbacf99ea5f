"""The NBoard protocol engine (python -m engine nboard) and the GGF it reads."""
import io
import subprocess
import sys

import pytest

from engine import Game, notation
from engine.nboard import NBoardEngine
from engine.position import Position

START = "---------------------------O*------*O---------------------------"
GAME = f"(;GM[Othello]PC[NBoard]DT[2014-02-21]PB[a]PW[b]RE[?]TI[15:00]TY[8]BO[8 {START} *]" \
       "B[F5//0.00]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)"


def session(lines, ai="best", seconds=0.2):
    out, err = io.StringIO(), io.StringIO()
    engine = NBoardEngine(ai, seconds, out, err)
    for line in lines:
        if not engine.handle(line):
            break
    return engine, out.getvalue().splitlines(), err.getvalue()


def test_ggf_round_trip_and_nboard_game():
    g = Game.from_ggf(GAME)
    assert g.transcript() == "f5f6d3c5e6f7e7f4"
    again = Game.from_ggf(g.to_ggf("x", "y", "+2.000"))
    assert again.transcript() == g.transcript() and again.start == g.start


def test_ggf_with_a_pass_and_a_set_up_board():
    # white has no move after black's only move here; GGF may or may not write the pass
    text = "X" * 30 + "O-" + "-" * 32
    pos = Position.from_text(text + " X")
    g = Game(8, pos)
    assert Game.from_ggf(g.to_ggf()).start == pos
    with pytest.raises(ValueError):
        Game.from_ggf("(;GM[Othello]BO[8 ---- *];)")


@pytest.mark.parametrize("bad", ["", "GM[Othello]", "(;GM[Othello]B[Z9];)", "(;GM[Othello]B[A1];)",
                                 "(;GM[Othello]W[F5];)"])
def test_broken_ggf_is_refused(bad):
    with pytest.raises(ValueError):
        Game.from_ggf(bad)


def test_session_answers_in_order():
    engine, out, err = session(["nboard 2", "set depth 6", f"set game {GAME}", "ping 1", "go", "hint 3",
                                "learn", "ping 2", "quit", "ping 3"])
    assert out[0] == "set myname cardstand-best"
    assert out[1] == "set myname cardstand-best6"
    assert out[2] == "pong 1"
    moves = [l.split()[1] for l in out if l.startswith("=== ")]
    assert len(moves) == 1
    legal = {notation.square_name(m).upper() for m in engine.game.position.legal_moves()}
    assert moves[0] in legal
    hints = [l.split() for l in out if l.startswith("search ")]
    assert len(hints) == 3 and {h[1] for h in hints} <= legal
    values = [float(h[2]) for h in hints]
    assert values == sorted(values, reverse=True)
    assert "learned" in out and out[-1] == "pong 2"  # nothing after quit
    assert err == ""
    # go does not change the board; move does
    assert engine.game.transcript() == "f5f6d3c5e6f7e7f4"


def test_moves_update_the_board_and_bad_ones_change_nothing():
    engine, out, err = session(["nboard 2", "set depth 4", "move F5/0.5/1.2", "D6", "move Z9", "move A1",
                                "set game (;GM[Othello]B[A1];)", "hint x"])
    assert engine.game.transcript() == "f5d6"
    assert err.count("nboard:") == 4
    assert sum(l.startswith("status ") for l in out) == 4


def test_passes_and_game_over():
    # black: a1 and b1; white: c1; black moves d1 and white cannot answer anywhere
    text = "XXO" + "-" * 61
    g = Game(8, Position.from_text(text + " O"))
    engine, out, _ = session([f"set game {g.to_ggf()}", "go"])
    # white to move with no legal move: the engine answers a pass
    assert "=== PA" in out
    engine, out, err = session([f"set game {g.to_ggf()}", "move PA", "go"])
    assert [l for l in out if l.startswith("=== ")] == ["=== D1"]
    engine, out, err = session([f"set game {g.to_ggf()}", "move PA", "move D1", "go"])
    assert engine.game.position.is_game_over() and "game is over" in err


def test_command_line_engine():
    lines = "nboard 2\nset depth 4\nset game " + GAME + "\nping 7\ngo\nquit\n"
    r = subprocess.run([sys.executable, "-m", "engine", "nboard", "--time", "0.2"], input=lines,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[:3] == ["set myname cardstand-best", "set myname cardstand-best4", "pong 7"]
    assert any(l.startswith("=== ") for l in out)
    r = subprocess.run([sys.executable, "-m", "engine", "nboard", "--ai", "nosuch"], input="",
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "unknown AI" in r.stderr


def test_nodestats_counts_the_search():
    """Out of the book, ``go`` reports the nodes that ``best`` searched (NBoard shows them)."""
    import random
    g = Game(8)
    rng = random.Random(5)
    while len(g.moves) < 24:
        g.play(rng.choice(g.position.legal_moves() or [notation.PASS]))
    engine, out, err = session(["nboard 2", f"set game {g.to_ggf()}", "go"])
    stats = [l.split() for l in out if l.startswith("nodestats ")]
    assert len(stats) == 1 and int(stats[0][1]) > 0 and float(stats[0][2]) >= 0, out
