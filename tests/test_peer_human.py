"""A person at a (pseudo-)terminal: typos, hint, chat, resign, quit."""
import os
import signal
import time

import pytest

pexpect = pytest.importorskip("pexpect", reason="pexpect needs a POSIX pseudo-terminal")

from peer.record import Records  # noqa: E402

from peertools import board_folder, finish, human, player  # noqa: E402


def test_typos_hint_chat_and_resign(tmp_path):
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--name", "Bot")
    h = human("black", board, "--lang", "en", "--name", "Ann")
    h.expect("Your move")
    h.sendline("hello")
    h.expect("Unknown command 'hello'")
    h.sendline("z9")                        # the square is said once
    h.expect(r"\n(\S+) is off the 8x8 board \(a1..h8\)\. Legal moves: d3 c4 f5 e6")
    assert h.match.group(1) == "z9"
    h.sendline("a1")
    h.expect(r"\n(\S+) flips nothing\. Legal")
    assert h.match.group(1) == "a1"
    h.sendline("d4")
    h.expect(r"\n(\S+) is already taken\. Legal")
    assert h.match.group(1) == "d4"
    h.sendline("pass")                      # a reason that does not name it says what was typed
    h.expect(r"\npass: you cannot pass: there is a legal move\. Legal moves: d3 c4 f5 e6")
    h.sendline("help")
    h.expect("Commands:")
    h.sendline("hint")         # move 1 is not solved: every value is an estimate, and said so
    h.expect(r"Hint: ((d3|c4|f5|e6) ~[+-]\d+, ){2,3}(d3|c4|f5|e6) ~[+-]\d+ "
             r"\(discs ahead at the end with best play; ~: an estimate, not solved to the end\)")
    first = h.after
    h.sendline("hint")         # the same position: the same hint (an estimate does not wobble)
    h.expect(r"Hint: [^\r\n]*\)")
    assert h.after == first
    h.sendline("undo")
    h.expect("cannot be taken back")
    h.sendline("say")
    h.expect("Type the text after 'say'")
    h.sendline("say " + "日" * 1001)          # more than a chat line holds: not sent, and said why
    h.expect("Not sent: that is 1001 characters; a chat line holds at most 1000")
    h.sendline("say good luck")
    h.expect("sent")
    h.sendline("ｆ５")                       # full-width input works
    h.expect("You played f5")
    h.expect("Bot played")
    h.expect("Your move")
    h.sendline("resign")
    h.expect(r"Resign this game\? Type 'yes' \(or 'resign' again\) to resign, 'no' to go on playing\.")
    h.sendline("n")                         # no: said so, the game goes on
    h.expect("Not resigned: the game goes on.")
    h.sendline("n")                         # (no question asked now)
    h.expect("'n': there is no question to answer.")
    h.sendline("resign")
    h.expect("Resign this game")
    h.sendline("board")                     # another command goes on playing
    h.sendline("yes")
    h.expect("'yes': there is no question to answer.")
    h.sendline("resign")
    h.expect("Resign this game")
    h.sendline("maybe")                     # not an answer: asked again
    h.expect("'maybe' is not an answer: type 'yes' to resign, 'no' to go on playing.")
    h.sendline("yes")
    h.expect("You resigned")
    h.expect(r"Game over: black resigned \(black \d+ - white \d+ on the board\)\. Bot \(white\) wins\.")
    h.expect("Game record: ")
    h.expect(pexpect.EOF)
    rw, ow = finish(w)
    assert rw == 0 and "Ann says: good luck" in ow and "Ann resigned" in ow
    assert "Game over: black resigned" in ow and "Bot (white) wins" in ow and "Game record: " in ow
    rec = Records(board).current()
    assert rec.status == "resigned" and rec.black == "Ann" and rec.white == "Bot"


