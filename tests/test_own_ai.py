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
    monkeypatch.chdir(bots)         # a module beside where the game is started
    assert strategies.get("mybot:Corners").name == "Corners"


def test_an_installed_package_announces_a_strategy(bots, monkeypatch):
    dist = bots / "cornerbots-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: cornerbots\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[cardstand.strategies]\ncorners = mybot:Corners\n")
    monkeypatch.syspath_prepend(str(bots))
    monkeypatch.setenv("PYTHONPATH", str(bots))     # (as an installed package is, for its process too)
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
    if name == "sleeps":        # stopped, and started again for the next move
        assert "stopped; started again" in ai.problem
        assert ai.next_move(pos, 0.2) in pos.legal_moves() and ai.problems == 2


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
    # (times far above what these answers take: a Python started under Wine takes up to a second)
    r = engine_cmd("move", "--ai", f"{bots / 'mybot.py'}:Corners", "--time", "5",
                   stdin=oneshot.format_request(Position.start()))
    assert r.returncode == 0 and len(r.stdout.split()) == 2, r.stderr
    r = engine_cmd("move", "--ai", str(bots / "raises.py"), "--time", "5", stdin=oneshot.format_request(Position.start()))
    assert r.returncode == 0 and "warning: Bot: " in r.stderr and "ZeroDivisionError" in r.stderr
    r = engine_cmd("tournament", f"{bots / 'mybot.py'}:Corners", str(bots / "illegal.py"), "random",
                   "--games", "2", "--time", "0.05")
    assert r.returncode == 0, r.stderr[-800:]
    assert "Corners" in r.stdout and "illegal " in r.stdout and "Traceback" not in r.stderr
    assert "illegal: " in r.stdout and "move(s) played by the greedy player instead" in r.stdout
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
    for bad in (dict(players=["random"]), dict(players=["random", "random"]),
                dict(players=["random", "greedy"], seconds=0)):
        with pytest.raises(ValueError):
            tournament.play(**{"games": 2, **bad})
    table = tournament.play([strategies.Greedy, "random"], games=2, seconds=0.05, progress=None)
    assert set(table.rows) == {"greedy", "random"}


def test_own_ai_behind_the_nboard_protocol(bots):
    r = engine_cmd("nboard", "--ai", f"{bots / 'raises.py'}:Bot", "--time", "0.2",
                   stdin="nboard 2\nset game (;GM[Othello]PC[x]TY[8];)\nping 1\ngo\nquit\n")
    assert r.returncode == 0, r.stderr[-800:]
    assert "pong 1" in r.stdout and "=== " in r.stdout and "Traceback" not in r.stderr
    assert "raises.py, line 3: ZeroDivisionError" in r.stderr       # said, and the greedy move given
    answer = next(line for line in r.stdout.splitlines() if line.startswith("=== "))
    assert answer.split()[1].split("/")[0].lower() in ("d3", "c4", "f5", "e6")


NASTY = {
    "thread_at_import": "import threading, time\nthreading.Thread(target=time.sleep, args=(1e6,)).start()\n"
                        + CORNERS,
    "holds_the_interpreter": "class Bot:\n    def next_move(self, position, time_limit=None):\n"
                             "        x = 3 ** (10 ** 8)\n        return x\n",
    "huge_int": "class Bot:\n    def next_move(self, position, time_limit=None):\n        return 10 ** 5000\n",
    "int_subclass": "class I(int):\n    def __eq__(self, o):\n        raise RuntimeError('no')\n    __hash__ = int.__hash__\n"
                    "class Bot:\n    def next_move(self, position, time_limit=None):\n"
                    "        return I(position.legal_moves()[0])\n",
    "bad_name": "class Bot:\n    name = property(lambda self: 1 / 0)\n"
                "    def next_move(self, position, time_limit=None):\n        return position.legal_moves()[0]\n",
    "long_name": "class Bot:\n    name = 'x' * 100000\n"
                 "    def next_move(self, position, time_limit=None):\n        return position.legal_moves()[0]\n",
    "mutates": "class Bot:\n    def next_move(self, position, time_limit=None):\n"
               "        m = position.legal_moves()[0]\n        object.__setattr__(position, 'player', 0)\n        return m\n",
    "exits_at_import": "import sys\nsys.exit(0)\n",
    "exits_in_init": "import sys\nclass Bot:\n    def __init__(self):\n        sys.exit(3)\n"
                     "    def next_move(self, position, time_limit=None):\n        return -1\n",
    "prints": "class Bot:\n    def next_move(self, position, time_limit=None):\n        print('x' * 200000)\n"
              "        return position.legal_moves()[0]\n",
    "reads_stdin": "import sys\nclass Bot:\n    def next_move(self, position, time_limit=None):\n"
                   "        sys.stdin.read()\n        return position.legal_moves()[0]\n",
    "dies": "import os\nclass Bot:\n    def next_move(self, position, time_limit=None):\n        os._exit(5)\n",
    "lazy_helper": "class Bot:\n    def next_move(self, position, time_limit=None):\n"
                   "        from helper_for_lazy import pick\n        return pick(position)\n",
}


