"""The trained pattern evaluation: compiled == reference, the weights file, and the training script."""
import gzip
import random

import pytest

from engine import PASS, Position, patterns, strategies

compiled = strategies.compiled
needs_core = pytest.mark.skipif(compiled is None, reason="the compiled core is not built")


def random_positions(count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        p = Position.start()
        stop = rng.randrange(0, 60)
        while not p.is_game_over() and 60 - p.empties() < stop:
            m = p.legal_moves()
            p = p.play(rng.choice(m) if m else PASS)
        out.append(p)
    return out


def test_layout_covers_the_board_symmetrically():
    instances, offsets, mob, stage_size = patterns.layout()
    assert len(instances) == 46 and len(offsets) == 46
    counts = [0] * 64
    for sqs in instances:
        assert len(set(sqs)) == len(sqs)
        for sq in sqs:
            counts[sq] += 1
    assert min(counts) >= 3  # every square is seen by several patterns
    # a square and its mirror images are seen by equally many instances
    for sq in range(64):
        x, y = sq % 8, sq // 8
        assert counts[sq] == counts[y * 8 + (7 - x)] == counts[x * 8 + y]
    assert stage_size == mob + 2 * patterns.MOBILITY
    assert [patterns.stage_of(e) for e in (0, 1, 5, 6, 60)] == [0, 0, 0, 1, patterns.STAGES - 1]


def test_shipped_weights_load():
    w = patterns.load()
    assert len(w) == patterns.STAGES * patterns.layout()[3]
    assert any(w)


def test_foreign_or_damaged_weights_are_refused(tmp_path):
    bad = tmp_path / "w.bin.gz"
    bad.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="does not decompress"):
        patterns.load(bad)
    with gzip.open(bad, "wb") as f:
        f.write(b"something else entirely")
    with pytest.raises(ValueError, match="not a pattern-weights file"):
        patterns.load(bad)
    with gzip.open(bad, "wb") as f:
        f.write(patterns.MAGIC + b"\x0c\x00\x00\x00\x05\x00\x00\x00" + b"\x00" * 10)
    with pytest.raises(ValueError, match="another pattern layout"):
        patterns.load(bad)
    with pytest.raises(ValueError):
        patterns.save([0] * 10, tmp_path / "x.bin.gz")


@needs_core
def test_compiled_evaluation_equals_the_reference():
    assert patterns.install()
    w = patterns.load()
    for p in random_positions(300, seed=3):
        P, O = p.player, p.opponent
        mp = bin(compiled.moves(8, P, O)).count("1")
        mo = bin(compiled.moves(8, O, P)).count("1")
        assert compiled.evaluate(P, O, "patterns") == patterns.evaluate(P, O, w, mp, mo), p.text()


@needs_core
def test_evaluation_predicts_endgame_results():
    """On positions with a clear exact result (12-16 empties, random play), the trained
    evaluation names the winner at least as often as the hand-written one, and mostly."""
    assert patterns.install()
    rng = random.Random(11)
    right = right_full = n = 0
    while n < 150:
        p = Position.start()
        stop = rng.choice([12, 14, 16])
        while p.empties() > stop and not p.is_game_over():
            m = p.legal_moves()
            p = p.play(rng.choice(m) if m else PASS)
        if p.is_game_over() or p.must_pass():
            continue
        exact = compiled.solve(8, p.player, p.opponent)[0]
        if abs(exact) < 4:
            continue
        n += 1
        right += (compiled.evaluate(p.player, p.opponent, "patterns") > 0) == (exact > 0)
        right_full += (compiled.evaluate(p.player, p.opponent, "full") > 0) == (exact > 0)
    assert right >= 0.8 * n
    assert right >= right_full - 0.02 * n


@needs_core
def test_search_with_patterns_plays_legal_moves():
    assert patterns.install()
    for p in random_positions(20, seed=4):
        if p.is_game_over() or p.must_pass():
            continue
        score, move, nodes, depth = compiled.search(8, p.player, p.opponent, 4, 1.0, "patterns")
        assert p.is_legal(move) and depth >= 1
    with pytest.raises(ValueError):
        compiled.search(8, 0x0000000810000000, 0x0000001008000000, 4, 1.0, "nonsense")


@needs_core
def test_training_script_round_trip(tmp_path):
    np = pytest.importorskip("numpy")
    from engine.fit import weights as train
    games = [train.play_game(seed, depth=2, exact=10) for seed in range(3)]
    for rows in games:
        assert rows
        for P, O, mp, mo, label in rows:
            empties = 64 - bin(P | O).count("1")
            if empties <= 10:  # from here on the label is the exact result
                assert label == compiled.solve(8, P, O)[0]
    data = train.generate(12, seed=5, depth=2, exact=10, workers=1)
    assert len(data["P"]) == len(data["label"]) > 12 * 20
    w = train.fit(data, iterations=5)
    out = tmp_path / "w.bin.gz"
    patterns.save(train.to_ints(w), out)
    assert len(patterns.load(out)) == len(w)
    assert np.abs(w).max() > 0
