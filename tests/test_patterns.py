"""The trained pattern evaluation: compiled == reference, the weights file, and the training script."""
import gzip
import os
import random
import struct

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
    assert len(instances) == 62 and len(offsets) == 62      # 15 patterns: 13 in 4 placements, 1 in 8, 1 in 2
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
    assert patterns.stages(w) == 30           # the fitted 12 stages, smoothed (engine.fit.weights smooth)
    assert len(w) == 30 * patterns.layout()[3]
    assert any(w)


def test_a_prior_of_the_layout_before_the_last_pattern_was_added_grows_into_this_one(tmp_path):
    """``fit --prior`` takes the weights of an earlier layout (BASE without its last patterns):
    their tables keep their places, the added pattern's table starts at zero, the mobility moves."""
    from engine.fit import weights as fitting
    _, _, mob, size = patterns.layout()
    last = 3 ** len(list(patterns.BASE.values())[-1])
    old_size = size - last
    rng = random.Random(5)
    old = [rng.randrange(-900, 900) for _ in range(2 * old_size)]   # two stages
    f = tmp_path / "old.bin.gz"
    with gzip.open(f, "wb") as out:
        out.write(patterns.MAGIC + struct.pack("<II", 2, old_size) + struct.pack(f"<{len(old)}h", *old))
    with pytest.raises(ValueError, match="another pattern layout"):
        patterns.load(f)                                            # what plays takes this layout only
    grown = fitting.grown(f).reshape(2, size)
    for st in range(2):
        stage = old[st * old_size:(st + 1) * old_size]
        assert list(grown[st, :mob - last]) == stage[:mob - last]
        assert not grown[st, mob - last:mob].any()
        assert list(grown[st, mob:]) == stage[mob - last:]
    assert (fitting.grown(patterns.WEIGHTS) == patterns.load()).all()
    with gzip.open(f, "wb") as out:                                 # a size of no earlier layout
        out.write(patterns.MAGIC + struct.pack("<II", 1, old_size - 1) + b"\0\0" * (old_size - 1))
    with pytest.raises(ValueError, match="another pattern layout"):
        fitting.grown(f)


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


def test_a_file_says_its_number_of_stages(tmp_path):
    size = patterns.layout()[3]
    for stages in (1, 30, patterns.MAX_STAGES):
        out = tmp_path / f"w{stages}.bin.gz"
        patterns.save([s % 7 for s in range(stages * size)], out)
        w = patterns.load(out)
        assert patterns.stages(w) == stages and len(w) == stages * size
    assert [patterns.stage_of(e, 30) for e in (0, 1, 2, 3, 59, 60)] == [0, 0, 0, 1, 29, 29]
    assert {patterns.stage_of(e, 60) for e in range(1, 61)} == set(range(60))
    for bad in (0, patterns.MAX_STAGES + 1):
        with pytest.raises(ValueError):
            patterns.save([0] * (bad * size), tmp_path / "bad.bin.gz")
    with pytest.raises(ValueError):
        patterns.save([0] * (size + 1), tmp_path / "bad.bin.gz")
    head = patterns.MAGIC + (61).to_bytes(4, "little") + size.to_bytes(4, "little")
    with gzip.open(tmp_path / "bad.bin.gz", "wb") as f:
        f.write(head + b"\0" * (2 * size))
    with pytest.raises(ValueError, match="61 stages [(]1 to 60 are possible[)]"):
        patterns.load(tmp_path / "bad.bin.gz")
    head = patterns.MAGIC + (2).to_bytes(4, "little") + size.to_bytes(4, "little")
    with gzip.open(tmp_path / "bad.bin.gz", "wb") as f:
        f.write(head + b"\0" * (2 * size + 2))
    with pytest.raises(ValueError, match="truncated or too long"):
        patterns.load(tmp_path / "bad.bin.gz")
    with gzip.open(tmp_path / "bad.bin.gz", "wb") as f:
        f.write(head[:len(patterns.MAGIC) + 3])
    with pytest.raises(ValueError, match="not a pattern-weights file"):
        patterns.load(tmp_path / "bad.bin.gz")


