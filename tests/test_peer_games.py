"""Whole games between two real processes over a temporary board folder."""
import re
import io
from pathlib import Path

import pytest

from engine import Game
from peer.cli import follow
from peer.record import Record, Records
from peer.faces.plain import Screen

from peertools import board_folder, final_line, finish, human, need_a_terminal, player


def play_pair(board, size, black_ai, white_ai, seed):
    b = player("black", board, "--ai", black_ai, "--seed", seed, "--size", size, "--time", "0.05")
    w = player("white", board, "--ai", white_ai, "--seed", seed + 1000, "--time", "0.05")
    rb, ob = finish(b)
    rw, ow = finish(w)
    return rb, ob, rw, ow


@pytest.mark.parametrize("size,seeds", [(6, range(4)), (8, range(3)), (10, range(1))])
def test_ai_games_end_the_same_on_both_sides(tmp_path, size, seeds):
    for seed in seeds:
        board = tmp_path / f"b{seed}"
        rb, ob, rw, ow = play_pair(board, size, "random", "random" if seed % 2 else "greedy", seed)
        assert rb == 0 and rw == 0, ob + ow
        assert final_line(ob) is not None and final_line(ob) == final_line(ow), (ob[-500:], ow[-500:])
        rec = Records(board).current()
        assert rec.status == "over" and rec.size == size
        g = Game.from_transcript(rec.moves, size=size)
        assert g.position.is_game_over()
        b, w = g.position.discs()
        assert f"black {b} - white {w}" in final_line(ob)


def test_either_side_may_start_first(tmp_path):
    board = tmp_path / "b"
    w = player("white", board, "--ai", "random", "--seed", 1)
    import time
    time.sleep(1.0)
    b = player("black", board, "--ai", "random", "--seed", 2)
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0
    assert "Waiting for black to join the board" in ow          # white came first and said so
    assert final_line(ob) == final_line(ow)


def test_size_mismatch_is_refused_on_both_sides(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "random", "--size", 6)
    w = player("white", board, "--ai", "random", "--size", 8)
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == 3 and rw == 3
    assert "Cannot play" in ob and "6x6" in ob
    assert "Cannot play" in ow and "6x6" in ow


