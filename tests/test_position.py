import random

import pytest

from engine import PASS, Game, IllegalMove, Position, parse_square, square_name
from engine import notation


def test_start_position_and_moves():
    p = Position.start()
    assert p.text() == "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27 + " X"
    assert [square_name(m) for m in p.legal_moves()] == ["d3", "c4", "f5", "e6"]
    assert p.discs() == (2, 2) and p.empties() == 60
    q = p.play("F5")
    assert q.discs() == (4, 1) and q.turn == 1
    assert [square_name(m) for m in q.legal_moves()] == ["f4", "d6", "f6"]


def test_illegal_moves_are_refused_with_reasons():
    p = Position.start()
    with pytest.raises(IllegalMove, match="already taken"):
        p.play("d4")
    with pytest.raises(IllegalMove, match="flips nothing"):
        p.play("a1")
    with pytest.raises(IllegalMove, match="off the 8x8 board"):
        p.play("i9")
    with pytest.raises(IllegalMove, match="not a square"):
        p.play("hello")
    with pytest.raises(IllegalMove, match="cannot pass"):
        p.play("pass")
    with pytest.raises(IllegalMove):
        p.play(64)
    assert not p.is_legal("zz") and not p.is_legal("d4") and p.is_legal("d3")


def test_immutable():
    p = Position.start()
    with pytest.raises(AttributeError):
        p.player = 0


def test_text_round_trip_and_aliases():
    p = Game.from_transcript("f5d6c3d3c4").position
    assert Position.from_text(p.text()) == p
    alt = p.text().replace("X", "*").replace("-", ".")
    assert Position.from_text(alt) == p
    assert Position.from_text("\n".join(p.text()[i:i + 8] for i in range(0, 64, 8)) + p.text()[-1]) == p
    with pytest.raises(ValueError, match="size\\*size"):
        Position.from_text("XO-")
    with pytest.raises(ValueError, match="bad cell"):
        Position.from_text("Z" * 64 + " X")
    with pytest.raises(ValueError, match="side to move"):
        Position.from_text("-" * 64 + " Q")


def test_pass_and_game_over():
    # a1 white, b1 black: black cannot move, white can (c1).
    p = Position.from_text("OX" + "-" * 14 + " X")
    assert p.size == 4
    assert p.legal_moves() == [] and p.must_pass() and not p.is_game_over()
    q = p.play(PASS)
    assert q.turn == 1 and square_name(q.legal_moves()[0], 4) == "c1"
    over = Position.from_text("X" * 16 + " O")
    assert over.is_game_over() and not over.must_pass()
    assert over.winner() == 0 and over.final_score() == -16
    with pytest.raises(IllegalMove, match="game is over"):
        over.play("pass")


def test_final_score_gives_empties_to_winner():
    p = Position.from_text("XX" + "-" * 14 + " X")
    assert p.is_game_over() and p.final_score() == 16
    draw = Position.from_text("XXOO" + "-" * 12 + " O")
    assert draw.is_game_over() and draw.final_score() == 0 and draw.winner() is None


def test_all_sizes_start_and_render():
    for n in range(4, 27, 2):
        p = Position.start(n)
        assert p.discs() == (2, 2) and len(p.legal_moves()) == 4
        text = p.render()
        assert text.splitlines()[0].split()[-1] == chr(ord("a") + n - 1)
        assert f"{n:>3} " in text
    for bad in (3, 5, 2, 28):
        with pytest.raises(ValueError):
            Position.start(bad)


def test_notation():
    assert parse_square("a1") == 0 and parse_square("H8") == 63
    assert parse_square("z26", 26) == 26 * 26 - 1
    assert square_name(37) == "f5" and square_name(PASS) == "pass"
    assert parse_square("PASS") == PASS and parse_square("--") == PASS
    for bad in ("", "a0", "a9", "i1", "1a", "aa1"):
        with pytest.raises(ValueError):
            parse_square(bad)
    assert notation.split_transcript("F5 d6,C3 pass") == ["f5", "d6", "c3", "pass"]
    with pytest.raises(ValueError):
        notation.split_transcript("f5xx")


def test_game_undo_and_transcript_with_implicit_passes():
    rng = random.Random(3)
    found_pass = False
    for _ in range(200):
        g = Game(6)
        while not g.position.is_game_over():
            m = g.position.legal_moves()
            g.play(rng.choice(m) if m else PASS)
        if PASS in g.moves:
            found_pass = True
            replay = Game.from_transcript(g.transcript(), size=6)
            assert replay.position == g.position
            assert Game.from_transcript(g.transcript(passes=True), size=6).position == g.position
        while g.moves:
            g.undo()
        assert g.position == Position.start(6)
    assert found_pass
    with pytest.raises(IndexError):
        Game().undo()


def test_game_refuses_illegal_transcripts_without_changing():
    with pytest.raises(IllegalMove, match="move 2"):
        Game.from_transcript("f5f5")
    g = Game()
    g.play("f5")
    with pytest.raises(IllegalMove):
        g.play("a1")
    assert g.transcript() == "f5"


def test_ffo_positions_parse():
    from pathlib import Path
    lines = (Path(__file__).parent / "data" / "fforum-1-19.obf").read_text().splitlines()
    for line in lines:
        board, rest = line.split(";", 1)[0], line
        p = Position.from_text(board)
        assert p.size == 8 and p.empties() > 0