@needs_core
def test_weights_of_another_stage_count_evaluate_alike_compiled_and_reference(tmp_path):
    """Weights resampled to 60 stages (one a ply) give the very evaluation of the shipped ones,
    compiled and reference alike."""
    pytest.importorskip("numpy")
    from engine.fit import weights as train
    shipped = patterns.load()
    out = tmp_path / "w60.bin.gz"
    patterns.save(train.to_ints(train.resample(shipped, 60)), out)
    w60 = patterns.load(out)
    try:
        assert patterns.install(out)
        for p in random_positions(200, seed=5):
            P, O = p.player, p.opponent
            mp = bin(compiled.moves(8, P, O)).count("1")
            mo = bin(compiled.moves(8, O, P)).count("1")
            ref = patterns.evaluate(P, O, shipped, mp, mo)
            assert compiled.evaluate(P, O, "patterns") == patterns.evaluate(P, O, w60, mp, mo) == ref, p.text()
    finally:
        assert patterns.install()


@needs_core
def test_fit_with_a_prior_and_the_check_step(tmp_path, capsys):
    np = pytest.importorskip("numpy")
    from engine.fit import weights as train
    data = train.generate(20, seed=6, depth=2, exact=10, workers=1)
    prior = train.resample(patterns.load(), 30)
    held = train.fit(data, iterations=5, stages=30, prior=prior, ridge=1e9)
    assert np.abs(held - prior).max() < 0.01          # an enormous ridge keeps the prior
    free = train.fit(data, iterations=20, stages=30, prior=prior, ridge=0.5)
    assert np.abs(free - prior).max() > 0.1
    with pytest.raises(ValueError):
        train.fit(data, iterations=1, stages=12, prior=prior)
    npz = tmp_path / "d.npz"
    np.savez(npz, **data)
    out = tmp_path / "w.bin.gz"
    assert train.main(["fit", "--data", str(npz), "--stages", "30", "--prior", str(patterns.WEIGHTS),
                       "--iterations", "3", "--out", str(out)]) == 0
    assert patterns.stages(patterns.load(out)) == 30
    capsys.readouterr()
    assert train.main(["check", "--data", str(npz), "--weights", str(patterns.WEIGHTS), "--weights", str(out),
                       "--solve", "3"]) == 0
    text = capsys.readouterr().out
    assert text.count("1-60") == 2 and text.count("solved") == 2 and str(out) in text
    exact = train.solved(data, 3)
    assert 1 <= len(exact["label"]) <= 3
    for P, O, label in zip(exact["P"], exact["O"], exact["label"]):
        assert 16 <= 64 - bin(int(P) | int(O)).count("1") <= 20 and label == compiled.solve(8, int(P), int(O))[0]
    rows = train.errors(patterns.load(out), data)
    assert rows[-1][0] == "1-60" and rows[-1][1] == int(train.held_out(data).sum()) and rows[-1][2] <= rows[-1][3]
    assert train.main(["check", "--data", str(npz), "--weights", str(tmp_path / "missing.bin.gz")]) == 2
    assert "error:" in capsys.readouterr().err