def test_quit_tells_the_other_side_and_japanese_text(tmp_path):
    board = tmp_path / "b"
    w = human("white", board, "--lang", "ja", "--name", "花子")
    b = human("black", board, "--lang", "en")
    b.expect("Your move")
    w.expect("対局開始")
    w.sendline("d3")
    w.expect("あなたの番ではありません")
    w.sendline("ヘルプ")
    w.expect("ヒント（hint）")
    b.sendline("f5")
    w.expect("人間は f5に打ちました")        # (black is a person without --name: "person", in Japanese)
    w.expect("あなたの番です")
    w.sendline("投了")
    w.expect("本当に投了しますか？ 投了するなら はい（または もう一度 投了）、続けるなら いいえ と入力してください。")
    w.sendline("いいえ")
    w.expect("投了を取り消しました。対局を続けます。")
    w.sendline("a1")
    w.expect(r"\n(\S+)では相手の石を1つも返せません。打てる場所:")
    assert w.match.group(1) == "a1"
    w.sendline("終了")
    w.expect("中断しました")
    w.expect(pexpect.EOF)
    b.expect("left the game")
    b.sendline("quit")
    b.expect("You left the game")
    b.expect(pexpect.EOF)
    assert Records(board).current().status == "playing"   # resumable


def test_a_computer_side_at_a_terminal_obeys_say_and_quit(tmp_path):
    board = tmp_path / "b"
    c = human("white", board, "--lang", "en", "--ai", "random", "--pace", "0.5")
    h = human("black", board, "--lang", "en", "--name", "Ann")
    h.expect("Your move")
    c.expect("Game on")
    c.sendline("d3")
    c.expect("The computer plays this side")
    c.sendline("say hi from the keyboard")
    c.expect("sent")
    h.expect("random says: hi from the keyboard")     # (--ai random's default name)
    c.sendline("quit")
    c.expect("You left the game")
    c.expect(pexpect.EOF)
    h.expect("left the game")
    h.sendline("quit")
    h.expect(pexpect.EOF)


def test_a_move_typed_before_the_opponent_came_says_the_game_has_not_started(tmp_path):
    h = human("black", tmp_path / "b", "--lang", "en")
    h.expect("Waiting for white to join")
    h.sendline("d3")
    h.expect("The game has not started yet: waiting for white")
    h.sendline("quit")
    h.expect(pexpect.EOF)


def test_ctrl_c_leaves_cleanly(tmp_path):
    board = tmp_path / "b"
    w = player("white", board, "--ai", "random", "--patience", "2")
    b = human("black", board, "--lang", "en")
    b.expect("Your move")
    b.sendintr()
    b.expect("You left the game")
    b.expect(pexpect.EOF)
    b.close()
    assert b.exitstatus == 0        # left as quit does (the opponent is told)
    rw, ow = finish(w)
    assert "left the game" in ow and rw == 4


def test_sigterm_leaves_as_quit_does_without_a_terminal(tmp_path):
    """A computer player without a terminal (no face) told SIGTERM says bye, as quit does."""
    import signal
    board = tmp_path / "b"
    w = player("white", board, "--ai", "random", "--patience", "2")
    b = player("black", board, "--ai", "random", "--pace", "0.3", "--patience", "60")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list((board / "records").glob("*.game")):
        time.sleep(0.1)
    time.sleep(1.0)
    b.send_signal(signal.SIGTERM)
    rb, ob = finish(b)
    rw, ow = finish(w)
    assert rb == 0 and "You left the game" in ob and "Traceback" not in ob, ob
    assert rw == 4 and "left the game" in ow, ow


def test_a_person_is_told_at_once_that_the_board_is_gone(tmp_path):
    """G7: on their own turn (the board untouched), a person learns within seconds that the folder
    went away, may quit (exit code 5, no traceback); the computer leaves after its patience."""
    import shutil
    board = tmp_path / "b"
    w = player("white", board, "--ai", "random", "--patience", "2")
    h = human("black", board, "--lang", "en")
    h.expect("Your move")
    while board.exists():       # (white may be writing in it meanwhile)
        shutil.rmtree(board, ignore_errors=True)
    h.expect("is gone", timeout=10)
    h.expect("waiting for the folder to come back")
    h.sendline("quit")
    h.expect("You left the game")
    h.expect(pexpect.EOF)
    h.close()
    assert h.exitstatus == 5 and "Traceback" not in h.before
    rw, ow = finish(w)
    assert rw == 5 and "did not come back within 2 s" in ow and "Traceback" not in ow


