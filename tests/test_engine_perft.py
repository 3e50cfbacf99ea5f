import pytest

from engine import Position, backend, perft
from engine import __main__ as engine_cli
from engine.__main__ import main
from naive import flips, from_masks

# Leaf counts from the standard start position, passes counted as moves, as published
# (Aart Bik's and others' Othello perft tables); kept here, not taken from the code under test.
PUBLISHED = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800]

pure = backend.pure
compiled = backend.compiled
needs_compiled = pytest.mark.skipif(compiled is None, reason="compiled core not built")


@needs_compiled
@pytest.mark.parametrize("bulk", [False, True])
def test_compiled_matches_published_counts(bulk):
    p = Position.start()
    for depth in range(0, 10):
        assert compiled.perft(8, p.player, p.opponent, depth, bulk) == PUBLISHED[depth]


@pytest.mark.parametrize("bulk", [False, True])
def test_pure_matches_published_counts(bulk):
    p = Position.start()
    for depth in range(0, 7):
        assert pure.perft(8, p.player, p.opponent, depth, bulk) == PUBLISHED[depth]


@needs_compiled
def test_compiled_mailbox_matches_published_counts_on_8x8():
    p = Position.start()
    for depth in range(0, 8):
        assert compiled.perft(8, p.player, p.opponent, depth, mailbox=True) == PUBLISHED[depth]


@needs_compiled
@pytest.mark.parametrize("size,depth", [(4, 14), (6, 7), (10, 5), (12, 4), (16, 3), (26, 3)])
def test_other_sizes_compiled_equals_pure(size, depth):
    p = Position.start(size)
    for d in range(depth + 1):
        a = compiled.perft(size, p.player, p.opponent, d)
        b = pure.perft(size, p.player, p.opponent, d)
        assert a == b, (size, d)
        assert compiled.perft(size, p.player, p.opponent, d, bulk=True) == a


def test_4x4_tree_ends_and_counts_stay_constant():
    # Every 4x4 game ends within 12 moves (+ passes): past that, finished games
    # are one leaf at every deeper depth, so the count stops changing.
    p = Position.start(4)
    deep = [pure.perft(4, p.player, p.opponent, d) for d in (20, 21, 30)]
    assert deep[0] == deep[1] == deep[2] == _naive_games(from_masks(4, p.player, p.opponent), 0)


def _naive_games(board, me):
    """How many complete games follow (a pass is a ply; the game ends when neither side can move),
    by the plain list implementation."""
    n = len(board)
    total, moved = 0, False
    for y in range(n):
        for x in range(n):
            fl = flips(board, n, x, y, me)
            if fl:
                moved = True
                nxt = [row[:] for row in board]
                for cx, cy in fl + [(x, y)]:
                    nxt[cy][cx] = me
                total += _naive_games(nxt, 1 - me)
    if moved:
        return total
    if any(flips(board, n, x, y, 1 - me) for y in range(n) for x in range(n)):
        return _naive_games(board, 1 - me)
    return 1


def test_perft_helper_uses_position():
    assert perft(Position.start(), 4) == 244
    assert perft(Position.start(), 4, bulk=True) == 244


def test_the_cli_table_agrees_with_the_published_counts():
    assert engine_cli.PUBLISHED[:len(PUBLISHED)] == PUBLISHED


def test_perft_cli_checks_published(capsys):
    assert main(["perft", "5", "--all"]) == 0
    out = capsys.readouterr().out
    assert out.count(" ok") == 5 and "1,396" in out
    assert main(["perft", "4", "--pure", "--bulk"]) == 0


def test_perft_cli_refuses_bad_size(capsys):
    with pytest.raises(SystemExit):
        main(["perft", "3", "--size", "7"])
    assert "even" in capsys.readouterr().err
