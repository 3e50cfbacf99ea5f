"""The beginner API keeps the tutorial's names and meanings, and is right on every edge."""
import random

import pytest

import othellotool as ot
from engine import PASS, Position

from naive import DIRS, flips as naive_flips


def to_board(p):
    n = p.size
    return [[0 if p.black >> (y * n + x) & 1 else 1 if p.white >> (y * n + x) & 1 else -1
             for x in range(n)] for y in range(n)]


def test_set_board_start():
    b = ot.SetBoard()
    assert b[3][3] == 1 and b[4][4] == 1  # white d4, e5
    assert b[3][4] == 0 and b[4][3] == 0  # black e4, d5
    assert sum(c == -1 for row in b for c in row) == 60
    assert len(ot.SetBoard(6)) == 6


def test_msg_to_pos():
    assert ot.MsgToPos("d3") == (2, 3)
    assert ot.MsgToPos("D3") == (2, 3)
    assert ot.MsgToPos(" h8\n") == (7, 7)
    assert ot.MsgToPos("a1") == (0, 0)
    assert ot.MsgToPos("i3") == (2, -1)
    assert ot.MsgToPos("d9") == (-1, 3)
    assert ot.MsgToPos("d0") == (-1, 3)
    assert ot.MsgToPos("") == (-1, -1)
    assert ot.MsgToPos("??") == (-1, -1)
    assert ot.MsgToPos("j10", 10) == (9, 9)


def test_get_series():
    b = ot.SetBoard()
    assert ot.GetSeries(b, 3, 3, 1, 1, 1) == 2    # d4, e5 white on the diagonal
    assert ot.GetSeries(b, 3, 3, 0, 1, 1) == 1
    assert ot.GetSeries(b, 0, 0, 1, 0, 0) == 0
    assert ot.GetSeries(b, 0, 0, 0, 1, -1) == 8   # the empty first row
    assert ot.GetSeries(b, -1, 0, 1, 0, -1) == 0  # off the board


def test_first_move_tutorial_flow():
    b = ot.SetBoard()
    lp = ot.ListLegalPlaces(0, b)
    assert lp == [[2, 3], [3, 2], [4, 5], [5, 4]]
    y, x = ot.MsgToPos("d3")
    assert ot.IsLegalPlace(lp, y, x) == 0
    assert ot.IsLegalPlace(lp, 0, 0) == -1
    dl = ot.GetDirLength(b, y, x, 0)
    assert dl == [0, 0, 0, 0, 1, 0, 0, 0]  # down: d4
    b2 = ot.RevDirLength(b, y, x, 0, dl)
    assert b2 is b
    b[y][x] = 0
    assert ot.CountingStone(b) == (4, 1)


def test_flips_ending_on_column_a_and_row_1():
    # The original helpers missed flips that end on column a or row 1 going left/up.
    b = [[-1] * 8 for _ in range(8)]
    b[0][0] = 0; b[0][1] = 1; b[0][2] = 1          # a1 black, b1 c1 white: d1 flips left
    b[4][0] = 0; b[4][1] = 1                       # a5 black, b5 white: c5 flips left
    b[0][5] = 0; b[1][5] = 1                       # f1 black, f2 white: f3 flips up
    b[0][7] = 0; b[1][6] = 1                       # h1 black, g2 white: f3 flips up-right
    b[0][3] = -1
    assert ot.GetDirLength(b, 0, 3, 0)[6] == 2     # left from d1
    assert ot.GetDirLength(b, 4, 2, 0)[6] == 1     # left from c5
    dl = ot.GetDirLength(b, 2, 5, 0)               # f3
    assert dl[0] == 1 and dl[1] == 1
    assert [2, 5] in ot.ListLegalPlaces(0, b) and [0, 3] in ot.ListLegalPlaces(0, b)
    b2 = [row[:] for row in b]
    ot.RevDirLength(b2, 0, 3, 0, ot.GetDirLength(b2, 0, 3, 0))
    assert b2[0][1] == 0 and b2[0][2] == 0
    b3 = [[-1] * 8 for _ in range(8)]              # up-left into a1
    b3[0][0] = 0; b3[1][1] = 1
    assert ot.GetDirLength(b3, 2, 2, 0)[7] == 1


@pytest.mark.parametrize("size", [4, 6, 8, 10, 12])
def test_against_naive_rules_on_random_games(size):
    rng = random.Random(size)
    for _ in range(8 if size <= 8 else 2):
        p = Position.start(size)
        while not p.is_game_over():
            b = to_board(p)
            me = p.turn
            legal = ot.ListLegalPlaces(me, b)
            expect = [[y, x] for y in range(size) for x in range(size)
                      if naive_flips([[None if c == -1 else c for c in r] for r in b], size, x, y, me)]
            assert legal == expect
            for y, x in legal:
                dl = ot.GetDirLength(b, y, x, me)
                for (dx, dy), k in zip(DIRS, dl):
                    if k:
                        assert ot.GetSeries(b, y + dy, x + dx, dy, dx, 1 - me) >= k
                        assert b[y + dy * (k + 1)][x + dx * (k + 1)] == me
            moves = p.legal_moves()
            if moves:
                sq = rng.choice(moves)
                y, x = divmod(sq, size)
                b2 = ot.RevDirLength([r[:] for r in b], y, x, me, ot.GetDirLength(b, y, x, me))
                b2[y][x] = me
                p = p.play(sq)
                assert b2 == to_board(p)
            else:
                p = p.play(PASS)
        assert ot.CountingStone(to_board(p)) == p.discs()