def test_replay_and_ggf(tmp_path):
    import subprocess
    import sys
    board = tmp_path / "b"
    play_pair(board, 8, "greedy", "random", 3)
    path = Records(board).path(Records(board).current().id)
    r = subprocess.run([sys.executable, "-m", "peer", "replay", str(path), "--no-color"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "#1 black: " in r.stdout and "over" in r.stdout
    g = subprocess.run([sys.executable, "-m", "peer", "replay", str(path), "--ggf"],
                       capture_output=True, text=True, timeout=60)
    assert g.stdout.startswith("(;GM[Othello]") and "B[" in g.stdout and g.stdout.strip().endswith(";)")
    assert "TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]" in g.stdout
    bad = subprocess.run([sys.executable, "-m", "peer", "replay", str(tmp_path / "nope.game"), "--lang", "en"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and not bad.stdout, bad
    assert bad.stderr == f"There is no file {tmp_path / 'nope.game'}: check the path (a game record is " \
                         "BOARD/records/<id>.game).\n", bad.stderr
    bad = subprocess.run([sys.executable, "-m", "peer", "replay", str(tmp_path), "--lang", "en"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr == f"Cannot replay {tmp_path}: a folder, not a game record\n"


def test_replay_and_watch_show_a_pass_as_a_pass(tmp_path):
    """A pass is its own move on the screen: never the move before it again (in both languages)."""
    import subprocess
    import sys
    from comm import Board
    from peer.cli import follow
    from peer.record import Record
    from peer.faces.plain import Screen
    moves = "b1c1d4c4d1a3b4a1d3d2pass"         # 4x4: black has no move at ply 11
    rec = Record(id="g1", size=4, black="Ann", white="Bob", date="2026-11-24", mode="full", moves=moves,
                 status="playing", result="")
    board = tmp_path / "b"
    Board(board, "watcher").join().close()      # a board folder with its marker
    Records(board).save(rec)
    r = subprocess.run([sys.executable, "-m", "peer", "replay", str(Records(board).path("g1")), "--no-color",
                        "--lang", "ja"], capture_output=True, text=True, timeout=60, encoding="utf-8")
    assert r.returncode == 0 and "#11 黒: パス" in r.stdout and "#10 白: d2" in r.stdout, r.stdout
    out = io.StringIO()
    follow(board, Screen("en", stream=out), until_over=False, timeout=0.3)
    assert "#11 black: pass" in out.getvalue() and "(d2)" not in out.getvalue(), out.getvalue()


def test_replay_of_a_fifo_and_watch_of_a_damaged_record_say_so(tmp_path):
    import os
    import subprocess
    import sys
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "fifo.game"
    os.mkfifo(fifo)
    r = subprocess.run([sys.executable, "-m", "peer", "replay", str(fifo)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "not a regular file" in r.stderr
    board = board_folder(tmp_path / "b")
    Records(board).save(Record(id="g1", size=8, moves="a1a1a1"))
    out = io.StringIO()
    follow(board, Screen("en", stream=out), until_over=False, timeout=0.5)
    assert out.getvalue().count("the game record on the board is damaged") == 1, out.getvalue()


def test_watch_without_a_board_and_an_unknown_command_say_so(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "peer", "watch", "--board", str(tmp_path / "nowhere"), "--lang", "en"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "There is no board at" in r.stderr and not r.stdout
    r = subprocess.run([sys.executable, "-m", "peer", "wacth"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "unknown command 'wacth'" in r.stderr
    assert all(f"python -m peer {c}" in r.stderr for c in ("demo", "watch", "replay", "bench"))


def test_errors_go_to_stderr(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "black.py", "--board", str(tmp_path / "b"), "--ai", "nosuch", "--lang", "en"],
                       capture_output=True, text=True, timeout=60, cwd=str(Path(__file__).resolve().parents[1]))
    assert r.returncode == 2 and "Cannot play: unknown AI 'nosuch'" in r.stderr and not r.stdout.strip()


def test_demo_runs_two_processes(tmp_path):
    import subprocess
    import sys
    import os
    (tmp_path / "tmp").mkdir()
    r = subprocess.run([sys.executable, "-m", "peer", "demo", "--pace", "0", "--time", "0.05", "--no-color",
                        "--board", str(tmp_path / "demo"), "--size", "6"],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, TMPDIR=str(tmp_path / "tmp")))
    assert r.returncode == 0, r.stdout + r.stderr
    assert not list((tmp_path / "tmp").glob("cardstand-demo-*"))       # its players' logs: removed
    assert "over" in r.stdout and "Game record" in r.stdout
    assert re.search(r"Game over: black \d+ - white \d+\. (\w+ \((black|white)\) wins|A draw)", r.stdout), r.stdout[-500:]
    rec = Records(tmp_path / "demo").current()
    assert (rec.black, rec.white) == ("alphabeta", "greedy")     # each side named by its AI


def test_game_time_budget_is_shared_out_and_kept(tmp_path):
    from peer.players import Clock
    from engine import Position
    c = Clock(per_game=10.0)
    first = c.for_move(Position.start())
    assert 0 < first < 1.0
    c.used(9.9)
    assert c.for_move(Position.start()) <= 0.05 + 1e-9
    resource = pytest.importorskip("resource")

    def cpu():
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime

    board = tmp_path / "b"
    t = cpu()
    b = player("black", board, "--ai", "iterative", "--game-time", "3")
    w = player("white", board, "--ai", "iterative", "--game-time", "3")
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0 and final_line(ob) == final_line(ow)
    # CPU time, not the wall clock: a loaded machine stretches the game but not the thinking;
    # a player that ignored its budget would think for its default 1 s a move, 30 s and more
    assert cpu() - t < 3 + 3 + 10, cpu() - t   # both budgets plus start-up and messaging


def test_best_pondering_on_two_threads_plays_a_whole_game(tmp_path):
    """--ponder: best thinks in the background while the other side thinks, and still answers
    every move in its time; --threads is checked."""
    board = tmp_path / "b"
    b = player("black", board, "--ai", "best", "--ponder", "--threads", 2, "--time", "0.05", "--seed", 3)
    w = player("white", board, "--ai", "greedy", "--time", "0.05", "--pace", "0.05")
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == rw == 0, ob[-800:] + ow[-800:]
    assert final_line(ob) == final_line(ow) and Records(board).current().status == "over"
    bad = player("black", tmp_path / "c", "--ai", "best", "--threads", "0")
    rc, out = finish(bad)
    assert rc == 2 and "threads must be a whole number 1..64" in out
    for ignored in (["--threads", "2"], ["--ponder"]):    # an AI that would not use them
        rc, out = finish(player("black", tmp_path / "d", "--ai", "greedy", *ignored))
        assert rc == 2 and "are for --ai best, not greedy" in out and not (tmp_path / "d").exists()
        rc, out = finish(player("black", tmp_path / "d", "--plain", *ignored))     # nor a person
        assert rc == 2 and "not for a person or --engine" in out and not (tmp_path / "d").exists()


def test_pondering_stops_when_the_opponent_leaves():
    from engine import Position, strategies
    from peer.players import Computer
    if strategies.compiled is None:
        pytest.skip("pondering is the compiled search's (the pure-Python one plays on its own time only)")
    c = Computer("best", time_limit=0.05, threads=1, ponder=True)
    p = Position.start().play("f5").play("d6").play("c3").play("d3")
    c.choose(p)
    assert c.strategy._pondering is not None and c.strategy._pondering.is_alive()
    c.rest()
    assert c.strategy._pondering is None


def test_a_side_without_a_name_is_called_by_its_ai_and_a_new_game_renames_nobody(tmp_path):
    """A computer side is called by its strategy (``greedy (black) wins``, not ``black (black)``);
    ``--name`` on a new game is simply the name, not a change from an earlier one (white joins the
    game black has just made, whose record has only the colour for white)."""
    board = tmp_path / "b"
    b = player("black", board, "--ai", "Greedy", "--time", "0.05", "--size", "6")
    w = player("white", board, "--ai", "random", "--seed", "1", "--name", "Wendy")
    (rb, ob), (rw, ow) = finish(b), finish(w)
    assert rb == rw == 0, (ob[-500:], ow[-500:])
    for out in (ob, ow):
        assert "Game on: greedy (black X) vs Wendy (white O) on 6x6." in out, out[:500]
        assert "is now" not in out and "(it was" not in out, out
        assert final_line(out).endswith(("greedy (black) wins.", "Wendy (white) wins.", "A draw.")), final_line(out)
    assert "greedy played" in ow
    rec = Records(board).current()
    assert (rec.black, rec.white) == ("greedy", "Wendy")
    # a person is "person" on the wire and in the record, in the other side's language on its screen
    board = tmp_path / "p"
    need_a_terminal()
    w = player("white", board, "--ai", "random", "--time", "0.05", "--lang", "ja", "--patience", "3")
    b = human("black", board, "--size", "4", "--lang", "en")
    b.expect(r"Game on: (\S+) \(black X\) vs (\S+) \(white O\) on 4x4\.")
    assert b.match.groups() == ("person", "random")
    b.expect("Your move")
    b.sendline("quit")
    b.expect("You left the game")
    rw, ow = finish(w)
    assert "対局開始: 人間（黒 X）対 random（白 O）、4×4の盤" in ow, ow
    assert Records(board).current().black == "person"


def test_a_name_is_at_most_64_characters_everywhere(tmp_path):
    """One limit (NAME_LIMIT): a longer --name is refused at the option check, in the screen's
    language, before anything is written; a name of 64 characters is the same in the greeting, the
    record and on both screens."""
    import subprocess
    import sys
    from peer.protocol import NAME_LIMIT
    board = tmp_path / "b"
    for lang, said in (("en", f"Cannot play: --name is 65 characters long; a name holds at most {NAME_LIMIT}"),
                       ("ja", f"対局できません: --name が 65 文字あります。名前は {NAME_LIMIT} 文字までです")):
        r = subprocess.run([sys.executable, "-m", "peer", "--color", "black", "--board", str(board), "--name", "n" * 65,
                            "--lang", lang], capture_output=True, text=True, encoding="utf-8", timeout=60)
        assert r.returncode == 2 and r.stderr.strip() == said, r.stderr
    assert not board.exists()
    name = "é" + "n" * (NAME_LIMIT - 1)
    b = player("black", board, "--ai", "random", "--name", name)
    w = player("white", board, "--ai", "random")
    (rb, ob), (rw, ow) = finish(b), finish(w)
    assert rb == rw == 0, (ob[-800:], ow[-800:])
    assert f"Game on: {name} (black X) vs random (white O)" in ob + ow and ow.count(name) >= 1
    assert Records(board).current().black == name


def test_watch_names_a_shaped_board_once_a_game(tmp_path):
    from comm import Board
    from engine import Shape
    from peer.cli import follow
    from peer.record import Record
    from peer.faces.plain import Screen
    board = tmp_path / "b"
    Board(board, "watcher").join().close()
    heart = Shape.named("Heart")
    Records(board).save(Record(id="g1", size=8, shape=heart.code(), black="Ann", white="Bob", date="2026-11-26",
                               mode="full", moves="", status="playing", result=""))
    out = io.StringIO()
    follow(board, Screen("en", stream=out), until_over=False, timeout=0.3)
    assert out.getvalue().count("Ann (black) - Bob (white), the Heart board") == 1, out.getvalue()
