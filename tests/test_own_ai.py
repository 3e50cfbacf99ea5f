"""Your own computer player (``--ai FILE.py:CLASS``, ``package.module:CLASS``, an announced name)
wherever a built-in one goes, and guarded: whatever it does, the game goes on."""
import subprocess
import sys
import textwrap
import time

import pytest

from engine import PASS, Position, loader, oneshot, strategies
from peertools import ROOT, final_line, finish, player

CORNERS = """\
from engine import PASS
from engine.strategies import Strategy


class Corners(Strategy):
    def next_move(self, position, time_limit=None):
        moves = position.legal_moves()
        if not moves:
            return PASS
        n = position.size
        corners = [m for m in moves if m in (0, n - 1, n * n - n, n * n - 1)]
        return (corners or moves)[0]
"""

BAD = {
    "raises": "class Bot:\n    def next_move(self, position, time_limit=None):\n        return 1 // 0\n",
    "illegal": "class Bot:\n    def next_move(self, position, time_limit=None):\n        return 0\n",
    "not_int": "class Bot:\n    def next_move(self, position, time_limit=None):\n        return 'd3'\n",
    "sleeps": "import time\nclass Bot:\n    def next_move(self, position, time_limit=None):\n        time.sleep(60)\n",
    "passes": "class Bot:\n    def next_move(self, position, time_limit=None):\n        return -1\n",
}


@pytest.fixture
def bots(tmp_path):
    (tmp_path / "mybot.py").write_text(CORNERS)
    for name, text in BAD.items():
        (tmp_path / f"{name}.py").write_text(text)
    return tmp_path


def test_a_file_and_a_class_are_loaded(bots):
    ai = strategies.get(f"{bots / 'mybot.py'}:Corners", threads=2)
    assert ai.name == "Corners"
    assert ai.next_move(Position.start(), 1) in Position.start().legal_moves()
    alone = strategies.get(str(bots / "mybot.py"))         # the file's only strategy class
    assert alone.name == "Corners"
    assert strategies.check(f"{bots / 'mybot.py'}:Corners")


def test_a_module_and_a_class_are_loaded(bots, monkeypatch):
    monkeypatch.syspath_prepend(str(bots))
    assert strategies.get("mybot:Corners").name == "Corners"


def test_an_installed_package_announces_a_strategy(bots, monkeypatch):
    dist = bots / "cornerbots-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: cornerbots\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[cardstand.strategies]\ncorners = mybot:Corners\n")
    monkeypatch.syspath_prepend(str(bots))
    assert "corners" in strategies.names()
    assert strategies.get("Corners").name == "Corners"


@pytest.mark.parametrize("spec, words", [
    ("missing.py:Bot", "missing.py: no such file"),
    ("syntax.py:Bot", "syntax.py, line 2: SyntaxError"),
    ("crash.py:Bot", "crash.py, line 2: RuntimeError: at import"),
    ("mybot.py:Nope", "no class 'Nope'"),
    ("notastrategy.py:Bot", "is not a strategy"),
    ("mybot.py:1x", "'1x' is not a class name"),
    ("nosuch.module:Bot", "module 'nosuch.module' does not load"),
    ("nosuchname", "unknown AI 'nosuchname'"),
    ("two.py", "several strategy classes (A, B)"),
])
def test_what_does_not_load_is_named(bots, spec, words):
    (bots / "syntax.py").write_text("x = 1\ndef f(:\n")
    (bots / "crash.py").write_text("x = 1\nraise RuntimeError('at import')\n")
    (bots / "notastrategy.py").write_text("class Bot:\n    pass\n")
    (bots / "two.py").write_text(BAD["raises"].replace("Bot", "A") + BAD["raises"].replace("Bot", "B"))
    target = str(bots / spec) if ".py" in spec else spec
    with pytest.raises(ValueError) as e:
        strategies.get(target)
    assert words in str(e.value)


@pytest.mark.parametrize("name, words", [
    ("raises", "raises.py, line 3: ZeroDivisionError"),
    ("illegal", "a1 is not a legal move"),
    ("not_int", "returned 'd3', not a square index"),
    ("passes", "it passed with a legal move to play"),
    ("sleeps", "no move within 0.2 s"),
])
def test_a_move_that_goes_wrong_is_the_fallbacks(bots, name, words):
    ai = strategies.get(f"{bots / name}.py:Bot")
    pos = Position.start()
    t = time.monotonic()
    move = ai.next_move(pos, 0.2)
    assert move == strategies.get("greedy").next_move(pos)
    assert words in ai.problem and ai.problems == 1
    assert time.monotonic() - t < 0.2 + loader.GRACE + 1
    if name == "sleeps":        # still thinking about the first: not asked again, no wait
        t = time.monotonic()
        ai.next_move(pos, 0.2)
        assert "still thinking" in ai.problem and time.monotonic() - t < 0.5


