"""What a person sees at a real terminal: the player runs in a pseudo-terminal and its output is fed
to a terminal emulator (pyte); the assertions are on the rendered screen."""
import os
import re
import sys
import time

import pytest

pexpect = pytest.importorskip("pexpect", reason="pexpect needs a POSIX pseudo-terminal")
pyte = pytest.importorskip("pyte")

from engine import Position, notation  # noqa: E402
from peertools import ROOT, board_folder, human, player  # noqa: E402

ROWS, COLS = 40, 100


class Terminal:
    """A player in a pseudo-terminal, and the screen a person would see."""

    def __init__(self, colour, board, *args, rows=ROWS, cols=COLS):
        env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PYTHONIOENCODING="utf-8",
                   PROMPT_TOOLKIT_NO_CPR="1")      # (pyte does not answer cursor position requests)
        env.pop("NO_COLOR", None)
        self.proc = pexpect.spawn(sys.executable, [str(ROOT / f"{colour}.py"), "--board", str(board), *args],
                                  env=env, cwd=str(ROOT), encoding="utf-8", timeout=30, dimensions=(rows, cols))
        self.screen = pyte.Screen(cols, rows)
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

    def shown(self):
        return "\n".join(self.lines())

    def wait_for(self, text, seconds=30):
        """Until ``text`` (a string, or a test of the screen's lines) is on the screen."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.2)
            lines = self.lines()
            try:
                if text(lines) if callable(text) else any(text in line for line in lines):
                    return lines
            except StopIteration:       # (a ``row`` not on the screen yet)
                pass
        raise AssertionError(f"{text!r} never shown; the screen:\n" + self.shown())

    def row(self, text):
        """The number of the first screen line holding ``text``."""
        return next(i for i, line in enumerate(self.lines()) if text in line)

    def cursor_line(self):
        return self.lines()[self.screen.cursor.y]

    def square(self, name):
        """The character cell of the board square ``name`` (``f5``): its ``data``, ``fg``, ``bg``."""
        x, y = ord(name[0]) - ord("a"), int(name[1:])
        top = self.row("     a b c")
        header = self.lines()[top]
        return self.screen.buffer[top + y][header.index("a") + 2 * x]

    def resize(self, rows, cols):
        self.screen.resize(rows, cols)
        self.proc.setwinsize(rows, cols)


def test_a_game_on_the_live_screen(tmp_path):
    """The board, both players, the move list, counts, live state and highlights, drawn in place;
    chat arriving mid-line, history, Ctrl+U, a resize, and a resignation with its result."""
    board = tmp_path / "b"
    w = human("white", board, "--lang", "en", "--name", "Wendy")
    t = Terminal("black", board, "--lang", "en", "--name", "Ann")
    t.wait_for("Move 1: black to play")
    assert "black Ann (person, you)" in t.shown() and "white Wendy (person)" in t.shown()
    assert t.square("d3").data != t.square("a1").data == "."     # a legal move is marked
    assert t.row("black Ann") == t.row("     a b c")             # the players beside the board
    t.proc.send("f")                                # half typed
    t.pump()
    w.sendline("say hello while you type")
    t.wait_for("Wendy says: hello while you type")
    assert t.cursor_line() == "> f", t.shown()      # the line being typed is whole
    t.proc.send("5\r")
    t.wait_for(" 1 f5")
    lines = t.wait_for(lambda lines: any(re.search(r"thinking [1-9][0-9]* s", l) for l in lines))
    white_state = lines[t.row("white Wendy") + 1]
    assert re.search(r"thinking [1-9][0-9]* s", white_state), t.shown()   # the opponent's live state
    assert lines[t.row("black Ann")].endswith("4") and lines[t.row("white Wendy")].endswith("1")
    assert t.square("f5").bg == "red" and t.square("e5").bg in ("brown", "yellow")   # last move, flip
    assert t.square("d4").bg == "green"
    assert "Last move: f5" in t.shown() and "Move 2: white to play" in t.shown()
    w.sendline("d6")
    t.wait_for(" 2 d6")
    pos = Position.start().play("f5").play("d6")
    legal = {notation.square_name(m, 8) for m in pos.legal_moves()}
    marked = {f"{c}{r}" for c in "abcdefgh" for r in range(1, 9) if t.square(f"{c}{r}").data == "·"}
    assert marked == legal, t.shown()

    t.resize(34, 40)                                # narrow: the players go above the board
    t.wait_for(lambda lines: t.row("black Ann") < t.row("white Wendy") < t.row("Move 3") < t.row("     a b c"))
    t.resize(ROWS, COLS)
    t.wait_for(lambda lines: t.row("black Ann") == t.row("     a b c"))

    for i in range(24):                             # a flood of chat while the terminal is resized
        w.sendline(f"say flood {i} " + "words " * 30)
        if i % 6 == 3:
            t.resize(ROWS - i // 6, COLS - 3 * (i // 6))
            t.pump(0.1)
    t.resize(ROWS, COLS)
    t.wait_for("flood 23", seconds=60)
    assert "xception" not in t.shown(), t.shown()   # (prompt_toolkit's "Unhandled exception")
    t.proc.send("\x1b[200~say one\nsay two\r\n\x1b[201~")   # two lines pasted at once: two commands
    w.expect("Ann says: one")
    w.expect("Ann says: two")

    t.proc.send("help\r")
    t.wait_for("Commands:")
    t.proc.send("\x1b[A")                           # Up: the last line again, to edit
    t.pump(0.5)
    assert t.cursor_line() == "> help", t.shown()
    assert "Unknown command" not in t.shown()
    t.proc.send("\x15")                             # Ctrl+U: the line emptied
    t.pump(0.3)
    assert t.cursor_line() == ">", t.shown()

    t.proc.send("hint\r")                           # an estimate, marked as one
    t.wait_for(lambda lines: any(re.search(r"Hint: [a-h][1-8] ~[+-]\d+", line) for line in lines))
    t.proc.send("resign\r")
    t.wait_for("Resign this game?")
    t.proc.send("n\r")                              # no: the game goes on, and it says so
    t.wait_for("Not resigned: the game goes on.")
    t.proc.send("resign\r")
    t.wait_for(lambda lines: sum("Resign this game?" in line for line in lines) == 2)
    t.proc.send("yes\r")
    t.wait_for("Game over: black resigned")
    w.expect("Ann resigned")
    w.expect(r"Game record: \S+")
    t.proc.expect(pexpect.EOF)                      # the end acknowledged: the program stops
    t.proc.close()
    assert t.proc.exitstatus == 0
    t.stream.feed(t.proc.before or "")
    assert "Game record:" in t.shown()              # what stays on the terminal afterwards
    w.expect(pexpect.EOF)


def test_a_pass_in_japanese_against_a_computer(tmp_path):
    """A pass in the move list, a computer opponent's kind, everything in Japanese; Ctrl+C leaves."""
    from peer.record import Record, Records
    board = tmp_path / "b"
    board_folder(board)
    Records(board).save(Record(id="g1", size=4, black="Ann", white="Bob", moves="b1c1d4c4d1a3b4a1d3d2",
                               status="playing"))
    w = player("white", board, "--ai", "greedy", "--time", "0.1")
    t = Terminal("black", board, "--lang", "ja")
    lines = t.wait_for("11 パス")                    # black has no move: it passes, and white plays on
    top = lines[:t.row("────")]
    assert "黒 Ann（人間、あなた）" in "\n".join(top) and "白 Bob（コンピューター）" in "\n".join(top)
    english = set(re.findall(r"[A-Za-z][A-Za-z_-]+", "\n".join(top))) - {"Ann", "Bob"}
    assert not english, "\n".join(top)
    assert "12 a4" in t.wait_for("12 a4")[t.row("12 a4")]
    t.proc.sendcontrol("c")                         # Ctrl+C leaves, as quit does
    t.proc.expect(pexpect.EOF)
    t.proc.close()
    assert t.proc.exitstatus == 0
    t.stream.feed(t.proc.before or "")
    assert "対局を中断しました" in t.shown()
    w.terminate()
    w.communicate(timeout=30)


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


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_plain_lines_wrap_to_a_narrow_terminal(tmp_path, lang):
    """Plain mode at a 40-column terminal: the help is broken between words (or Japanese
    characters), never cut by the terminal in the middle of one."""
    from peer.faces import texts
    from peer.faces.plain import cwidth
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    p = pexpect.spawn(sys.executable, [str(ROOT / "black.py"), "--board", str(tmp_path / "b"), "--lang", lang],
                      env=env, cwd=str(ROOT), encoding="utf-8", timeout=20, dimensions=(24, 40))
    p.expect("伝言台" if lang == "ja" else "Waiting for")
    p.sendline("say hi")                            # before the opponent joined: not started yet
    p.expect("始まっていません" if lang == "ja" else "has not started")
    p.sendline("xyzzy")
    p.expect("わからないコマンド" if lang == "ja" else "Unknown command")
    p.sendline("help")
    text = texts.text(lang, "help")
    p.expect(text[:8])
    p.expect(r"(?:help|ヘルプ（help）)。?\.?\r\n")
    lines = (text[:8] + p.before + p.after).replace("\r\n", "\n").strip().split("\n")
    assert len(lines) > 3 and all(cwidth(line) <= 40 for line in lines), lines
    joined = (" " if lang == "en" else "").join(lines)
    assert joined.replace(" ", "") == text.replace(" ", "") and (lang == "ja" or joined == text), lines
    p.sendline("quit")
    p.expect(pexpect.EOF)