@pytest.fixture
def nasty(tmp_path):
    for name, text in NASTY.items():
        (tmp_path / f"{name}.py").write_text(text)
    (tmp_path / "helper_for_lazy.py").write_text("def pick(position):\n    return position.legal_moves()[-1]\n")
    return tmp_path


@pytest.mark.parametrize("name, problem", [
    ("holds_the_interpreter", "no move within 0.2 s"),
    ("huge_int", "off the 8x8 board"),
    ("int_subclass", ""),
    ("bad_name", ""),
    ("long_name", ""),
    ("mutates", ""),
    ("prints", ""),
    ("reads_stdin", ""),
    ("dies", "the program stopped (exit code 5)"),
    ("lazy_helper", ""),
])
def test_whatever_ones_own_ai_does_the_game_goes_on(nasty, name, problem):
    ai = strategies.get(str(nasty / f"{name}.py"))
    pos = Position.start()
    t = time.monotonic()
    move = ai.next_move(pos, 0.2)
    assert move in pos.legal_moves() and time.monotonic() - t < 0.2 + loader.GRACE + 1
    assert (problem in ai.problem) if problem else ai.problem == "", ai.problem
    assert len(ai.name) <= loader.NAME_LIMIT
    if name == "lazy_helper":
        assert move == pos.legal_moves()[-1]
    ai.close()


@pytest.mark.parametrize("name, words", [("exits_at_import", "exits_at_import.py, line 2: SystemExit: 0"),
                                         ("exits_in_init", "Bot() fails: ")])
def test_an_exit_while_loading_is_a_load_failure(nasty, name, words):
    with pytest.raises(loader.StrategyError) as e:
        strategies.get(str(nasty / f"{name}.py"))
    assert words in str(e.value)


def test_a_thread_left_running_by_ones_ai_does_not_keep_the_game_open(nasty):
    r = engine_cmd("move", "--ai", str(nasty / "thread_at_import.py"), "--time", "5",
                   stdin=oneshot.format_request(Position.start()))
    assert r.returncode == 0 and len(r.stdout.split()) == 2, r.stderr
    r = engine_cmd("move", "--ai", str(nasty / "prints.py"), "--time", "5",
                   stdin=oneshot.format_request(Position.start()))
    assert r.returncode == 0 and r.stdout.strip() in ("3 2", "2 3", "5 4", "4 5"), r.stdout[:200]


def test_numpy_integers_are_moves(tmp_path):
    np = pytest.importorskip("numpy")
    assert np
    (tmp_path / "npbot.py").write_text("import numpy as np\nclass Bot:\n    def next_move(self, position, time_limit=None):\n"
                                       "        return np.int64(position.legal_moves()[0])\n")
    ai = strategies.get(str(tmp_path / "npbot.py"))
    assert ai.next_move(Position.start(), 1) == Position.start().legal_moves()[0] and ai.problem == ""


# -- one's own AI, bounded: the processes it starts, what it prints, its memory, its loading, its path


def _alive(pid):
    import os
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:        # (a zombie waiting for its parent counts as gone)
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