def test_a_pass_is_taken_when_there_is_no_move(bots):
    ai = strategies.get(f"{bots / 'passes'}.py:Bot")
    pos = Position.from_text("OOOOOXOOOOOOXXOOOXOOXXOOOXXOOXOOOXOOXOOOOOOOOXOOOOXXXXX-OXXXXXX- X")
    assert pos.must_pass()
    assert ai.next_move(pos, 0.2) == PASS and ai.problem == ""


def test_own_ai_plays_a_game_through_the_players(bots, tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", f"{bots / 'mybot.py'}:Corners", "--time", "0.2", "--new")
    w = player("white", board, "--ai", str(bots / "raises.py"), "--time", "0.2")
    (rb, ob), (rw, ow) = finish(b), finish(w)
    assert rb == rw == 0, (ob[-600:], ow[-600:])
    assert "Game on: Corners (black X) vs Bot (white O)" in ob
    assert final_line(ob) == final_line(ow) is not None
    assert "Your AI failed (Bot: " in ow and "raises.py, line 3: ZeroDivisionError" in ow
    assert "Traceback" not in ob + ow


def test_a_bad_file_is_refused_before_the_game(bots, tmp_path):
    board = tmp_path / "b"
    rc, out = finish(player("black", board, "--ai", str(bots / "missing.py")))
    assert rc == 2 and "missing.py: no such file" in out and "Traceback" not in out
    assert not board.exists()


def engine_cmd(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_own_ai_in_the_engines_commands(bots):
    r = engine_cmd("move", "--ai", f"{bots / 'mybot.py'}:Corners", "--time", "0.2",
                   stdin=oneshot.format_request(Position.start()))
    assert r.returncode == 0 and len(r.stdout.split()) == 2, r.stderr
    r = engine_cmd("tournament", f"{bots / 'mybot.py'}:Corners", str(bots / "illegal.py"), "random",
                   "--games", "2", "--time", "0.05")
    assert r.returncode == 0, r.stderr[-800:]
    assert "Corners" in r.stdout and "illegal " in r.stdout and "Traceback" not in r.stderr
    r = engine_cmd("tournament", str(bots / "missing.py"), "random", "--games", "2")
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr


def test_the_docs_example_runs(tmp_path):
    """docs/ai.md's first class, written to a file as a learner would, plays from the command line."""
    text = (ROOT / "docs" / "ai.md").read_text(encoding="utf-8")
    start = text.index("```python\n# mybot.py")
    code = text[start + len("```python\n"):text.index("```", start + 10)]
    (tmp_path / "mybot.py").write_text(textwrap.dedent(code))
    ai = strategies.get(str(tmp_path / "mybot.py"))
    assert ai.next_move(Position.start(), 0.5) in Position.start().legal_moves() and ai.problem == ""


def test_own_ai_in_an_sprt_match(bots):
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "sprt.py"), "--ai-a", f"{bots / 'mybot.py'}:Corners",
                        "--ai-b", "random", "--max-games", "2", "--min-games", "2", "--time", "0.05"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0 and "forfeits: 0" in r.stdout, (r.stdout[-800:], r.stderr[-800:])


def test_the_docs_tournament_example_runs(capsys):
    text = (ROOT / "docs" / "ai.md").read_text(encoding="utf-8")
    start = text.index("```python\nfrom engine import tournament")
    code = text[start + len("```python\n"):text.index("```", start + 10)]
    exec(compile(code, "docs/ai.md", "exec"), {})
    out = capsys.readouterr().out
    assert "pairs (wins-draws-losses" in out and "'random'" in out


def test_a_tournament_from_a_script_takes_classes(bots, monkeypatch):
    monkeypatch.syspath_prepend(str(bots))
    import mybot as module
    from engine import tournament
    table = tournament.play([module.Corners, "random"], games=2, seconds=0.05, progress=None, shape="heart")
    assert all(len(r["moves"]) > 0 for r in table.results)
    assert sorted(tournament.label(n) for n in table.rows) == ["Corners", "random"]
    assert all(r["games"] == 2 for r in table.rows.values()) and "Corners" in str(table)
    with pytest.raises(ValueError):
        tournament.play(["random"], games=2)


def test_own_ai_behind_the_nboard_protocol(bots):
    r = engine_cmd("nboard", "--ai", f"{bots / 'raises.py'}:Bot", "--time", "0.2",
                   stdin="nboard 2\nset game (;GM[Othello]PC[x]TY[8];)\nping 1\ngo\nquit\n")
    assert r.returncode == 0, r.stderr[-800:]
    assert "pong 1" in r.stdout and "=== " in r.stdout and "Traceback" not in r.stderr
    assert "raises.py, line 3: ZeroDivisionError" in r.stderr       # said, and the greedy move given
    answer = next(line for line in r.stdout.splitlines() if line.startswith("=== "))
    assert answer.split()[1].split("/")[0].lower() in ("d3", "c4", "f5", "e6")
