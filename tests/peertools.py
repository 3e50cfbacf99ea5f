"""Helpers to run players as real processes."""
import hashlib
import os
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def board_folder(folder):
    """``folder`` made into a bare board as ``comm.Init`` leaves it (its marker and ``tmp/``), without
    joining: records and fakes need nothing more, and nothing is created in a folder without its marker."""
    from comm.board import VERSION
    folder = Path(folder)
    (folder / "tmp").mkdir(parents=True, exist_ok=True)
    (folder / "cardstand.board").write_text(f"cardstand-board {VERSION}\n")
    return folder


def game_board(folder, name, **kw):
    """A scripted game peer's ``comm.Board``: joined, and showing (P2 ``state``) that it speaks
    control lines, as game peers do (H9): our players greet only such an opponent."""
    from comm import Board
    board = Board(folder, name, **kw).join()
    board.beat("waiting")
    return board


def player(colour, board, *args, stdin=None, env=None):
    base = {k: v for k, v in os.environ.items() if k != "CARDSTAND_SECRET"}   # only the secret a test gives
    env = dict(base, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8", **(env or {}))
    proc = subprocess.Popen([sys.executable, str(ROOT / f"{colour}.py"), "--board", str(board), "--lang", "en",
                             *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=stdin or subprocess.DEVNULL,
                            text=True, encoding="utf-8", env=env, cwd=ROOT)
    if os.name == "nt":
        _READ[proc] = Output(proc)
    return proc


class Output:
    """A process's output read as it comes, by a thread of its own (``lines`` grows).  On Windows
    every player's is (``player``): a pipe holds 4 KB there, so a player whose output nobody reads
    while the test waits on the other stops in mid-game, and both wait for ever."""

    def __init__(self, proc):
        self.lines = []
        self.thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for line in stream:
            self.lines.append(line)


_READ = weakref.WeakKeyDictionary()     # the players whose output a thread reads (Windows)


def output(proc):
    """``proc``'s ``Output``: the one ``player`` started, or a new one."""
    if proc not in _READ:
        _READ[proc] = Output(proc)
    return _READ[proc]


def finish(proc, timeout=120):
    read = _READ.get(proc)
    if read is None:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    proc.wait(timeout=timeout)
    read.thread.join(timeout=timeout)
    return proc.returncode, "".join(read.lines)


def final_line(out):
    lines = [l for l in out.splitlines() if l.startswith("Game over")]
    return lines[-1] if lines else None


def file_hashes(top, skip=None):
    """sha256 of every file under ``top`` (not under ``skip``): proves a folder unchanged byte for byte."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        if skip and Path(dirpath).resolve().is_relative_to(Path(skip).resolve()):
            continue
        for f in filenames:
            p = Path(dirpath) / f
            out[str(p.relative_to(top))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def need_a_terminal():
    """Skip where ``human`` cannot run: call it before starting the player a person would face."""
    if os.name == "nt":
        import pytest
        pytest.skip("a pseudo-terminal is POSIX (pexpect's spawn): a person's player is tested on Linux")


def human(colour, board, *args):
    """A person's player in a pseudo-terminal (pexpect), plain output (NO_COLOR)."""
    need_a_terminal()
    import pexpect
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    return pexpect.spawn(sys.executable, [str(ROOT / f"{colour}.py"), "--board", str(board), *args],
                         env=env, cwd=str(ROOT), encoding="utf-8", timeout=30,
                         dimensions=(40, 400),     # (wide: the messages are not wrapped)
                         preexec_fn=default_sigint)


def default_sigint():
    """In a child about to start: Ctrl-C (SIGINT) as a terminal gives it, even if the test
    runner's worker ignores it (a child inherits an ignored signal, and Python then leaves it
    ignored)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def plies(board):
    """How many plies the board's current game record holds (0: none yet)."""
    from engine import Game
    from peer.record import Records
    rec = Records(board).current()
    return len(Game.from_transcript(rec.moves, size=rec.size).moves) if rec and rec.moves else 0


def wait_for(cond, timeout=60, what="the condition"):
    """What ``cond()`` gives once it is true; an AssertionError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"{what} did not happen within {timeout} s")