def test_smoothing_makes_the_evaluation_symmetric_and_blends_the_stages(tmp_path, capsys):
    np = pytest.importorskip("numpy")
    from engine.fit import weights as train
    size = patterns.layout()[3]
    fitted = tmp_path / "fitted.bin.gz"          # like a fit: 12 stages, no symmetry
    patterns.save(np.random.default_rng(3).integers(-300, 300, 12 * size).tolist(), fitted)
    out = tmp_path / "smooth.bin.gz"
    assert train.main(["smooth", "--weights", str(fitted), "--out", str(out)]) == 0
    assert "30 blended stages" in capsys.readouterr().out
    smooth, shipped = patterns.load(out), patterns.load(fitted)
    assert patterns.stages(smooth) == train.SMOOTH_STAGES == 30
    images = [lambda x, y: (7 - x, y), lambda x, y: (y, x), lambda x, y: (7 - y, 7 - x)]
    lopsided = 0
    for p in random_positions(60, seed=9):
        P, O = p.player, p.opponent
        mp, mo = bin(p.legal_moves_mask()).count("1"), bin(Position(8, O, P, 0).legal_moves_mask()).count("1")
        value = patterns.evaluate(P, O, smooth, mp, mo)
        for f in images:
            move = [0] * 64
            for sq in range(64):
                x, y = f(sq % 8, sq // 8)
                move[sq] = y * 8 + x
            P2 = sum(1 << move[sq] for sq in range(64) if P >> sq & 1)
            O2 = sum(1 << move[sq] for sq in range(64) if O >> sq & 1)
            assert patterns.evaluate(P2, O2, smooth, mp, mo) == value, p.text()
            lopsided += patterns.evaluate(P2, O2, shipped, mp, mo) != patterns.evaluate(P, O, shipped, mp, mo)
    assert lopsided > 0          # weights as fitted are not symmetric: the test can fail
    ramp = np.repeat(np.arange(12, dtype=np.float64), size)
    blended = train.interpolated(ramp, 30).reshape(30, size)
    for j in range(30):
        assert np.allclose(blended[j], min(11.0, max(0.0, (2 * j + 1.5 - 3) / 5))), j
    assert np.array_equal(train.interpolated(ramp, 12), ramp)
    with pytest.raises(SystemExit):
        train.main(["smooth", "--out", str(out)])


def test_a_failed_save_leaves_the_old_file_and_a_pipe_is_not_read(tmp_path, monkeypatch):
    size = patterns.layout()[3]
    out = tmp_path / "w.bin.gz"
    patterns.save([1] * size, out)
    before = out.read_bytes()

    def full_disk(fd):
        raise OSError(28, "No space left on device")
    with monkeypatch.context() as m:
        m.setattr(os, "fsync", full_disk)
        with pytest.raises(OSError):
            patterns.save([2] * size, out)
    assert out.read_bytes() == before and list(tmp_path.iterdir()) == [out]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe")          # opening it to read would wait for a writer forever
        with pytest.raises(ValueError, match="not a regular file"):
            patterns.load(tmp_path / "pipe")


@needs_core
def test_a_damaged_weights_file_is_refused_with_the_reason_and_no_weights_stay_in_use(tmp_path, caplog):
    damaged = tmp_path / "w.bin.gz"
    damaged.write_bytes(patterns.WEIGHTS.read_bytes()[:5000])
    try:
        assert patterns.install()
        with caplog.at_level("WARNING", logger="engine.patterns"):
            assert not patterns.install(damaged)
        assert "truncated" in patterns.install_error()
        assert "truncated" in caplog.text and "hand-written evaluation plays instead" in caplog.text
        with pytest.raises(RuntimeError, match="no pattern weights installed"):
            compiled.evaluate(Position.start().player, Position.start().opponent, "patterns")
        assert not patterns.install(tmp_path / "missing.bin.gz") and "missing.bin.gz" in patterns.install_error()
    finally:
        assert patterns.install() and patterns.install_error() is None


@needs_core
def test_an_empty_weights_file_or_a_link_to_nothing_is_warned_of(tmp_path, caplog):
    empty, link = tmp_path / "empty.bin.gz", tmp_path / "link.bin.gz"
    empty.write_bytes(b"")
    try:
        link.symlink_to(tmp_path / "nothing")
    except (OSError, NotImplementedError):      # (Windows without the right to make links)
        link = None
    try:
        with caplog.at_level("WARNING", logger="engine.patterns"):
            assert not patterns.install(empty)
            assert "empty" in patterns.install_error()
            if link is not None:
                assert not patterns.install(link)
        assert "empty.bin.gz: refused: the file is empty" in caplog.text
        assert link is None or "link.bin.gz" in caplog.text
    finally:
        assert patterns.install()


def test_engine_info_names_the_weights_or_why_they_are_not_used(tmp_path):
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-m", "engine", "info"], cwd=root, capture_output=True, text=True)
    assert r.returncode == 0 and f"stages of patterns ({patterns.WEIGHTS.name})" in r.stdout, r.stdout
    in_use = "the evaluation of best" in r.stdout
    assert in_use == (compiled is not None and os.environ.get("OTHELLO_ENGINE") != "pure"), r.stdout
    r = subprocess.run([sys.executable, "-m", "engine", "info"], cwd=root, capture_output=True, text=True,
                       env=dict(os.environ, OTHELLO_ENGINE="pure"))
    assert "not used by best without the compiled core" in r.stdout, r.stdout
    copy = tmp_path / "engine"
    shutil.copytree(root / "engine", copy, ignore=shutil.ignore_patterns("fit", "__pycache__", "*.c", "*.pyx", "*.pxi"))
    (copy / "weights.bin.gz").write_bytes(b"not a weights file")
    r = subprocess.run([sys.executable, "-m", "engine", "info"], cwd=tmp_path, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert r.returncode == 0 and "weights    : not in use" in r.stdout and "hand-written evaluation" in r.stdout, r


@needs_core
def test_the_unpacked_weights_are_kept_and_then_read_in_place(tmp_path, monkeypatch):
    """A one-shot move's start-up: the shipped weights are inflated once and kept unpacked in the
    user's cache; the next process reads them in place (nothing inflated) and evaluates exactly as
    the reference does with the shipped file.  A kept file that is damaged, or that others may
    write, is not used."""
    from engine import gzipped
    cache = tmp_path / "cache"
    monkeypatch.setenv(patterns.CACHE_ENV, str(cache))
    shipped = patterns.load()
    inflate = gzipped.decompress
    try:
        patterns.uninstall()
        assert patterns.install()
        (kept,) = cache.iterdir()
        assert kept.stat().st_mode & 0o077 == 0 and cache.stat().st_mode & 0o077 == 0

        def inflated(*args):
            raise AssertionError("the weights were inflated again")
        monkeypatch.setattr(gzipped, "decompress", inflated)
        patterns.uninstall()
        assert patterns.install()
        for p in random_positions(150, seed=9):
            P, O = p.player, p.opponent
            mp = bin(compiled.moves(8, P, O)).count("1")
            mo = bin(compiled.moves(8, O, P)).count("1")
            assert compiled.evaluate(P, O, "patterns") == patterns.evaluate(P, O, shipped, mp, mo), p.text()
        monkeypatch.setattr(gzipped, "decompress", inflate)
        whole = kept.read_bytes()
        damages = [lambda: kept.write_bytes(whole[:1000])]
        if os.name != "nt":
            damages.append(lambda: kept.chmod(0o666))       # (writable by others)
        for damage in damages:
            damage()
            patterns.uninstall()
            assert patterns.install()
            assert kept.read_bytes() == whole and kept.stat().st_mode & 0o077 == 0     # written again
        monkeypatch.setenv(patterns.CACHE_ENV, "0")          # none kept
        patterns.uninstall()
        assert patterns.install() and patterns.cache_dir() is None
    finally:
        monkeypatch.setattr(gzipped, "decompress", inflate)
        monkeypatch.delenv(patterns.CACHE_ENV)
        patterns.uninstall()
        assert patterns.install()


@needs_core
@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads Linux's list of mapped files")
def test_the_core_reads_the_kept_weights_in_place_and_lets_them_go_when_uninstalled(tmp_path, monkeypatch):
    """Installing copies nothing: the kept file stays mapped while the core evaluates with it, and
    is unmapped once the weights are taken out (or others installed)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv(patterns.CACHE_ENV, str(cache))

    def mapped():
        with open("/proc/self/maps") as f:
            return [line for line in f if str(cache) in line]
    try:
        patterns.uninstall()
        assert patterns.install()       # (inflated and kept)
        patterns.uninstall()
        assert mapped() == []
        assert patterns.install()       # read in place
        assert len(mapped()) == 1
        before = compiled.evaluate(Position.start().player, Position.start().opponent, "patterns")
        patterns.uninstall()
        assert mapped() == []
        assert patterns.install() and len(mapped()) == 1
        assert compiled.evaluate(Position.start().player, Position.start().opponent, "patterns") == before
    finally:
        monkeypatch.delenv(patterns.CACHE_ENV)
        patterns.uninstall()
        assert patterns.install()