@pytest.mark.skipif(sys.platform == "win32", reason="on Windows only the AI's own process is stopped (docs/ai.md)")
@pytest.mark.parametrize("when", ["at_import", "in_a_move"])
def test_a_process_ones_ai_starts_is_stopped_with_it(tmp_path, when):
    """What the AI's process starts (a helper, an engine of its own) ends when the AI is closed."""
    started = ("import subprocess, sys\n"
               f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
               f"open({str(tmp_path / 'pid')!r}, 'w').write(str(p.pid))\n")
    body = "        return position.legal_moves()[0]\n"
    text = (started + "class Bot:\n    def next_move(self, position, time_limit=None):\n" + body if when == "at_import"
            else "class Bot:\n    def next_move(self, position, time_limit=None):\n"
                 + textwrap.indent(started, " " * 8) + body)
    (tmp_path / "forks.py").write_text(text)
    ai = strategies.get(str(tmp_path / "forks.py"))
    assert ai.next_move(Position.start(), 2) in Position.start().legal_moves() and ai.problem == "", ai.problem
    pid = int((tmp_path / "pid").read_text())
    assert _alive(pid)
    ai.close()
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the AI's helper outlived the game"


def test_what_ones_ai_prints_is_shown_up_to_a_bound(tmp_path):
    """50 MB printed in one move: the game's standard error gets some 64 KB and one line saying
    how much was not shown; the move is still the AI's."""
    (tmp_path / "chatty.py").write_text(
        "import sys\nclass Bot:\n    def next_move(self, position, time_limit=None):\n"
        "        for _ in range(50 * 1024):\n            print('x' * 1023)\n"
        "        return position.legal_moves()[-1]\n")
    with open(tmp_path / "err", "wb") as err:
        r = subprocess.run([sys.executable, "-m", "engine", "move", "--ai", str(tmp_path / "chatty.py"),
                            "--time", "20"], input=oneshot.format_request(Position.start()), text=True,
                           stdout=subprocess.PIPE, stderr=err, cwd=ROOT, timeout=120)
    shown = (tmp_path / "err").read_bytes()
    assert r.returncode == 0 and r.stdout.strip() in ("3 2", "2 3", "5 4", "4 5"), r.stdout[:200]
    assert len(shown) < 2 * loader.SHOWN_A_MINUTE, len(shown)
    assert b"more bytes this minute: not shown" in shown, shown[-300:]


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the memory limit is POSIX's RLIMIT_AS (docs/ai.md)")
def test_ones_ai_memory_is_limited_and_settable(tmp_path, monkeypatch):
    (tmp_path / "greedy_for_memory.py").write_text(
        "class Bot:\n    def next_move(self, position, time_limit=None):\n"
        "        block = bytearray(600 * 1024 * 1024)\n        return position.legal_moves()[0]\n")
    monkeypatch.setenv("CARDSTAND_AI_MEMORY", "300")
    ai = strategies.get(str(tmp_path / "greedy_for_memory.py"))
    move = ai.next_move(Position.start(), 5)
    assert move in Position.start().legal_moves()
    assert "MemoryError" in ai.problem and "limited to 300 MB: CARDSTAND_AI_MEMORY sets it" in ai.problem, ai.problem
    ai.close()
    monkeypatch.setenv("CARDSTAND_AI_MEMORY", "0")          # no limit: it gets what it asks for
    ai = strategies.get(str(tmp_path / "greedy_for_memory.py"))
    assert ai.next_move(Position.start(), 5) in Position.start().legal_moves() and ai.problem == "", ai.problem
    ai.close()


def test_an_ai_slow_to_load_again_costs_a_move_its_time_only(tmp_path):
    """Stopped after a move that overran, the AI loads again while the game goes on: a move that
    comes before it has loaded is the fallback's within the move's time, said so."""
    marker = tmp_path / "loaded_once"
    (tmp_path / "slow.py").write_text(
        "import os, time\n"
        f"if os.path.exists({str(marker)!r}):\n    time.sleep(6)\n"
        f"open({str(marker)!r}, 'w').close()\n"
        "class Bot:\n    def next_move(self, position, time_limit=None):\n        time.sleep(60)\n")
    ai = strategies.get(str(tmp_path / "slow.py"))
    pos = Position.start()
    ai.next_move(pos, 0.3)
    assert "no move within 0.3 s" in ai.problem
    t = time.monotonic()
    assert ai.next_move(pos, 0.3) in pos.legal_moves()
    assert time.monotonic() - t < 6, time.monotonic() - t       # (before the slow load could have ended)
    assert "still loading: not ready within the move's 0.3 s" in ai.problem, ai.problem
    ai.close()