def test_a_solved_hint_is_exact_and_shows_every_move_of_the_best_value(tmp_path):
    """On 4x4 the first move is solved to the end: the four symmetric openings are worth the same,
    so the hint shows all four (not three of them), without '~'; in Japanese too."""
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--patience", "5")
    h = human("black", board, "--lang", "en", "--size", "4")
    h.expect("Your move")
    h.sendline("hint")
    h.expect(r"Hint: (\w\d) ([+-]\d+), (\w\d) \2, (\w\d) \2, (\w\d) \2 \(discs ahead at the end with best play\)")
    assert sorted(h.match.group(i) for i in (1, 3, 4, 5)) == ["a2", "b1", "c4", "d3"]
    h.sendline("quit")
    h.expect(pexpect.EOF)
    j = human("black", board, "--lang", "ja")      # back, resuming the game, on a Japanese screen
    j.expect("あなたの番です")
    j.sendline("ヒント")
    j.expect(r"ヒント: (\w\d [+-]\d+, ){3}\w\d [+-]\d+（最善を尽くしたときの最終石差）")
    j.sendline("終了")
    j.expect(pexpect.EOF)
    finish(w)


def test_a_move_typed_after_the_end_says_the_game_is_over(tmp_path):
    """On 4x4 against greedy, white's a1 c1 a3 d3 leave black no move and c4 ends the game; a move
    typed while white waits for black's result (G6: black is stopped) says the game is over."""
    board = board_folder(tmp_path / "b")
    b = player("black", board, "--ai", "greedy", "--size", "4", "--time", "0.05")
    h = human("white", board, "--lang", "en")
    try:
        for move in ("a1", "c1", "a3", "d3"):
            h.expect("Your move")
            h.sendline(move)
        h.expect("has no legal move and passes")
        h.expect("Your move")
        os.kill(b.pid, signal.SIGSTOP)
        h.sendline("c4")
        h.expect(r"Game over: black 2 - white 11\.")
        h.sendline("b4")
        assert h.expect(["The game is over\\.", "It is not your turn"]) == 0
        os.kill(b.pid, signal.SIGCONT)
        h.expect("Game record: ")
        h.expect(pexpect.EOF)
        rb, ob = finish(b)
        assert rb == 0, ob
    finally:
        if b.poll() is None:
            os.kill(b.pid, signal.SIGCONT)
            b.kill()
        h.close(force=True)


@pytest.mark.parametrize("seed", [1, 2])
def test_ctrl_c_at_any_moment_of_starting_leaves_nothing_on_the_board(tmp_path, seed):
    """One or two Ctrl+C at random moments of 0.2-1.5 s (loading the modules, joining the
    board, waiting for the opponent): the player ends quietly (no traceback, exit code 0 or 130),
    and leaves neither the board's lock nor a scratch folder of it behind."""
    import random
    import subprocess
    import sys
    from peertools import ROOT, default_sigint
    rng = random.Random(seed)
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    board = tmp_path / "b"
    for _ in range(8):
        p = subprocess.Popen([sys.executable, str(ROOT / "black.py"), "--board", str(board), "--lang", "en",
                              "--ai", "random"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             stdin=subprocess.DEVNULL, env=env, cwd=ROOT, preexec_fn=default_sigint)
        time.sleep(rng.uniform(0.2, 1.5))   # (before 0.1 s: Python's own start, no code of ours)
        p.send_signal(signal.SIGINT)
        if rng.random() < 0.5:
            time.sleep(rng.uniform(0, 0.05))
            p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=30)
        # (-SIGINT: the second one landed as Python was shutting down, the signals back to the system's
        # defaults; a shell sees 130 as for the others)
        assert p.returncode in (0, 130, -signal.SIGINT) and "Traceback" not in out, (p.returncode, out)
        left = [f.name for f in board.glob("lock*")] + [f.name for f in board.glob("tmp/lock-*")]
        assert not left, (left, out)