def test_the_terminal_closed_is_leaving(tmp_path):
    """SIGHUP (the terminal window closed) leaves as quit does: bye to the opponent, exit 0."""
    import signal
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--time", "0.1")
    t = Terminal("black", board, "--lang", "en", "--size", "4")
    t.wait_for("Move 1: black to play")
    t.proc.kill(signal.SIGHUP)
    t.proc.expect(pexpect.EOF)
    t.proc.close()
    assert t.proc.exitstatus == 0, (t.proc.exitstatus, t.proc.signalstatus)
    w.terminate()
    out, _ = w.communicate(timeout=30)
    assert "person left the game" in out, out      # (a person's default name)


def board_rows(lines, size=8):
    """The board's row numbers shown whole (each with its ``size`` squares) under its letters."""
    letters = " ".join("abcdefghijklmnopqrstuvwxyz"[:size])
    top = next((i for i, line in enumerate(lines) if line.startswith("     " + letters)), None)
    if top is None:
        return []
    rows = []
    for y, line in enumerate(lines[top + 1:top + 1 + size], 1):
        if re.match(rf"{y:>3}  ([.·●○] ){{{size - 1}}}[.·●○]", line):
            rows.append(y)
    return rows


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_board_stays_whole_in_a_small_terminal(tmp_path, lang):
    """The board is what stays: at 40x15 (the panel above it), 60x12 (beside it) and 80x24 every
    row is there, with whose turn it is and the input line; the panel, the move list, the rule
    and the messages give way first.  A terminal too small for the board says what it needs."""
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--time", "0.1")
    t = Terminal("black", board, "--lang", lang, rows=15, cols=40)
    turn = "1 手目: 黒の番" if lang == "ja" else "Move 1: black to play"
    needs = "幅 21 桁、高さ 11 行" if lang == "ja" else "at least 21 columns wide and 11 lines high"
    try:
        for rows, cols in ((15, 40), (12, 60), (24, 80), (11, 21), (40, 100)):
            t.resize(rows, cols)
            least = (rows, cols) == (11, 21)        # the board, a line of messages, the input line
            lines = t.wait_for(lambda lines: board_rows(lines) == list(range(1, 9))
                               and (least or any(turn in l for l in lines)))
            assert lines[-1].startswith(">"), t.shown()                     # the input line
            if not least:
                assert t.row("黒" if lang == "ja" else "black") < t.row("白" if lang == "ja" else "white")
            if cols == 60:
                assert t.row(turn) < t.row("  8 ")                          # beside the board
            if rows >= 24:
                assert "Ctrl+C" in t.shown() and "────" in t.shown()        # room for the rule and the keys
        for rows, cols in ((10, 21), (24, 20), (6, 60)):
            t.resize(rows, cols)
            lines = t.wait_for(lambda lines: needs.replace(" ", "") in "".join(lines).replace(" ", ""))
            assert board_rows(lines) == [] and lines[-1].startswith(">"), t.shown()
        t.resize(24, 80)
        t.wait_for(lambda lines: board_rows(lines) == list(range(1, 9)))
        t.proc.send("quit\r")
        t.proc.expect(pexpect.EOF)
    finally:
        t.proc.close(force=True)
        w.terminate()
        w.communicate(timeout=30)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_long_message_in_a_small_terminal_keeps_its_start(tmp_path, lang):
    """At 40x12 the messages have one line: a hint there shows its moves (its first line, cut
    with …), not the end of its explanation; a larger terminal shows it whole."""
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--time", "0.1")
    t = Terminal("black", board, "--lang", lang, rows=12, cols=40)
    hint = r"(Hint|ヒント): [a-h][1-8] ~[+-]\d+"
    try:
        t.wait_for(lambda lines: board_rows(lines) == list(range(1, 9)))
        t.proc.send("hint\r")
        lines = t.wait_for(lambda lines: any(re.search(hint, line) for line in lines))
        said = next(line for line in lines if re.search(hint, line))
        assert said.endswith("…") and lines[-1].startswith(">"), t.shown()
        assert board_rows(lines) == list(range(1, 9)), t.shown()
        t.resize(40, 100)
        t.wait_for("読み切っていない見込み" if lang == "ja" else "discs ahead at the end with best play")
        t.proc.send("quit\r")
        t.proc.expect(pexpect.EOF)
    finally:
        t.proc.close(force=True)
        w.terminate()
        w.communicate(timeout=30)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_at_50x16_a_hint_is_whole_and_what_has_no_room_is_one_command_away(tmp_path, lang):
    """At 50x16 the hint was cut ("discs ahead at th…") and the moves, the last move and the clocks
    were hidden with no way to see them: two lines of messages come before the keys line now, and
    'moves' says the moves and the time used."""
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--time", "0.1")
    t = Terminal("black", board, "--lang", lang, rows=16, cols=50)
    try:
        t.wait_for(lambda lines: board_rows(lines) == list(range(1, 9)))
        t.proc.send("f5\r")
        t.wait_for(lambda lines: any(re.search(r"(Move 3|3 手目)", line) for line in lines))
        t.proc.send("hint\r")
        end = "読み切っていない見込み" if lang == "ja" else "discs ahead at the end with best play"
        lines = t.wait_for(lambda lines: any(re.search(r"(Hint|ヒント): [a-h][1-8]", line) for line in lines))
        t.pump(0.5)
        assert end.split()[-1] in t.shown().replace("\n", " ") or end in "".join(t.lines()), t.shown()
        assert not any(line.endswith("…") for line in t.lines()), t.shown()
        assert board_rows(t.lines()) == list(range(1, 9)), t.shown()
        t.proc.send("moves\r" if lang == "en" else "棋譜\r")
        lines = t.wait_for("Time used: black " if lang == "en" else "使った時間: 黒 ")
        said = " ".join(t.lines())
        assert re.search(r"(the last first|新しい順）): 2 [a-h][1-8] 1 f5", said), t.shown()
        t.proc.send("quit\r")
        t.proc.expect(pexpect.EOF)
    finally:
        t.proc.close(force=True)
        w.terminate()
        w.communicate(timeout=30)