def test_ones_ai_never_imports_a_file_of_the_start_folder_in_place_of_pythons_own(tmp_path):
    """A classmate's random.py in the folder the game starts from is not what ``import random``
    finds in one's own AI (in another folder); a helper beside the AI's file still imports."""
    start, mine = tmp_path / "shared", tmp_path / "mine"
    start.mkdir()
    mine.mkdir()
    (start / "random.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    (mine / "helper_for_mine.py").write_text("def pick(moves):\n    return moves[-1]\n")
    (mine / "bot.py").write_text(
        "import random\nfrom helper_for_mine import pick\nclass Bot:\n"
        "    def next_move(self, position, time_limit=None):\n        random.random()\n"
        "        return pick(position.legal_moves())\n")
    import shutil
    from pathlib import Path
    # (the installed command: ``python -m`` would put the start folder first in the game's own process)
    command = shutil.which("cardstand-engine", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.skip("the cardstand-engine command is not installed beside this Python")
    r = subprocess.run([command, "move", "--ai", str(mine / "bot.py"), "--time", "5"],
                       input=oneshot.format_request(Position.start()), capture_output=True, text=True,
                       cwd=start, timeout=120)
    assert r.returncode == 0, r.stderr[-500:]
    assert not (tmp_path / "ran").exists(), "the start folder's random.py ran"
    assert "problem" not in r.stderr.lower() and "Traceback" not in r.stderr, r.stderr[-500:]


def test_a_learners_ai_written_against_the_simple_view_plays_whole_games(tmp_path):
    """A first AI as a learner writes it (engine.simple): moves by (x, y) or by name, discs turned
    counted for it; what it returns that is no move is said as any failure is."""
    (tmp_path / "mine.py").write_text(textwrap.dedent('''\
        from engine.simple import SimpleAI

        class ByXY(SimpleAI):
            def choose(self, board):
                assert len(board.rows) == board.size and all(len(r) == board.size for r in board.rows)
                best = max(board.moves, key=lambda m: (m.is_corner, m.flips, -m.y, -m.x))
                assert board.at(best.x, best.y) == "."
                return (best.x, best.y)

        class ByName(SimpleAI):
            def choose(self, board):
                return board.moves[-1].name

        class OffTheBoard(SimpleAI):
            def choose(self, board):
                return (9, 9)
        '''))
    from engine import Game
    for cls in ("ByXY", "ByName"):
        ai, other = strategies.get(f"{tmp_path / 'mine.py'}:{cls}"), strategies.get("greedy")
        g = Game()
        while not g.position.is_game_over():
            pos = g.position
            move = (ai if pos.turn == 0 else other).next_move(pos, 5)
            assert move in pos.legal_moves() or (move == PASS and pos.must_pass()), (cls, move)
            assert ai.problem == "", ai.problem
            g.play(move)
        ai.close()
    ai = strategies.get(f"{tmp_path / 'mine.py'}:OffTheBoard")
    assert ai.next_move(Position.start(), 5) in Position.start().legal_moves()
    assert "(9, 9) is off the 8x8 board" in ai.problem, ai.problem
    ai.close()


@pytest.mark.skipif(sys.platform == "win32", reason="the process group and the signals are POSIX's")
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_what_ones_ai_starts_ends_when_the_game_is_killed(tmp_path, how):
    """The command that plays one's own AI killed in the middle of a move (``timeout`` sends
    SIGTERM; SIGKILL gives no chance to clean up): the AI's process and the helper it started go
    too (they were left running, orphaned)."""
    import os
    import signal
    (tmp_path / "kid.py").write_text(
        "import subprocess, sys, time\nclass Bot:\n    def next_move(self, position, time_limit=None):\n"
        "        p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"        open({str(tmp_path / 'pid')!r}, 'w').write(str(p.pid))\n"
        "        time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-m", "engine", "move", "--ai", str(tmp_path / "kid.py"), "--time", "30"],
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, text=True)
    p.stdin.write(oneshot.format_request(Position.start()))
    p.stdin.close()
    deadline = time.monotonic() + 60
    while not (tmp_path / "pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    helper = int((tmp_path / "pid").read_text())
    assert _alive(helper)
    p.send_signal(getattr(signal, how))
    p.wait(timeout=30)
    deadline = time.monotonic() + 10
    while _alive(helper) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(helper), f"the AI's helper outlived the game killed by {how}"
    assert "Traceback" not in p.stderr.read()


@pytest.mark.parametrize("value", ["²", "abc", "-5", "1e3", "20"])
def test_a_memory_limit_that_is_none_is_refused_in_one_line(tmp_path, monkeypatch, value):
    (tmp_path / "ok.py").write_text(CORNERS)
    monkeypatch.setenv("CARDSTAND_AI_MEMORY", value)
    with pytest.raises(loader.StrategyError) as e:
        strategies.get(str(tmp_path / "ok.py"))
    assert "CARDSTAND_AI_MEMORY" in str(e.value) and "whole number of megabytes, 64 or more" in str(e.value)


def test_what_ones_ai_prints_reaches_the_screen_without_control_characters(tmp_path):
    """An escape sequence printed by the AI would clear the player's screen, retitle its window or
    draw over the board: it is shown as ``?``."""
    (tmp_path / "esc.py").write_text(
        "class Bot:\n    def next_move(self, position, time_limit=None):\n"
        "        print('\\x1b]0;PWNED\\x07\\x1b[2Jhello\\u202eolleh')\n        return position.legal_moves()[0]\n")
    r = subprocess.run([sys.executable, "-m", "engine", "move", "--ai", str(tmp_path / "esc.py"), "--time", "5"],
                       input=oneshot.format_request(Position.start()), capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert r.returncode == 0 and "hello" in r.stderr, r.stderr
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr and "\u202e" not in r.stderr, repr(r.stderr)


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the memory limit is POSIX's RLIMIT_AS (docs/ai.md)")
def test_an_ai_that_keeps_all_its_memory_is_said_to_have_run_out_of_it(tmp_path, monkeypatch):
    """It filled its memory and kept it: reading the next request failed with a traceback, and the
    game said only that the program stopped."""
    (tmp_path / "hog.py").write_text(
        "kept = []\nclass Bot:\n    def next_move(self, position, time_limit=None):\n"
        "        try:\n            while True:\n                kept.append(bytearray(1 << 20))\n"
        "        except MemoryError:\n            pass\n"
        "        kept.pop()\n        return position.legal_moves()[0]\n")
    monkeypatch.setenv("CARDSTAND_AI_MEMORY", "200")
    ai = strategies.get(str(tmp_path / "hog.py"))
    problems = []
    for _ in range(3):
        ai.next_move(Position.start(), 10)
        problems.append(ai.problem)
    ai.close()
    said = " ".join(problems)
    assert "Traceback" not in said
    assert all(not p or "memory" in p.lower() for p in problems), problems


def test_the_simple_view_takes_numpy_numbers_and_refuses_what_is_no_square():
    np = pytest.importorskip("numpy")
    from engine.simple import Board
    b = Board(Position.start())
    assert b.square((np.int64(3), 2)) == b.square(np.int64(19)) == b.square("d3") == b.square((3, 2)) == 19
    for bad, words in (((True, 2), "not a move"), ((10 ** 5000, 0), "too long to show"), (-5, "off the 8x8"),
                       (2.0, "not a move"), ((3,), "not a move"), ("z9", "off the 8x8")):
        with pytest.raises(ValueError, match=words):
            b.square(bad)
    for x, y in ((-1, 3), (8, 0), (True, 0)):
        with pytest.raises(ValueError, match="off the 8x8 board"):
            b.at(x, y)


def test_a_one_shot_move_counts_the_loading_in_its_time(tmp_path):
    """``engine move --time 0.5`` with an AI that takes 8 s to load answered after 8 s: the move is
    the greedy player's within the time, said so."""
    (tmp_path / "slowload.py").write_text("import time\ntime.sleep(8)\n" + CORNERS)
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "engine", "move", "--ai", str(tmp_path / "slowload.py"), "--time", "0.5"],
                       input=oneshot.format_request(Position.start()), capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    took = time.monotonic() - t
    assert r.returncode == 0 and r.stdout.strip() in ("3 2", "2 3", "5 4", "4 5"), (r.stdout, r.stderr)
    assert "still loading" in r.stderr and took < 8, (took, r.stderr)     # (before it could have loaded)