def test_a_ctrl_c_lost_while_the_modules_loaded_still_ends_the_player_before_the_board(tmp_path):
    """CPython drops an exception raised by a signal handler while it compiles a module (no .pyc):
    the Ctrl+C is remembered, and the player ends (130) before it joins the board."""
    import subprocess
    import sys
    from peertools import ROOT
    board = tmp_path / "b"
    code = ("import sys; from peer import installed; installed.check('black.py')\n"
            "try:\n    installed._quit(2, None)\nexcept SystemExit:\n    pass  # (as when it is lost)\n"
            "from peer.cli import main\n"
            f"sys.exit(main(['--board', {str(board)!r}, '--ai', 'random', '--lang', 'en'], colour='black'))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1"), stdin=subprocess.DEVNULL)
    assert p.returncode == 130 and "Traceback" not in p.stderr, (p.returncode, p.stderr)
    assert not board.exists()


def _program_run(code: str) -> "subprocess.CompletedProcess[str]":
    import subprocess
    import sys
    from peertools import ROOT
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1"), stdin=subprocess.DEVNULL)


def test_the_ctrl_c_that_ends_a_loading_program_leaves_later_ones_ignored():
    """A second Ctrl+C while the program exits (Python restores the system's handler at its
    shutdown) ended it with -2 instead of 130."""
    p = _program_run("import signal; from peer import installed; installed.check('black.py')\n"
                     "try:\n    installed._quit(2, None)\nexcept SystemExit:\n"
                     "    print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n")
    assert p.stdout == "True\n" and p.returncode == 0, p


def test_the_exit_of_a_ctrl_c_python_cannot_raise_is_not_reported():
    """A Ctrl+C landing in a callback Python cannot raise from (a weakref's, a gc's) printed
    'Exception ignored ... SystemExit: 130' before the program ended; other errors still print."""
    quiet = ("from peer import installed; installed.check('black.py')\n"
             "class A:\n    def __del__(self):\n        installed._quit(2, None)\n"
             "A()\nprint('on')\n")
    p = _program_run(quiet)
    assert p.stdout == "on\n" and p.stderr == "", p
    loud = quiet.replace("installed._quit(2, None)", "raise RuntimeError('kept')")
    p = _program_run(loud)
    assert "Exception ignored" in p.stderr and "kept" in p.stderr, p


def test_holding_off_survives_a_signal_pending_as_it_is_set(monkeypatch):
    """CPython raises 'OSError: Signal 2 ignored due to race condition' from signal.signal when a
    Ctrl+C came just before its handler became SIG_IGN: the handler is set all the same."""
    import signal as real
    from peer import installed
    calls = []
    set_handler = real.signal

    def racing(sig, handler):
        before = real.getsignal(sig)
        set_handler(sig, handler)
        calls.append((sig, before))
        if len(calls) == 1:
            raise OSError("Signal 2 ignored due to race condition")
        return before

    monkeypatch.setattr(installed.signal, "signal", racing)
    try:
        installed.hold_off()
        assert real.getsignal(real.SIGINT) is real.SIG_IGN
        assert len(calls) == len([n for n in installed.STOPPING if hasattr(real, n)])
    finally:
        monkeypatch.undo()
        for sig, before in calls:
            set_handler(sig, before)


def test_an_opponent_that_joins_and_leaves_before_the_game_is_waited_for_its_patience(tmp_path):
    """White joined and left (a Ctrl+C in its first half second) while black waited for its
    greeting: black waited forever (its 'bye' dropped, or its run taken for one not yet come).
    Now it is waited for --patience (exit 4), as in a game; an earlier game's white that had
    left before black started is still waited for without limit."""
    import time
    from peertools import game_board, player, finish
    board = tmp_path / "b"
    b = player("black", board, "--ai", "random", "--patience", "2")
    time.sleep(2.0)
    w = game_board(board, "white")
    w.close()                                   # joined and gone between two of black's looks
    code, out = finish(b, timeout=60)
    assert code == 4 and "Traceback" not in out, out
    # the next black, on that board: the white run that left is an earlier one's, not this game's
    b = player("black", board, "--ai", "random", "--patience", "1")
    try:
        time.sleep(5.0)
        assert b.poll() is None, b.communicate()[0]
    finally:
        b.kill()
        b.communicate()