def test_display(capsys):
    b = ot.SetBoard()
    ot.BoardDisplay(b, ot.ListLegalPlaces(0, b))
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == list("abcdefgh")
    assert out[3].split() == ["3", ".", ".", ".", "*", ".", ".", ".", "."]
    assert out[4].split() == ["4", ".", ".", "*", "O", "X", ".", ".", "."]


def test_bad_boards_are_refused_clearly():
    with pytest.raises(ValueError, match="even number of rows"):
        ot.ListLegalPlaces(0, [[-1] * 7] * 7)
    b = ot.SetBoard()
    b[2][2] = 5
    with pytest.raises(ValueError, match=r"board\[2\]\[2\]"):
        ot.CountingStone(b)
    with pytest.raises(ValueError, match="colour"):
        ot.ListLegalPlaces(2, ot.SetBoard())


def test_move_for_board_plays_a_legal_square_or_passes():
    b = ot.SetBoard()
    y, x = ot.move_for_board("greedy", b, 0, 0.05)
    assert ot.IsLegalPlace(ot.ListLegalPlaces(0, b), y, x) >= 0
    y, x = ot.move_for_board("table", b, 1, 0.05)   # white to move on the same board
    assert ot.IsLegalPlace(ot.ListLegalPlaces(1, b), y, x) >= 0
    assert ot.move_for_board("best", [[1, 0, -1, -1]] + [[-1] * 4] * 3, 0, 0.05) is None


def test_move_for_board_refuses_a_bad_board_or_colour():
    with pytest.raises(ValueError, match="colour"):
        ot.move_for_board("greedy", ot.SetBoard(), 2)
    with pytest.raises(ValueError, match="rows"):
        ot.move_for_board("greedy", [[-1] * 7] * 7, 0)


# -- variant boards: holes are 2 -------------------------------------------------------------

def test_set_board_of_a_shape_and_its_holes():
    from engine import Shape
    heart = Shape.named("Heart")
    b = ot.SetBoard(shape="HEART")
    assert [[(y * 8 + x) for x in range(8) if b[y][x] == ot.HOLE] for y in range(8)] == \
        [[(y * 8 + x) for x in range(8) if heart.holes >> (y * 8 + x) & 1] for y in range(8)]
    assert ot.CountingStone(b) == (2, 2)
    assert ot.SetBoard(8, shape=heart) == b == ot.SetBoard(shape="heart")
    with pytest.raises(ValueError, match="size 6 and the shape Heart"):
        ot.SetBoard(6, shape="heart")
    with pytest.raises(ValueError, match="no shape is named"):
        ot.SetBoard(shape="hearts")
    with pytest.raises(ValueError, match="not int 8"):         # a size given as the shape
        ot.SetBoard(shape=8)
    with pytest.raises(ValueError, match="not '8'"):           # a size read from input() and not converted
        ot.SetBoard("8")
    own = ot.SetBoard(shape=Shape.parse("######/#....#/#.OX.#/#.XO.#/#....#/######"))
    assert len(own) == 6 and own[0] == [ot.HOLE] * 6 and own[2][2] == ot.WHITE


def test_holes_are_never_legal_and_stop_flips(capsys):
    # b1 black; c1 a hole; d1 white, e1 empty: white's run d1 would flip across c1 on a plain board
    from engine import Shape
    b = ot.SetBoard(shape=Shape.parse(".X#O..../......../......../...OX.../...XO.../......../......../........"))
    assert ot.GetDirLength(b, 0, 4, 0) == [0] * 8         # e1 for black: the line to b1 is cut by the hole
    assert [0, 2] not in ot.ListLegalPlaces(0, b) and [0, 2] not in ot.ListLegalPlaces(1, b)
    assert ot.GetSeries(b, 0, 2, 0, 1, 0) == 0
    ot.BoardDisplay(b, ot.ListLegalPlaces(0, b))
    assert capsys.readouterr().out.splitlines()[1] == "  1 . X # O . . . ."


def test_a_whole_game_on_a_shape_through_the_beginner_api():
    """The tutorial's loop, played on the Cross by random players: no disc ever lands on a hole."""
    board, turn, passes = ot.SetBoard(shape="cross"), ot.BLACK, 0
    holes = [(y, x) for y in range(8) for x in range(8) if board[y][x] == ot.HOLE]
    while passes < 2:
        mv = ot.move_for_board("random", board, turn, 0.01)
        if mv is None:
            passes += 1
        else:
            passes = 0
            y, x = mv
            assert ot.IsLegalPlace(ot.ListLegalPlaces(turn, board), y, x) >= 0
            board = ot.RevDirLength(board, y, x, turn, ot.GetDirLength(board, y, x, turn))
            board[y][x] = turn
        turn = 1 - turn
    assert all(board[y][x] == ot.HOLE for y, x in holes)
    b, w = ot.CountingStone(board)
    assert b + w + len(holes) <= 64