def test_the_demo_is_drawn_on_the_live_screen(tmp_path):
    """At a terminal the demo is watched on the live screen (the board in place, the players by
    their AI's name, whose turn); at the end the final board and the record stay on the terminal."""
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PYTHONIOENCODING="utf-8", PROMPT_TOOLKIT_NO_CPR="1",
               TMPDIR=str(tmp_path / "tmp"))
    env.pop("NO_COLOR", None)
    proc = pexpect.spawn(sys.executable, ["-m", "peer", "demo", "--size", "4", "--pace", "0.8", "--time", "0.05",
                                          "--lang", "en", "--board", str(tmp_path / "b")],
                         env=env, cwd=str(ROOT), encoding="utf-8", timeout=60, dimensions=(24, 80))
    t = Terminal.__new__(Terminal)
    t.proc, t.screen = proc, pyte.Screen(80, 24)
    t.stream = pyte.Stream(t.screen)
    lines = t.wait_for(lambda lines: board_rows(lines, 4) == list(range(1, 5)) and "white greedy" in t.shown()
                       and any("Move 3: black to play" in l for l in lines))
    assert t.row("black alphabeta") == t.row("     a b c d"), t.shown()
    assert "watching" in lines[-2], t.shown()                   # the keys line
    proc.expect(pexpect.EOF)
    proc.close()
    assert proc.exitstatus == 0
    t.stream.feed(proc.before or "")
    assert "Game record:" in t.shown() and "python -m peer replay" in t.shown(), t.shown()
    assert not list((tmp_path / "tmp").glob("cardstand-demo-*"))        # the players' logs are gone
    # the result is announced as a player's screen says it, and "no game yet" is not left standing
    shown = t.shown()
    assert "Game on: alphabeta (black" in shown and "vs greedy (white" in shown, shown
    assert shown.find("No game on this board yet.") < shown.index("Game on:") < shown.index("Game over: black ")
    assert " wins." in shown or "draw" in shown.lower(), shown


