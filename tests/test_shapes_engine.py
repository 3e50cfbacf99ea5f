"""The engine on shaped boards: every built-in shape and one's own, on every core,
against the plain oracle of ``tests/naive.py``; the strategies and the solver on them."""
import random

import pytest

import naive
from engine import Game, Position, Shape, backend, perft, strategies
from engine.notation import PASS
from engine.position import BLACK
from engine.shape import builtin

compiled = backend.compiled
pure = backend.pure
needs_compiled = pytest.mark.skipif(compiled is None, reason="compiled core not built")

SHAPES = list(builtin())

# From each start, depths 1..6: found by the pure core when shapes came (engine/_pure.py), kept
# here so that a change to every core at once is still seen.
PINNED = {
    "Square-8": [4, 12, 56, 244, 1396, 8200],
    "X": [2, 4, 8, 22, 56, 162],
    "T": [12, 132, 1392, 13423, 125522, 1137467],
}

ORACLE_LEAVES = 130_000   # the oracle counts the deepest of depths 5 and 6 within this many leaves
PURE_LEAVES = 40_000      # the pure core, every depth within this many
DEEPER_LEAVES = 300_000   # bitboard against mailbox past depth 6 while the last depth stays within this

# One's own boards on the mailbox core: holes and starts of their own.
SIX = """
#.....
..#...
.XOX..
..OX..
...O..
.....#
"""
TEN = """
##......##
#........#
...#..#...
....XO....
...XOXO...
....OX....
...#..#...
..........
#........#
##......##
"""


def _oracle_board(p: Position) -> list:
    return naive.from_masks(p.size, p.black, p.white, p.holes)


def _random_position(shape: Shape, empties: int, rng: random.Random) -> Position:
    """A position of a random game on ``shape`` with at most ``empties`` empties (or its end)."""
    p = shape.start()
    while p.empties() > empties and not p.is_game_over():
        moves = p.legal_moves()
        p = p.play(rng.choice(moves) if moves else PASS)
    return p


@needs_compiled
@pytest.mark.parametrize("name", SHAPES)
def test_perft_on_every_shape_bitboard_mailbox_pure_and_oracle_agree(name):
    shape = Shape.named(name)
    p = shape.start()
    args = (8, p.player, p.opponent)
    counts = []
    for d in range(7):
        n = compiled.perft(*args, d, holes=shape.holes)
        assert compiled.perft(*args, d, bulk=True, holes=shape.holes) == n, d
        assert compiled.perft(*args, d, mailbox=True, holes=shape.holes) == n, d
        if n <= PURE_LEAVES:
            assert pure.perft(*args, d, holes=shape.holes) == n, d
        counts.append(n)
    if name in PINNED:
        assert counts[1:] == PINNED[name]
    depth = max(d for d in (5, 6) if counts[d] <= ORACLE_LEAVES)
    assert naive.perft(_oracle_board(p), 0, depth) == counts[depth]
    d = 7
    while counts[-1] <= DEEPER_LEAVES and d <= 9:
        n = compiled.perft(*args, d, holes=shape.holes)
        assert compiled.perft(*args, d, mailbox=True, holes=shape.holes) == n, d
        counts.append(n)
        d += 1
    assert perft(p, 6) == counts[6]   # engine.perft takes the position's holes


def test_a_finished_game_is_one_leaf_whatever_depth_remains():
    # Square-4's games end within 12 moves and their passes: past that, every count is the
    # number of games
    shape = Shape.named("Square-4")
    p = shape.start()
    games = naive.perft(_oracle_board(p), 0, 64)
    assert perft(p, 30) == perft(p, 64) == games
    assert pure.perft(8, p.player, p.opponent, 64, holes=shape.holes) == games


@pytest.mark.parametrize("picture,depth", [(SIX, 6), (TEN, 5)])
def test_own_shapes_of_other_sizes_on_the_mailbox_core(picture, depth):
    shape = Shape.parse(picture, "own")
    p = shape.start()
    args = (shape.size, p.player, p.opponent)
    n = naive.perft(_oracle_board(p), 0, depth)
    assert pure.perft(*args, depth, holes=shape.holes) == n
    assert perft(p, depth) == n
    if compiled is not None:
        assert compiled.perft(*args, depth, holes=shape.holes) == n
        assert compiled.perft(*args, depth, bulk=True, holes=shape.holes) == n
        assert compiled.perft(*args, depth + 1, holes=shape.holes) == pure.perft(*args, depth + 1,
                                                                                   holes=shape.holes)


