"""The learned opening book: symmetries, building, the file format and its checks, `best` playing from it."""
import gzip
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from engine import Game, Position, book, patterns, procgroup, strategies
from engine.__main__ import main
from engine.book import BookError, LearnedBook, canonical, canonical_form, transform
from engine.notation import square_name
from peertools import default_sigint

needs_search = pytest.mark.skipif(strategies.compiled is None or not patterns.install(),
                                  reason="building a book needs the compiled search and the pattern weights")
TINY = dict(plies=4, depth=2, width=1.0, seed=3)


def random_positions(count, seed, plies=(0, 40)):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        p = Position.start()
        for _ in range(rng.randrange(*plies)):
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(rng.choice(moves))
        if p.legal_moves():
            out.append(p)
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny book built in a temporary folder: (path, LearnedBook)."""
    if strategies.compiled is None or not patterns.install():
        pytest.skip("building a book needs the compiled search and the pattern weights")
    from engine.fit import book as bookbuild
    path = tmp_path_factory.mktemp("book") / "tiny.bin.gz"
    b = bookbuild.build(path, log=lambda line: None, **TINY)
    return path, b


def square_map(i):
    return book.SQUARE_MAPS[i]


# -- symmetries -----------------------------------------------------------------------------

def test_the_8_symmetries_move_each_disc_by_its_square_map():
    rng = random.Random(1)
    maps = {book.SQUARE_MAPS[i] for i in range(8)}
    assert len(maps) == 8 and book.SQUARE_MAPS[0] == tuple(range(64))
    for i in range(8):
        assert all(book.SQUARE_MAPS[book.INVERSE[i]][book.SQUARE_MAPS[i][sq]] == sq for sq in range(64))
        for _ in range(20):
            mask = rng.getrandbits(64)
            moved = sum(1 << square_map(i)[sq] for sq in range(64) if mask >> sq & 1)
            assert transform(mask, 0, i) == (moved, 0)
    # the 4 that keep the start position are among them
    assert set(book.symmetries(8)) <= maps


def test_all_8_images_share_one_key_and_moves_map_back():
    for p in random_positions(25, seed=2):
        key = canonical(p.player, p.opponent)
        for i in range(8):
            P, O = transform(p.player, p.opponent, i)
            image = Position(8, P, O, p.turn)
            # the rules do not see the symmetry
            assert sorted(square_map(i)[m] for m in p.legal_moves()) == image.legal_moves()
            assert canonical(P, O) == key
            cP, cO, j = canonical_form(P, O)
            assert transform(P, O, j) == key
        # a book entry for the key (value = the canonical square) maps back to each image's squares
        cp = Position(8, *key)
        entry = {sq: 4 * sq for sq in cp.legal_moves()}
        lb = LearnedBook({key: entry})
        for i in range(8):
            image = Position(8, *transform(p.player, p.opponent, i), p.turn)
            moves = lb.moves(image)
            assert sorted(moves) == image.legal_moves()
            for m, v in moves.items():
                after_image, after_canon = image.play(m), cp.play(int(v))
                assert canonical(after_image.player, after_image.opponent) == \
                    canonical(after_canon.player, after_canon.opponent)


# -- building and checking ------------------------------------------------------------------

@needs_search
@pytest.mark.parametrize("where", [["--workers", "2"], ["--cluster", "local:2"]])
def test_a_build_spread_over_processes_or_a_cluster_is_the_same_book(tiny, tmp_path, where, capsys):
    if where[0] == "--cluster":
        pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    path, _ = tiny
    spread = tmp_path / "spread.bin.gz"
    assert main(["book", "build", "--out", str(spread), "--plies", "4", "--depth", "2", "--width", "1",
                 "--seed", "3", *where]) == 0
    assert spread.read_bytes() == path.read_bytes()
    # a --positions bound stops at the same book position as on one process
    one, two = tmp_path / "one.bin.gz", tmp_path / "two.bin.gz"
    for out, extra in ((one, []), (two, where)):
        assert main(["book", "build", "--out", str(out), "--plies", "6", "--depth", "2", "--width", "1",
                     "--seed", "3", "--positions", "9", *extra]) == 0
    assert one.read_bytes() == two.read_bytes() and len(book.load(one)) == 9


@needs_search
def test_a_build_stopped_anywhere_and_resumed_is_the_same_book_as_one_run(tmp_path):
    """Stopped by --positions, by --minutes, by Ctrl-C or the minute's save, a build is saved as it
    stands; --resume must go on exactly as the build that was not stopped."""
    from engine.fit import book as bookbuild
    options = dict(plies=8, depth=2, width=4.0, seed=5)
    whole = tmp_path / "whole.bin.gz"
    bookbuild.build(whole, log=lambda line: None, positions=40, **options)
    assert len(book.load(whole)) == 40
    for stop in (7, 13, 22, 31):
        part = tmp_path / f"part{stop}.bin.gz"
        bookbuild.build(part, log=lambda line: None, positions=stop, **options)
        bookbuild.build(part, log=lambda line: None, positions=40, resume=True, **options)
        assert part.read_bytes() == whole.read_bytes(), f"stopped at {stop} positions"


@needs_search
def test_a_build_never_replaces_a_book_and_resumes_only_what_it_would_have_built(tiny, tmp_path, capsys):
    """Without --resume an existing file is refused (a forgotten --resume, or the default --out, the
    shipped book, used to be overwritten); --resume refuses a file that `book check` refuses, and
    options that did not build the file (its header would then describe another build)."""
    path, b = tiny
    mine = tmp_path / "mine.bin.gz"
    mine.write_bytes(path.read_bytes())
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    base = ["book", "build", "--plies", "4", "--depth", "2", "--width", "1", "--seed", "3"]
    for out in (mine, notes):
        before = out.read_bytes()
        assert main(base + ["--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "exists: --resume continues it" in err and "Traceback" not in err
        assert out.read_bytes() == before
    for change, why in ((["--depth", "3"], "--depth 2"), (["--width", "2"], "--width 1;"),
                        (["--seed", "4"], "--seed 3"), (["--plies", "3"], "--plies 4; resume with that many")):
        argv = base + ["--out", str(mine), "--resume"]
        for option in change[::2]:
            k = argv.index(option)
            argv[k + 1:k + 2] = change[1:2]
        assert main(argv) == 2, change
        assert why in capsys.readouterr().err
        assert mine.read_bytes() == path.read_bytes()
    # a book that `book check` refuses is not built on (a move that is not legal)
    key = next(iter(sorted(b.entries)))
    taken = next(sq for sq in range(64) if (key[0] | key[1]) >> sq & 1)
    bad = _rewrite(path, tmp_path / "illegal.bin.gz", lambda entries: entries[key].__setitem__(taken, 0))
    before = bad.read_bytes()
    assert main(base[:2] + ["--out", str(bad), "--resume"] + base[2:]) == 2
    assert "is not legal" in capsys.readouterr().err and bad.read_bytes() == before
    # a width the book cannot hold (its unit is a quarter disc) is refused, not rounded
    assert main(base[:6] + ["--width", "0.1", "--out", str(tmp_path / "w.bin.gz")]) == 2
    assert "multiple of 0.25" in capsys.readouterr().err and not (tmp_path / "w.bin.gz").exists()


@needs_search
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process is POSIX")
def test_two_quick_ctrl_cs_on_two_workers_save_the_book_and_end_cleanly(tmp_path):
    """The second Ctrl+C used to cut the workers' end short: a traceback at exit, or a worker left
    waiting on its pipe and the program waiting for it."""
    for k, gap in enumerate((0.005, 0.03, 0.1)):
        out = tmp_path / f"b{k}.bin.gz"
        proc = subprocess.Popen([sys.executable, "-m", "engine", "book", "build", "--out", str(out), "--depth", "8",
                                 "--plies", "20", "--width", "8", "--positions", "0", "--workers", "2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **procgroup.NEW_GROUP,
                                preexec_fn=default_sigint)
        try:
            first = proc.stdout.readline()    # "building ...": then the workers start and search
            time.sleep(1.5)
            for _ in range(2):
                os.killpg(proc.pid, signal.SIGINT)    # as a terminal does: the whole group
                time.sleep(gap)
            stdout, stderr = proc.communicate(timeout=60)
            stdout = first + stdout
            ended = time.monotonic() + 10     # (the workers end as the program does, not before)
            while procgroup.group_left(proc) and time.monotonic() < ended:
                time.sleep(0.05)
            assert not procgroup.group_left(proc), "a worker was left running"
        finally:
            procgroup.kill_group(proc)
        assert proc.returncode == 130, (gap, stdout, stderr)
        assert "interrupted:" in stdout and "Traceback" not in stderr and "Exception" not in stderr, (gap, stderr)
        assert len(book.load(out)) > 0


def test_a_build_refuses_a_worker_with_other_weights():
    from engine.fit import book as bookbuild
    with pytest.raises(RuntimeError, match="other weights"):
        bookbuild._leaf_job(([(0x0000000810000000, 0x0000001008000000)], 2, 16, "0" * 64))


@needs_search
def test_a_tiny_build_is_deterministic_resumable_and_passes_check(tiny, tmp_path, capsys):
    from engine.fit import book as bookbuild
    path, b = tiny
    again = tmp_path / "again.bin.gz"
    bookbuild.build(again, log=lambda line: None, **TINY)
    assert again.read_bytes() == path.read_bytes()
    # a smaller build continued with --resume gives the same book
    part = tmp_path / "part.bin.gz"
    bookbuild.build(part, log=lambda line: None, **dict(TINY, plies=3))
    assert len(book.load(part)) < len(b)
    assert main(["book", "build", "--out", str(part), "--plies", "4", "--depth", "2", "--width", "1",
                 "--seed", "3", "--resume"]) == 0
    assert "starting from" in capsys.readouterr().out
    assert part.read_bytes() == path.read_bytes()

    summary = book.check(path)
    assert summary["positions"] == len(b) > 3
    assert summary["moves"] == sum(map(len, b.entries.values()))
    assert summary["deepest"] == 3 and summary["plies"] == 4 and summary["depth"] == 2
    start = Position.start()
    assert canonical(start.player, start.opponent) in b.entries
    assert main(["book", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "good" in out and f"{len(b)} positions" in out and "up to ply 3" in out
    # every position's negamax is its best move's value; the start is in the book
    for key, moves in b.entries.items():
        for sq, v in moves.items():
            child = book.child_key(*key, sq)
            if child in b.entries:
                assert v == -b.value(child)


def _rewrite(src, dst, change):
    b = book.load(src)
    change(b.entries)
    dst.write_bytes(book.dumps(b))
    return dst


def test_check_catches_a_wrong_negamax_value_and_an_illegal_move(tiny, tmp_path, capsys):
    path, b = tiny
    # a move into a stored position whose value is not minus that position's best
    key, sq = next((k, s) for k, moves in sorted(b.entries.items()) for s in sorted(moves)
                   if book.child_key(*k, s) in b.entries)

    def wrong_value(entries):
        entries[key][sq] += 3

    bad = _rewrite(path, tmp_path / "value.bin.gz", wrong_value)
    with pytest.raises(BookError, match=f"move {square_name(sq)} has value .*expected"):
        book.check(bad)
    assert main(["book", "check", str(bad)]) == 1
    assert "expected" in capsys.readouterr().err

    def illegal_move(entries):
        P, O = key
        taken = next(s for s in range(64) if (P | O) >> s & 1)
        entries[key][taken] = 0

    bad = _rewrite(path, tmp_path / "illegal.bin.gz", illegal_move)
    with pytest.raises(BookError, match="is not legal"):
        book.check(bad)

    def not_canonical(entries):
        k = next(k for k in sorted(entries) if len({transform(*k, i) for i in range(8)}) > 1)
        entries[max(transform(*k, i) for i in range(8))] = entries.pop(k)

    with pytest.raises(BookError, match="not in canonical form"):
        book.check(_rewrite(path, tmp_path / "canon.bin.gz", not_canonical))

    def overlapping(entries):
        P, O = key
        entries[(P, O | (P & -P))] = entries.pop(key)

    with pytest.raises(BookError, match="two discs"):
        book.check(_rewrite(path, tmp_path / "overlap.bin.gz", overlapping))


def test_a_damaged_or_foreign_file_is_refused_and_best_still_plays(tiny, tmp_path, capsys):
    path, _ = tiny
    raw = path.read_bytes()
    flipped = bytearray(raw)
    flipped[len(raw) // 2] ^= 0x10
    body = gzip.decompress(raw)
    versioned = bytearray(body)
    versioned[len(book.MAGIC)] = 9
    cases = {
        "flipped.bin.gz": (bytes(flipped), "damaged"),
        "cut.bin.gz": (raw[:len(raw) - 9], "damaged"),
        "cutbody.bin.gz": (gzip.compress(body[:-5]), "truncated"),
        "foreign.bin.gz": (patterns.WEIGHTS.read_bytes(), "not an opening book"),
        "version.bin.gz": (gzip.compress(bytes(versioned)), "version 9"),
        "empty.bin.gz": (b"", "not an opening book"),
    }
    for name, (data, reason) in cases.items():
        bad = tmp_path / name
        bad.write_bytes(data)
        with pytest.raises(BookError, match=reason):
            book.load(bad)
        assert main(["book", "check", str(bad)]) == 1
        assert reason in capsys.readouterr().err
        assert book.learned(bad) is None and reason in book.learned_error(bad)
        ai = strategies.Best(book=bad, seed=1)
        p = Position.start().play("f5").play("d6")
        # no learned book: the named openings (c3 for the Tiger and the Buffalo, c5 for the Cow)
        assert square_name(ai.next_move(p, 0.05)) in ("c3", "c5")
    with pytest.raises(BookError, match="cannot read"):
        book.load(tmp_path / "nosuch.bin.gz")


# -- show ---------------------------------------------------------------------------------------

def test_show_prints_the_book_moves_best_first(tiny, capsys):
    path, b = tiny
    assert main(["book", "show", "f5", "--file", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("after f5: white to move, 3 book moves")
    shown = [(line.split()[0], float(line.split()[1])) for line in lines[1:]]
    assert sorted(m for m, _ in shown) == ["d6", "f4", "f6"]
    values = [v for _, v in shown]
    assert values == sorted(values, reverse=True)
    p = Position.start().play("f5")
    expected = b.moves(p)
    assert {m: v for m, v in shown} == {square_name(m): round(v, 2) for m, v in expected.items()}
    # the same position reached by a symmetric first move shows the symmetric moves
    assert main(["book", "show", "d3", "--file", str(path)]) == 0
    mirrored = capsys.readouterr().out.splitlines()
    assert sorted(float(line.split()[1]) for line in mirrored[1:]) == sorted(values)
    assert main(["book", "show", "f5d6c3d3c4f4", "--file", str(path)]) == 0
    assert "not in the book" in capsys.readouterr().out
    assert main(["book", "show", "a1", "--file", str(path)]) == 2
    assert "a1" in capsys.readouterr().err


# -- best ---------------------------------------------------------------------------------------

def _hand_book():
    """After f5 (white to move): d6 +0.5, f6 0, f4 -3 discs."""
    p = Position.start().play("f5")
    P, O, i = canonical_form(p.player, p.opponent)
    values = {"d6": 2, "f6": 0, "f4": -12}
    entry = {book.SQUARE_MAPS[i][p._square(n)]: v for n, v in values.items()}
    return LearnedBook({(P, O): entry}), p


def test_best_plays_book_moves_within_the_margin_and_varies_with_the_seed():
    lb, p = _hand_book()
    chosen = set()
    for seed in range(30):
        ai = strategies.Best(book=lb, seed=seed, book_margin=1.0)
        first = [square_name(ai.next_move(p, 0.05)) for _ in range(3)]
        again = strategies.Best(book=lb, seed=seed, book_margin=1.0)
        assert [square_name(again.next_move(p, 0.05)) for _ in range(3)] == first  # reproducible
        chosen.update(first)
    assert chosen == {"d6", "f6"}
    # the same position under a symmetry (d3 mirrors f5 in the a8-h1 diagonal): c5 = +0.5, c3 = 0, e3 = -3
    q = Position.start().play("d3")
    picks = {square_name(strategies.Best(book=lb, seed=s).next_move(q, 0.05)) for s in range(30)}
    assert picks == {"c5", "c3"}
    # a margin of 0 keeps only the best; no book: a search (a legal move), not the book's choice
    assert {strategies.Best(book=lb, seed=s, book_margin=0).next_move(p, 0.05) for s in range(5)} == \
        {p._square("d6")}
    assert strategies.Best(book=False).book_move(p) is None
    assert strategies.Best(book=lb).book_move(Position.start()) is None  # not in this book: search


def test_best_from_the_tiny_book_stays_within_the_margin(tiny):
    path, b = tiny
    margin = 0.5
    for key, stored in sorted(b.entries.items())[:6]:
        for i in (0, 3, 6):
            p = Position(8, *transform(*key, i))
            values = b.moves(p)
            top = max(values.values())
            for seed in range(4):
                m = strategies.Best(book=path, seed=seed, book_margin=margin).next_move(p, 0.05)
                assert values[m] >= top - margin


def test_the_shipped_book_passes_check_and_best_uses_it():
    if not book.BOOK.exists():
        pytest.skip("no shipped book")
    s = book.check(book.BOOK)
    assert s["positions"] > 500 and s["bytes"] < 1_000_000 and s["deepest"] >= 8
    lb = book.learned()
    assert lb is not None and len(lb) == s["positions"]
    ai = strategies.Best(seed=1)
    assert ai.learned is lb
    g = Game()
    for _ in range(4):
        m = ai.next_move(g.position, 0.05)
        values = lb.moves(g.position)
        assert values and values[m] >= max(values.values()) - ai.book_margin
        g.play(m)


def test_build_with_no_position_limit(tmp_path):
    """``book build --positions 0`` means no limit (it used to end in a TypeError)."""
    if strategies.compiled is None or not patterns.install():
        pytest.skip("building a book needs the compiled search and the pattern weights")
    from engine import __main__ as engine_cli
    out = tmp_path / "open.bin.gz"
    assert engine_cli.main(["book", "build", "--out", str(out), "--positions", "0", "--plies", "2",
                            "--depth", "1"]) == 0
    assert len(book.load(out)) == 2   # the start and the one position after f5 (all four are alike)
