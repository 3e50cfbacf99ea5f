"""ProbCut's table (engine/probcut.py, fitted by engine/fit/probcut.py) and the selective midgame search."""
import random

import pytest

from engine import Position, backend, patterns, probcut
from engine.fit import probcut as probcut_fit

pytestmark = pytest.mark.skipif(backend.compiled is None or not patterns.install(),
                                reason="needs the compiled core and the pattern weights")
compiled = backend.compiled


def midgame(seed, plies):
    rng = random.Random(seed)
    while True:
        p = Position.start()
        for _ in range(plies):
            moves = p.legal_moves()
            p = p.play(rng.choice(moves) if moves else -1)
        if not p.is_game_over() and p.legal_moves():
            return p


def search(p, selective, depth=9):
    s = compiled.Searcher(18, 1)
    s.selective = selective
    return s.search(8, p.player, p.opponent, depth, 0.0, "patterns")


def test_the_shipped_table_loads_and_covers_every_stage():
    t, biases, sigmas = probcut.load()
    assert 0 < t <= 3
    for st in range(probcut.STAGES):
        assert all(sigmas[st][d] > 0 for d in range(probcut.MIN_DEPTH, 11)), st


def test_depths_beyond_the_fitted_ones_take_the_row_four_shallower(tmp_path):
    table = tmp_path / "probcut.txt"
    table.write_text("t 1.5\n" + "".join(f"stage {st} depth {d} bias {d * (-1) ** d} sigma {10 + d + st} n 9\n"
                                         for st in range(probcut.STAGES) for d in range(3, 11 + (st == 1))),
                     encoding="ascii")
    t, biases, sigmas = probcut.load(table)
    assert compiled.PROBCUT_MAX_DEPTH == probcut.MAX_DEPTH
    for st in range(probcut.STAGES):
        fitted = 11 + (st == 1)
        assert sigmas[st][fitted - 1] == 9 + fitted + st                 # a fitted row is kept
        for d in range(fitted, probcut.MAX_DEPTH + 1):
            assert (biases[st][d], sigmas[st][d]) == (biases[st][d - 4], sigmas[st][d - 4]), (st, d)
    assert biases[0][11] == -7 and biases[0][12] == 8 and sigmas[1][12] == sigmas[1][8] == 19


def test_selective_search_cuts_nodes_and_stays_close():
    cut = full = 0
    for seed in range(4):
        p = midgame(seed, 20 + 4 * seed)
        sel, plain = search(p, True), search(p, False)
        assert p.is_legal(sel[1]) and sel[3] == plain[3] == 9
        assert abs(sel[0] - plain[0]) <= 60, seed        # within 15 discs: the same kind of position
        cut += sel[2]
        full += plain[2]
    assert cut < full / 3


@pytest.mark.parametrize("text", ["t 1.5\nstage 0 depth 3 bias 1 sigma\n", "t 99\n",
                                  "t 1.5\nstage 5 depth 3 bias 1 sigma 2 n 3\n",
                                  "t 1.5\nstage 0 depth 30 bias 1 sigma 2 n 3\n",
                                  "stage 0 depth 3 bias 1 sigma 2 n 3\n", "\x00\x01garbage"])
def test_a_malformed_table_is_refused_and_no_cut_is_made(tmp_path, text, caplog):
    bad = tmp_path / "probcut.txt"
    bad.write_text(text, encoding="latin-1")
    with pytest.raises(ValueError):
        probcut.load(bad)
    p = midgame(1, 24)
    try:
        with caplog.at_level("WARNING", logger="engine.probcut"):
            assert probcut.install(bad) is False
        assert str(bad) in caplog.text and "without ProbCut's cuts" in caplog.text     # said, not silent
        assert search(p, True)[2] == search(p, False)[2]   # no table: the same tree
    finally:
        assert probcut.install()


def test_fit_writes_a_table_that_loads(tmp_path):
    out = tmp_path / "pc.txt"
    import io
    probcut_fit.fit(count=3, max_depth=4, seed=2, out=out, stream=io.StringIO())
    t, biases, sigmas = probcut.load(out)
    assert t == probcut.T and any(sigmas[st][4] for st in range(probcut.STAGES))


def test_fit_refuses_too_few_positions_and_a_place_it_cannot_write(tmp_path, capsys):
    before = probcut.TABLE.read_bytes()
    for args in (["--positions", "0"], ["--positions", "-1"], ["--out", str(tmp_path)], ["--journal", ""],
                 ["--out", str(tmp_path / "no" / "such" / "dir.txt")]):
        with pytest.raises(SystemExit):
            probcut_fit.main(["fit", *args])
        assert "error" in capsys.readouterr().err
    assert probcut.TABLE.read_bytes() == before


def test_show_and_info_say_when_the_table_is_damaged(tmp_path, monkeypatch, capsys):
    import engine.__main__ as cli
    assert probcut_fit.main(["show"]) == 0 and capsys.readouterr().out.startswith("# ProbCut table")
    assert cli.main(["info"]) == 0 and "probcut    : probcut.txt" in capsys.readouterr().out
    bad = tmp_path / "probcut.txt"
    bad.write_bytes(bytes(range(256)))
    monkeypatch.setattr(probcut_fit, "TABLE", bad)
    monkeypatch.setattr(probcut, "TABLE", bad)
    assert probcut_fit.main(["show"]) == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err == f"error: {bad}: not a ProbCut table (it is not text)\n"
    assert cli.main(["info"]) == 0
    assert f"probcut    : not in use ({bad}: not a ProbCut table (it is not text))" in capsys.readouterr().out