def test_moves_agree_with_the_oracle_along_random_games_and_never_a_hole():
    rng = random.Random(26)
    shapes = [Shape.named(n) for n in SHAPES] + [Shape.parse(SIX), Shape.parse(TEN)]
    for shape in shapes:
        p = shape.start()
        n = shape.size
        while not p.is_game_over():
            board = _oracle_board(p)
            me = 0 if p.turn == BLACK else 1
            want = sum(1 << (y * n + x) for y in range(n) for x in range(n) if naive.flips(board, n, x, y, me))
            assert p.legal_moves_mask() == want
            assert pure.moves(n, p.player, p.opponent, holes=p.holes) == want
            if compiled is not None:
                assert compiled.moves(n, p.player, p.opponent, holes=p.holes) == want
                assert compiled.moves(n, p.player, p.opponent, mailbox=True, holes=p.holes) == want
            assert not want & shape.holes
            moves = p.legal_moves()
            p = p.play(rng.choice(moves) if moves else PASS)
        assert p.empties() == p.size ** 2 - (p.black | p.white | p.holes).bit_count()


SOLVE_CASES = [("Heart", 1, 8), ("T", 2, 8), ("Cross", 3, 10), ("Inside", 4, 8), ("Square-6", 5, 9),
               ("Clover", 6, 8), ("Torus", 7, 8), ("x", 8, 8)]   # (shape, seed, empties)


@pytest.mark.parametrize("name,seed,empties", SOLVE_CASES)
def test_solve_agrees_with_plain_minimax_on_shapes(name, seed, empties):
    p = _random_position(Shape.named(name), empties, random.Random(seed))
    want = naive.solve(_oracle_board(p), 0 if p.turn == BLACK else 1)
    score, move, _, complete = strategies.solve(p)
    assert complete and score == want
    if p.legal_moves():
        assert move in p.legal_moves()
        assert -naive.solve(_oracle_board(p.play(move)), 1 if p.turn == BLACK else 0) == want


def test_solve_on_an_own_shape_of_another_size_uses_the_mailbox_board():
    shape = Shape.parse(SIX, "six")
    for seed in range(4):
        p = _random_position(shape, 9, random.Random(seed))
        want = naive.solve(_oracle_board(p), 0 if p.turn == BLACK else 1)
        score, move, _, complete = strategies.solve(p)
        assert complete and score == want
        assert move in p.legal_moves() or (move == -1 and not p.legal_moves())


def test_the_python_solver_takes_holes_too(monkeypatch):
    positions = [_random_position(Shape.named(n), 9, random.Random(s)) for n, s, _ in SOLVE_CASES[:4]]
    want = [strategies.solve(p)[0] for p in positions]
    monkeypatch.setattr(strategies, "compiled", None)
    assert [strategies.solve(p)[0] for p in positions] == want


@needs_compiled
def test_a_searcher_kept_across_shapes_forgets_the_other_boards_positions():
    # the same discs on two boards that differ by a hole: the hash table must not answer
    # the second board's search with the first board's values
    rng = random.Random(3)
    p = _random_position(Shape.named("Cross"), 13, rng)
    empty = [sq for sq in range(64) if not (p.black | p.white | p.holes) >> sq & 1]
    q = Position(8, p.player, p.opponent, p.turn, p.holes | (1 << empty[-1]))
    fresh = [compiled.solve(8, x.player, x.opponent, holes=x.holes)[0] for x in (p, q)]
    kept = compiled.Searcher(16, 1)
    again = [kept.solve(8, x.player, x.opponent, holes=x.holes)[0] for x in (p, q, p)]
    assert again == fresh + fresh[:1]
    assert kept.search(8, q.player, q.opponent, 4, 0.0, "simple", q.holes)[1] in q.legal_moves()


FAST = ["random", "greedy", "unselfish", "slowstarter", "table", "minmax", "negamax"]


@pytest.mark.parametrize("strategy", strategies.names())
def test_every_strategy_plays_every_shape_legally(strategy):
    ai = strategies.get(strategy, threads=1, **({"seed": 1} if strategy in ("random", "best") else {}))
    rng = random.Random(strategy)
    for shape in [Shape.named(n) for n in SHAPES] + [Shape.parse(SIX, "six"), Shape.parse(TEN, "ten")]:
        name = shape.name
        if strategy in FAST:   # whole games
            p = shape.start()
            while not p.is_game_over():
                m = ai.next_move(p, 0.01)
                assert m in p.legal_moves() or (m == PASS and p.must_pass()), (name, m)
                p = p.play(m)
            continue
        for empties in (99, 30, 9):
            p = _random_position(shape, empties, rng)
            if p.is_game_over():
                continue
            m = ai.next_move(p, 0.01)
            assert m in p.legal_moves() or (m == PASS and p.must_pass()), (name, empties, m)


