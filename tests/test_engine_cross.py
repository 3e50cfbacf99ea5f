"""The compiled core, the pure-Python core and a naive list implementation agree."""
import random

import pytest

from engine import PASS, Position, backend

from naive import flips as naive_flips, from_masks

CORES = [backend.pure] + ([backend.compiled] if backend.compiled else [])


def random_positions(size, games, seed):
    rng = random.Random(seed)
    for _ in range(games):
        p = Position.start(size)
        while not p.is_game_over():
            yield p
            moves = p.legal_moves()
            p = p.play(rng.choice(moves) if moves else PASS)
        yield p


@pytest.mark.parametrize("size,games,every", [(4, 40, 1), (6, 30, 1), (8, 40, 1), (10, 6, 1),
                                              (14, 2, 2), (26, 1, 12)])
def test_moves_and_flips_agree_everywhere(size, games, every):
    for i, p in enumerate(random_positions(size, games, seed=size)):
        if i % every:
            continue
        board = from_masks(size, p.black, p.white)
        me = p.turn
        expect_moves = 0
        expect_flips = {}
        for sq in range(size * size):
            fl = naive_flips(board, size, sq % size, sq // size, me)
            mask = sum(1 << (y * size + x) for x, y in fl)
            expect_flips[sq] = mask
            if mask:
                expect_moves |= 1 << sq
        for core in CORES:
            assert core.moves(size, p.player, p.opponent) == expect_moves, (core.NAME, p.text())
            for sq in range(size * size):
                assert core.flips(size, p.player, p.opponent, sq) == expect_flips[sq], (core.NAME, sq)
        if backend.compiled and size == 8:
            c = backend.compiled
            assert c.moves(8, p.player, p.opponent, mailbox=True) == expect_moves
            assert all(c.flips(8, p.player, p.opponent, sq, mailbox=True) == expect_flips[sq]
                       for sq in range(64))


@pytest.mark.skipif(backend.compiled is None, reason="compiled core not built")
@pytest.mark.parametrize("size", [6, 8, 10])
def test_perft_from_random_positions_agrees(size):
    c, pu = backend.compiled, backend.pure
    for i, p in enumerate(random_positions(size, 3, seed=100 + size)):
        if i % 7:
            continue
        depth = 3 if size < 10 else 2
        a = c.perft(size, p.player, p.opponent, depth)
        assert a == pu.perft(size, p.player, p.opponent, depth)
        assert a == c.perft(size, p.player, p.opponent, depth, bulk=True)
        if size == 8:
            assert a == c.perft(8, p.player, p.opponent, depth, mailbox=True)


needs_both = pytest.mark.skipif(backend.compiled is None, reason="compiled core not built: nothing to compare")


def test_hash_spreads():
    seen = {(p.hash64(), p.text()) for p in random_positions(8, 5, seed=7)}
    hashes = [h for h, _ in seen]
    assert len(set(hashes)) == len(seen)  # no collisions among a few hundred positions


@needs_both
def test_hash_is_equal_on_both_cores():
    seen = set()
    for p in random_positions(8, 5, seed=7):
        hs = {core.hash64(p.size, p.player, p.opponent) for core in CORES}
        assert len(hs) == 1


@needs_both
def test_games_end_the_same_on_both_cores(monkeypatch):
    import engine.position as position
    results = []
    for core in CORES:
        monkeypatch.setattr(position, "core", core)
        rng = random.Random(5)
        finals = []
        for _ in range(20):
            p = Position.start(8)
            while not p.is_game_over():
                m = p.legal_moves()
                p = p.play(rng.choice(m) if m else PASS)
            finals.append((p.discs(), p.winner()))
        results.append(finals)
    assert len(results) == 2 and results[0] == results[1]