@pytest.mark.parametrize("key", ["q\r", "\x03"])
def test_the_demo_stops_at_q_and_ctrl_c(tmp_path, key):
    """q (and Ctrl+C) on the demo's live screen stop it at once: the players are stopped (they
    leave the board), the record is named, and nothing is left in the temporary folder."""
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", PYTHONIOENCODING="utf-8", PROMPT_TOOLKIT_NO_CPR="1",
               TMPDIR=str(tmp_path / "tmp"))
    env.pop("NO_COLOR", None)
    board = tmp_path / "b"
    proc = pexpect.spawn(sys.executable, ["-m", "peer", "demo", "--pace", "0.5", "--time", "0.05", "--lang", "en",
                                          "--board", str(board)],
                         env=env, cwd=str(ROOT), encoding="utf-8", timeout=30, dimensions=(24, 80))
    t = Terminal.__new__(Terminal)
    t.proc, t.screen = proc, pyte.Screen(80, 24)
    t.stream = pyte.Stream(t.screen)
    t.wait_for("Move 3: black to play")
    proc.send(key)
    started = time.monotonic()
    proc.expect(pexpect.EOF, timeout=20)
    proc.close()
    assert proc.exitstatus == 0 and time.monotonic() - started < 15
    t.stream.feed(proc.before or "")
    assert "Game record:" in t.shown(), t.shown()
    assert not any((board / "box" / c / "alive").exists() for c in ("black", "white"))    # they left (I6)
    assert not list((tmp_path / "tmp").glob("cardstand-demo-*"))