@pytest.mark.games
@pytest.mark.parametrize("name", SHAPES)
def test_best_beats_greedy_on_every_shape(name):
    # two games, one with each colour: best wins one at least and more discs than greedy over the
    # two.  Not both: some boards are lost or drawn for one colour with perfect play (Square-6 is
    # the 6x6 board, a white win; Two is a draw), and greedy finds good replies there at times.
    # Best searches 4 plies and solves from its usual number of empties, with time to spare (the
    # slowest move, a 24-empty solve on Square-6, takes 5 s of the 30 s it is given): the games do
    # not depend on the machine's load, as they did with 0.2 s a move
    shape = Shape.named(name)
    margins = []
    for best_black in (True, False):
        best, greedy = strategies.get("best", threads=1, seed=1, depth=4), strategies.get("greedy")
        p = shape.start()
        while not p.is_game_over():
            ai = best if (p.turn == BLACK) == best_black else greedy
            p = p.play(ai.next_move(p, 60.0))
        black, white = p.discs()
        margins.append(black - white if best_black else white - black)
    assert max(margins) > 0 and sum(margins) > 0, margins


# -- command line, one-shot format, games, GGF, tournaments ------------------------------------

def test_perft_command_on_a_shape_by_name_and_by_file(capsys, tmp_path):
    from engine.__main__ import main
    assert main(["perft", "6", "--shape", "heart", "--all"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "perft on Heart (8x8, 24 holes), compiled core" or "pure-python" in out[0]
    assert [int(line.split()[2].replace(",", "")) for line in out[1:]] == [4, 12, 56, 231, 1239, 6448]
    own = tmp_path / "six.txt"
    own.write_text(SIX, encoding="utf-8")
    assert main(["perft", "5", "--shape", str(own)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("perft on six (6x6, 3 holes)")
    assert int(out[1].split()[2].replace(",", "")) == naive.perft(_oracle_board(Shape.parse(SIX).start()), 0, 5)


@pytest.mark.parametrize("spec,picture,reason", [
    ("Hexagon", None, "no shape is named 'Hexagon'"),
    ("missing.txt", None, "no such file"),
    ("odd.txt", "X.O\n.O.\nX..\n", "a board is even"),
    ("ragged.txt", "....\n.XO.\n.OX\n....\n", "not a rectangle"),
    ("nodiscs.txt", "....\n....\n....\n....\n", "the start has no black disc"),
    ("nowhite.txt", "....\n.XX.\n.XX.\n....\n", "the start has no white disc"),
    ("stuck.txt", "X..O\n....\n....\n....\n", "neither side can move"),
    ("letter.txt", "....\n.XO.\n.OZ.\n....\n", "use '#' (a hole)"),
])
@pytest.mark.parametrize("command", [["perft", "3"], ["tournament", "random", "greedy"]])
def test_a_bad_shape_is_one_line_and_exit_2(spec, picture, reason, command, tmp_path, monkeypatch, capsys):
    from engine.__main__ import main
    monkeypatch.chdir(tmp_path)
    if picture is not None:
        (tmp_path / spec).write_text(picture, encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        main(command + ["--shape", spec])
    assert e.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"python -m engine {command[0]}: error: argument --shape: ")
    assert reason in last and "Traceback" not in err


def test_a_disc_on_a_hole_cannot_be_drawn_but_is_refused_from_masks_and_ggf():
    # a picture has one mark a square, so only the masks and the GGF can put a disc on a hole
    with pytest.raises(ValueError, match="both a hole and a disc"):
        Shape(4, 1 << 5, 1 << 5 | 1 << 10, 1 << 6)
    g = Game.on(Shape.named("Heart"))
    text = g.to_ggf().replace("HO[", "HO[d4 ")
    with pytest.raises(ValueError, match="hole"):
        Game.from_ggf(text)


def test_perft_and_tournament_refuse_both_size_and_shape(capsys):
    from engine.__main__ import main
    for command in (["perft", "3"], ["tournament", "random", "greedy"]):
        with pytest.raises(SystemExit) as e:
            main(command + ["--size", "8", "--shape", "Heart"])
        assert e.value.code == 2
        assert "not allowed with argument" in capsys.readouterr().err


def test_one_shot_request_sends_a_hole_as_hash_and_the_move_command_never_plays_one(monkeypatch, capsys):
    import io

    from engine import oneshot
    from engine.__main__ import main
    p = _random_position(Shape.named("X"), 20, random.Random(4))
    text = oneshot.format_request(p)
    assert text.split()[4] == "#" and text.split().count("#") == 32   # c1 is a hole of X
    assert oneshot.parse_request(text) == p
    with pytest.raises(ValueError, match="use 0, 1, -1 or #"):
        oneshot.parse_request(text.replace("#", "H", 1))
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["move", "--ai", "greedy"]) == 0
    x, y = map(int, capsys.readouterr().out.split())
    assert y * 8 + x in p.legal_moves()


def test_solve_command_takes_a_position_whose_first_square_is_a_hole(capsys):
    from engine.__main__ import main
    p = _random_position(Shape.named("Heart"), 8, random.Random(2))
    assert p.text().startswith("#")
    assert main(["solve", p.text(), "--json"]) == 0
    import json
    got = json.loads(capsys.readouterr().out)
    assert got["complete"] and got["score"] == naive.solve(_oracle_board(p), 0 if p.turn == BLACK else 1)


def test_game_on_a_shape_replays_its_transcript_and_ggf_keeps_the_holes():
    shape = Shape.named("Torus")
    g = Game.on(shape)
    rng = random.Random(9)
    while not g.position.is_game_over():
        moves = g.position.legal_moves()
        g.play(rng.choice(moves) if moves else PASS)
    assert Game.from_transcript(g.transcript(), start=shape.start()).position == g.position
    text = g.to_ggf("a", "b", "+2.000")
    holes = text[text.index("HO[") + 3:].split("]")[0].split()
    assert len(holes) == shape.holes.bit_count() and "a1" in holes
    again = Game.from_ggf(text)
    assert again.start == shape.start() and again.moves == g.moves and again.position == g.position
    # without the tag, a reader sees the plain board: the same moves make the same discs (up to
    # a pass the holes forced, which may be illegal there)
    head = Game.on(shape)
    for m in g.moves[:g.moves.index(PASS) if PASS in g.moves else None]:
        head.play(m)
    plain = Game.from_ggf(head.to_ggf().replace("HO[", "XX["))
    assert plain.start.holes == 0 and plain.moves == head.moves
    assert (plain.position.black, plain.position.white) == (head.position.black, head.position.white)
    with pytest.raises(ValueError, match="not a square|off the"):
        Game.from_ggf(text.replace("HO[a1", "HO[z9"))


def test_a_tournament_on_a_shape_says_which_and_saves_its_holes(tmp_path):
    import io

    from engine import tournament
    out = tmp_path / "games.ggf"
    stream = io.StringIO()
    table, results = tournament.run(["random", "greedy"], 2, 0.01, plies=2, workers=1, out=str(out),
                                    stream=stream, shape=Shape.named("Diamond"))
    assert "board: Diamond (8x8, 24 holes)" in stream.getvalue()
    assert table["random"]["games"] == table["greedy"]["games"] == 2
    for line in out.read_text(encoding="utf-8").splitlines():
        assert Game.from_ggf(line).start == Shape.named("Diamond").start()


def test_the_examples_of_the_engine_docs_run():
    import doctest
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "engine.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert any("Shape.named" in b for b in blocks)
    for i, block in enumerate(blocks):
        test = doctest.DocTestParser().get_doctest(block, {}, f"docs/engine.md block {i + 1}", "docs/engine.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test, out=lambda s: print(s, end=""))
        assert runner.failures == 0, f"docs/engine.md block {i + 1}"


def test_a_tournament_opening_must_fit_the_shape(capsys):
    from engine import tournament
    from engine.__main__ import main
    x = Shape.named("X")
    assert tournament.max_opening(8, x) == 27 and tournament.max_opening(8) == 59
    with pytest.raises(SystemExit) as e:
        main(["tournament", "random", "greedy", "--shape", "X", "--opening", "28"])
    assert e.value.code == 2
    assert "--opening must be from 0 to 27 plies on a X (8x8, 32 holes) board" in capsys.readouterr().err
