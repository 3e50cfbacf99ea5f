"""What a person sees at a real terminal: the player runs in a pseudo-terminal and its output is fed
to a terminal emulator (pyte); the assertions are on the rendered screen."""
import os
import sys
import time

import pytest

pexpect = pytest.importorskip("pexpect", reason="pexpect needs a POSIX pseudo-terminal")
pyte = pytest.importorskip("pyte")

from peertools import ROOT, human  # noqa: E402

ROWS, COLS = 40, 100


class Terminal:
    """A player in a pseudo-terminal, and the screen a person would see."""

    def __init__(self, colour, board, *args):
        env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PYTHONIOENCODING="utf-8",
                   PROMPT_TOOLKIT_NO_CPR="1")      # (pyte does not answer cursor position requests)
        env.pop("NO_COLOR", None)
        self.proc = pexpect.spawn(sys.executable, [str(ROOT / f"{colour}.py"), "--board", str(board), *args],
                                  env=env, cwd=str(ROOT), encoding="utf-8", timeout=30, dimensions=(ROWS, COLS))
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)

    def pump(self, seconds=0.3):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.stream.feed(self.proc.read_nonblocking(65536, timeout=0.05))
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                return

    def lines(self):
        return [line.rstrip() for line in self.screen.display]

    def wait_for(self, text, seconds=30):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.2)
            if any(text in line for line in self.lines()):
                return
        raise AssertionError(f"{text!r} never shown; the screen:\n" + "\n".join(self.lines()))

    def cursor_line(self):
        return self.lines()[self.screen.cursor.y]


def test_what_arrives_never_breaks_the_line_being_typed(tmp_path):
    board = tmp_path / "b"
    w = human("white", board, "--lang", "en", "--name", "Wendy")
    t = Terminal("black", board, "--lang", "en", "--name", "Ann")
    t.wait_for("Your move (black)")
    t.proc.send("f")                                # half typed
    t.pump()
    w.sendline("say hello while you type")
    t.wait_for("Wendy says: hello while you type")
    lines = t.lines()
    chat = next(i for i, line in enumerate(lines) if "Wendy says: hello while you type" in line)
    assert t.cursor_line() == "> f", lines          # the line being typed is whole, below the chat
    assert t.screen.cursor.y > chat
    t.proc.send("5\r")
    t.wait_for("You played f5.")
    t.proc.send("help\r")
    t.wait_for("Commands:")
    t.proc.send("\x1b[A")                           # Up: the last line again, to edit
    t.pump(0.5)
    assert t.cursor_line() == "> help", t.lines()
    assert not any("Unknown command" in line for line in t.lines())
    t.proc.send("\x15")                             # Ctrl+U: the line emptied
    t.pump(0.3)
    assert t.cursor_line() == ">", t.lines()
    t.proc.sendcontrol("c")                         # Ctrl+C leaves, as quit does
    t.wait_for("You left the game")
    t.proc.expect(pexpect.EOF)
    t.proc.close()
    assert t.proc.exitstatus == 0
    w.expect("left the game")
    w.sendline("quit")
    w.expect(pexpect.EOF)


def test_replay_steps_forward_and_back_and_lists_the_moves(tmp_path):
    from comm import Board
    from peer.record import Record, Records
    board = tmp_path / "b"
    Board(board, "watcher").join().close()
    Records(board).save(Record(id="g1", size=4, black="Ann", white="Bob", moves="b1c1d4c4d1a3b4a1d3d2pass",
                               status="playing"))
    path = str(Records(board).path("g1"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PYTHONIOENCODING="utf-8")
    env.pop("NO_COLOR", None)
    r = pexpect.spawn(sys.executable, ["-m", "peer", "replay", path, "--lang", "en"], env=env, cwd=str(ROOT),
                      encoding="utf-8", timeout=20)
    r.expect(r"move 0 of 11")
    r.sendline("")
    r.expect(r"#1 black: b1")
    r.expect(r"move 1 of 11")
    r.sendline("11")
    r.expect(r"#11 black: pass")
    r.expect(r"playing")
    r.sendline("b")
    r.expect(r"#10 white: d2")
    r.sendline("x")
    r.expect("Enter: the next move")
    r.sendline("q")
    r.expect(pexpect.EOF)
    r.close()
    assert r.exitstatus == 0
    listed = pexpect.run(f"{sys.executable} -m peer replay {path} --moves --lang ja", env=env, cwd=str(ROOT),
                         encoding="utf-8", timeout=20)
    assert "1.b1 2.c1 3.d4" in listed and "11.パス" in listed and "対局中" in listed, listed