def test_holes_on_the_live_screen(tmp_path):
    """A shaped board: a hole is drawn '#' off the green, never marked as a move."""
    from engine import Shape
    heart = Shape.named("Heart")
    board = tmp_path / "b"
    t = Terminal("black", board, "--lang", "en", "--shape", "heart")
    w = player("white", board, "--ai", "random")
    try:
        t.wait_for("Move 1: black to play")
        for y in range(8):
            for x in range(8):
                sq = t.square(f"{chr(97 + x)}{y + 1}")
                if heart.holes >> (y * 8 + x) & 1:
                    assert sq.data == "#" and sq.bg != "green", (x, y, t.shown())
                else:
                    assert sq.data != "#" and sq.bg == "green", (x, y, t.shown())
        legal = {notation.square_name(m, 8) for m in heart.start().legal_moves()}
        marked = {f"{c}{r}" for c in "abcdefgh" for r in range(1, 9) if t.square(f"{c}{r}").data == "·"}
        assert marked == legal, t.shown()
        t.proc.send("a2\r")                     # a hole: refused, said why
        t.wait_for("a2 is a hole: not part of this board")
        t.proc.send("quit\r")
        t.proc.expect(pexpect.EOF, timeout=30)
    finally:
        t.proc.terminate(force=True)
        w.kill()
        w.wait()
