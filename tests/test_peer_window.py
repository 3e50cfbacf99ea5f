"""The window (``--gui``): real games with the mouse.  Each window runs in a process of its own on
a virtual X server (Xvfb), is clicked with xdotool as a mouse would, and the assertions are on what
the window shows (its canvas items, labels and move list, read back from the widgets) and on the
game record the session wrote: a click that does not reach the session fails them."""
import os
import random
import re
import signal
import subprocess
import sys
import time

import pytest

from engine import BLACK, PASS, Game, Shape, notation
from peer.record import Record, Records
from peertools import ROOT, board_folder, player
from windowtools import Driven, start_display

pytestmark = pytest.mark.slow


def recorded(board, what, ok, timeout=10.0):
    """The board's current game record once ``ok(record)`` holds: the window shows a move or an
    end as soon as the session has it, a moment before the session's save is on the disk."""
    deadline = time.monotonic() + timeout
    while True:
        rec = Records(board).current()
        if rec is not None and ok(rec):
            return rec
        assert time.monotonic() < deadline, f"the record never showed {what}: {rec}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def display():
    proc, name = start_display()
    yield name
    proc.terminate()
    proc.wait()


def squares(position):
    """What the window should show for ``position``: B, W, # (a hole) or . per square."""
    return "".join("#" if position.holes >> sq & 1 else "." if c is None else "B" if c == BLACK else "W"
                   for sq, c in enumerate(map(position.colour_at, range(position.size ** 2))))


def legal_squares(shown):
    n = shown["board"]["size"]
    return {notation.square_name(i, n) for i, c in enumerate(shown["squares"]) if c == "*"}


def replayed(moves, size, shape=None):
    """The game the window's move list describes (``  3 ● d3`` lines; a pass in either language),
    from the start of ``shape`` (an ``engine.Shape``) when given."""
    g = Game(size, shape.start() if shape else None)
    for line in moves:
        move = line.split()[-1]
        g.play(-1 if move in ("pass", "パス") else move)
    return g


def my_turn(s, over):
    return "*" in s["squares"] or s["banner"].startswith(over)


def click_a_whole_game(me, board, size, disc, words, rnd, during=None, shape=None):
    """Play our side to the end by clicking random legal squares; at each turn the window must
    show the game its move list describes, exactly the engine's legal moves, and the right banner;
    each click must reach the session (the move is in the board's game record).  ``during(s, g)``
    runs at each turn.  Returns the last state shown."""
    while True:
        s = me.wait("our turn or the end", lambda s: my_turn(s, words["over"]))
        if s["banner"].startswith(words["over"]):
            return s
        g = replayed(s["moves"], size, shape)
        assert s["squares"].replace("*", ".") == squares(g.position)
        legal = legal_squares(s)
        assert legal == {notation.square_name(m, size) for m in g.position.legal_moves()}
        assert s["banner"] == (passed(s, words) or words["turn"])
        if during:
            during(s, g)
        move = rnd.choice(sorted(legal))
        me.click_square(move)
        ply = len(g.moves) + 1
        s = me.wait(f"{move} played", lambda s: len(s["moves"]) >= ply)
        assert s["moves"][ply - 1] == f"{ply:>3} {disc} {move}"
        rec = recorded(board, f"move {ply}", lambda r: len(r.game().moves) >= ply)
        assert rec.game().moves[ply - 1] == notation.parse_square(move, size)


def passed(s, words):
    """The pass the banner announces: one of the last two plies (the player who passed sees
    it on their next turn), or None."""
    for line in reversed(s["moves"][-2:]):
        if line.endswith(words["pass"]):
            return words["passed"].format(words["colours"]["●○".index(line.split()[1])])
    return None


def check_the_end(s, board, size, over, words):
    """The window shows the record's final position, its moves, and the result (only: not a pass
    just before it)."""
    rec = recorded(board, "the end", lambda r: r.status == "over")
    final = rec.game()
    assert s["squares"] == squares(final.position)
    assert [line.split()[-1] for line in s["moves"]] == [
        words["pass"] if m < 0 else notation.square_name(m, size) for m in final.moves]
    end = over.format(*final.position.discs())
    assert s["banner"] == end and s["turn"] == end
    return final


def test_a_whole_game_with_the_mouse_against_best_watched_in_a_second_window(tmp_path, display):
    board = tmp_path / "b"
    me = Driven(display, [ROOT / "black.py", "--board", board, "--lang", "en", "--name", "Ann"],
                tmp_path / "black.json", tmp_path / "black.out")
    white = player("white", board, "--ai", "best", "--time", "0.05", "--name", "Deep")
    watcher = None
    try:
        s = me.wait("the game on", lambda s: s["board"] is not None)
        assert s["title"] == f"Othello: black on {board}"
        watcher = Driven(display, ["-m", "peer", "watch", "--board", board, "--lang", "en"],
                         tmp_path / "watch.json", tmp_path / "watch.out")
        watcher.move_window(1000, 0)
        done = set()

        def during(s, g):
            if len(g.moves) >= 10 and "hint" not in done:
                me.click_button("hint")
                s = me.wait("a hint on the board", lambda s: s["hints"])
                assert set(s["hints"]) <= legal_squares(s) and all(re.fullmatch(r"~?[+-]\d+", v) for v in s["hints"].values())
                assert any(m.startswith("Hint: ") for m in s["messages"])
                me.screenshot("window-en-hint")      # (the README's picture)
                done.add("hint")
            if len(g.moves) >= 20 and "chat" not in done:
                me.type_chat("hello from the window")
                me.wait("our chat", lambda s: "> hello from the window" in s["messages"])
                done.add("chat")

        words = {"over": "Game over", "pass": "pass", "passed": "{} has no legal move and passes",
                 "colours": ("black", "white"), "turn": "Your turn (black): click a square"}
        s = click_a_whole_game(me, board, 8, "●", words, random.Random(5), during)
        final = check_the_end(s, board, 8, "Game over: black {} - white {}", words)
        b, w = final.position.discs()
        assert s["players"][0][0] == "● black Ann (person, you)" and s["players"][0][1] == str(b)
        assert s["players"][1][0] == "○ white Deep (computer)" and s["players"][1][1] == str(w)
        cell = s["board"]["cell"]
        discs = [(sq, mark) for sq, mark in enumerate(s["squares"]) if mark in "BW"]
        me.pixels("window-en", s, [((sq % 8 + 0.5) * cell, (sq // 8 + 0.3) * cell) for sq, _ in discs],
                  lambda i, px: (sum(px) < 150) == (discs[i][1] == "B"))    # the pixels agree with the canvas
        seen = watcher.wait("the whole game", lambda w: w["moves"] == s["moves"] and w["banner"] == s["banner"])
        assert seen["squares"] == s["squares"]
        assert seen["players"][0][0] == "● black Ann" and set(seen["buttons"]) == {"quit"}
        watcher.click_button("quit")
        assert watcher.finish()[0] == 0
        assert me.now()["buttons"]["quit"]["text"] == "Close"
        me.click_button("quit")
        code, out = me.finish()
        assert code == 0, out
        assert f"Game over: black {b} - white {w}" in out        # the summary, on the terminal
        wout, _ = white.communicate(timeout=30)
        assert "Ann says: hello from the window" in wout
    finally:
        me.kill()
        if watcher:
            watcher.kill()
        if white.poll() is None:
            white.kill()
    assert white.returncode == 0


def test_a_whole_game_in_japanese_on_6x6(tmp_path, display):
    board = tmp_path / "b"
    black = player("black", board, "--ai", "best", "--size", "6", "--time", "0.05")
    me = Driven(display, [ROOT / "white.py", "--board", board, "--lang", "ja", "--name", "花子"],
                tmp_path / "white.json", tmp_path / "white.out")
    try:
        s = me.wait("the game on", lambda s: s["board"] is not None)
        assert s["board"]["size"] == 6
        assert {k: b["text"] for k, b in s["buttons"].items()} == {
            "hint": "ヒント", "resign": "投了", "quit": "中断", "send": "送信"}
        assert s["players"][1][0] == "○ 白 花子（人間、あなた）"
        words = {"over": "対局終了", "pass": "パス", "passed": "{}は打てる場所がないのでパス",
                 "colours": ("黒", "白"), "turn": "あなたの番です（白）。マスをクリックしてください"}
        s = click_a_whole_game(me, board, 6, "○", words, random.Random(1))
        check_the_end(s, board, 6, "対局終了: 黒 {} - 白 {}", words)
        me.screenshot("window-ja")
        me.click_button("quit")
        code, out = me.finish()
        assert code == 0, out
        black.communicate(timeout=30)
        assert black.returncode == 0
    finally:
        me.kill()
        if black.poll() is None:
            black.kill()


def test_a_whole_game_on_a_shaped_board_with_the_mouse(tmp_path, display):
    """The Heart's holes are drawn as no square at all (the window's back, no disc, no
    legal mark, in the pixels too), a click on one is refused, and a whole game is clicked through."""
    heart = Shape.named("Heart")
    board = tmp_path / "b"
    me = Driven(display, [ROOT / "black.py", "--board", board, "--lang", "en", "--shape", "heart"],
                tmp_path / "black.json", tmp_path / "black.out")
    white = player("white", board, "--ai", "random", "--pace", "0.2")
    try:
        s = me.wait("the game on", lambda s: s["board"] is not None and "*" in s["squares"])
        assert s["squares"].replace("*", ".") == squares(heart.start())
        assert any("the Heart board" in m for m in s["messages"]), s["messages"]
        cell = s["board"]["cell"]
        felt, back = (0x2E, 0x7D, 0x32), (0x1E, 0x46, 0x20)
        probed = (0, 9, 16, 40)         # a1, a6 (holes); b2, a3 (squares): the pixels agree
        me.pixels("window-shape-start", s, [((sq % 8 + 0.5) * cell, (sq // 8 + 0.5) * cell) for sq in probed],
                  lambda i, px: px == (back if heart.holes >> probed[i] & 1 else felt))
        me.click_square("a2")
        me.wait("the hole refused", lambda s: any("a2 is a hole" in m for m in s["messages"]))
        words = {"over": "Game over", "pass": "pass", "passed": "{} has no legal move and passes",
                 "colours": ("black", "white"), "turn": "Your turn (black): click a square"}
        shot = {}

        def during(s, g):
            if len(g.moves) >= 16 and not shot:
                shot["at"] = me.screenshot("window-shape")      # (the README's picture)

        s = click_a_whole_game(me, board, 8, "●", words, random.Random(7), during, shape=heart)
        final = check_the_end(s, board, 8, "Game over: black {} - white {}", words)
        assert not (final.position.black | final.position.white) & heart.holes
        me.click_button("quit")
        code, out = me.finish()
        assert code == 0, out
        white.communicate(timeout=30)
    finally:
        me.kill()
        if white.poll() is None:
            white.kill()
    assert white.returncode == 0


@pytest.mark.parametrize("lang, words", [
    ("en", {"over": "Game over: black 2 - white 11", "passed": "black has no legal move and passes",
            "not_yours": "It is not your turn", "is_over": "The game is over."}),
    ("ja", {"over": "対局終了: 黒 2 - 白 11", "passed": "黒は打てる場所がないのでパス",
            "not_yours": "今はあなたの番ではありません", "is_over": "対局はもう終わっています。"})])
def test_after_the_end_the_strip_shows_the_result_and_a_click_says_the_game_is_over(tmp_path, display, lang, words):
    """On 4x4 against greedy, white's a1 c1 a3 d3 leave black no move (it passes) and c4 ends the
    game.  The strip says the result, not the pass; a click on the board says the game is over,
    both while the session waits for the opponent's result (G6: black is stopped) and after."""
    board = board_folder(tmp_path / "b")     # (made before both players start)
    black = player("black", board, "--ai", "greedy", "--size", "4", "--time", "0.05")
    me = Driven(display, [ROOT / "white.py", "--board", board, "--lang", lang], tmp_path / "w.json", tmp_path / "w.out")
    try:
        for ply, move in ((2, "a1"), (4, "c1"), (6, "a3"), (8, "d3"), (10, "c4")):
            s = me.wait(f"our move {ply}", lambda s: "*" in s["squares"] and len(s["moves"]) == ply - 1)
            if ply == 4:
                assert s["banner"] == {"en": "Your turn (white): click a square",
                                       "ja": "あなたの番です（白）。マスをクリックしてください"}[lang]
            if ply == 10:
                assert s["banner"] == words["passed"]       # (black's pass, announced until the end)
                os.kill(black.pid, signal.SIGSTOP)          # the opponent will not answer the end
            me.click_square(move)
        s = me.wait("the end", lambda s: len(s["moves"]) == 10 and s["banner"].startswith(words["over"][:4]))
        assert s["moves"][8].split()[-1] in ("pass", "パス")
        assert s["banner"] == words["over"] and s["turn"] == words["over"]
        assert not s["finished"]        # (the session waits for black's result)
        me.click_square("b4")
        s = me.wait("the game is over", lambda s: words["is_over"] in s["messages"])
        assert not any(words["not_yours"] in m for m in s["messages"])
        recorded(board, "the end", lambda r: r.status == "over")
        os.kill(black.pid, signal.SIGCONT)
        s = me.wait("the session done", lambda s: s["finished"])
        me.click_square("b4")
        s = me.wait("the game is over again", lambda s: s["messages"].count(words["is_over"]) == 2)
        assert s["banner"] == words["over"] and not any(words["not_yours"] in m for m in s["messages"])
        me.click_button("quit")
        code, out = me.finish()
        assert code == 0, out
        out, _ = black.communicate(timeout=30)
        assert black.returncode == 0, out
    finally:
        if black.poll() is None:
            os.kill(black.pid, signal.SIGCONT)
            black.kill()
        me.kill()


def test_resign_takes_a_second_click(tmp_path, display):
    board = tmp_path / "b"
    black = player("black", board, "--ai", "random", "--seed", "3", "--time", "0.05")
    me = Driven(display, [ROOT / "white.py", "--board", board, "--lang", "en"], tmp_path / "w.json", tmp_path / "w.out")
    try:
        s = me.wait("our turn", lambda s: "*" in s["squares"])
        me.click_button("resign", clicks=2)                      # a double click does not resign:
        s = me.wait("the question", lambda s: s["buttons"]["resign"]["text"] == "Resign? Click again")
        time.sleep(1.0)
        assert Records(board).current().status == "playing" and not me.now()["banner"].startswith("Game over")
        me.click_button("resign")                                 # a second decision does
        s = me.wait("the end", lambda s: s["banner"].startswith("Game over"))
        assert s["banner"] == "Game over: white resigned"
        recorded(board, "the resignation", lambda r: r.status == "resigned")
        assert s["buttons"]["resign"]["state"] == "disabled"
        assert not any("yes" in m for m in s["messages"])     # (the window asked, not the session)
        me.click_button("quit")
        code, out = me.finish()
        assert code == 0, out
        out, _ = black.communicate(timeout=30)
        assert black.returncode == 0 and "white resigned" in out
    finally:
        me.kill()
        if black.poll() is None:
            black.kill()


def test_quit_leaves_the_game_as_quit_does(tmp_path, display):
    board = tmp_path / "b"
    me = Driven(display, [ROOT / "black.py", "--board", board, "--lang", "en"], tmp_path / "b.json", tmp_path / "b.out")
    white = player("white", board, "--ai", "greedy", "--time", "0.05", "--patience", "1")
    try:
        s = me.wait("our turn", lambda s: "*" in s["squares"])
        me.click_square(sorted(legal_squares(s))[0])
        me.wait("our move", lambda s: len(s["moves"]) >= 2)
        me.click_button("quit")
        code, out = me.finish()
        assert code == 0, out
        out, _ = white.communicate(timeout=30)
        assert "person left the game" in out and white.returncode == 4     # (it waited its patience)
        assert Records(board).current().status == "playing"     # it can be resumed
    finally:
        me.kill()
        if white.poll() is None:
            white.kill()


def test_replay_of_a_26x26_game_steps_with_buttons_and_keys_and_resizes(tmp_path, display):
    g = Game(26)
    rnd = random.Random(2)
    while not g.position.is_game_over() and len(g.moves) < 40:
        legal = g.position.legal_moves()
        g.play(rnd.choice(legal) if legal else -1)
    moves = "".join(notation.square_name(m, 26) for m in g.moves)
    rec = Record(id="g1", size=26, black="Ann", white="Bob", moves=moves, status="playing")
    path = tmp_path / "g1.game"
    path.write_text(rec.text(), encoding="utf-8")
    me = Driven(display, ["-m", "peer", "replay", path, "--lang", "en"], tmp_path / "r.json", tmp_path / "r.out")
    try:
        s = me.wait("the start", lambda s: s["board"] is not None)
        assert s["board"]["size"] == 26 and s["squares"] == squares(g.positions[0]) and len(s["moves"]) == 40
        assert s["banner"].startswith("The start: 40 moves to replay") and s["turn"] == "Move 1: black to play"
        assert s["buttons"]["back"]["state"] == "disabled"
        for i in (1, 2, 3):
            me.click_button("next")
            s = me.wait(f"move {i}", lambda s: s["banner"].startswith(f"After move {i} of 40"))
            assert s["squares"] == squares(g.positions[i]) and s["selected"] == [i - 1]
            # the banner and the panel agree: after move i, move i + 1 is to play
            assert s["turn"].startswith(f"Move {i + 1}: "), (s["banner"], s["turn"])
        me.click_button("back")
        s = me.wait("move 2", lambda s: s["banner"].startswith("After move 2 of"))
        assert s["squares"] == squares(g.positions[2])
        me.xdotool("key", "End")
        s = me.wait("the last move", lambda s: s["banner"].startswith("After move 40 of"))
        assert s["squares"] == squares(g.position) and s["buttons"]["next"]["state"] == "disabled"
        cell = s["board"]["cell"]
        me.xdotool("search", "--sync", "--name", "^Othello: g1.game$", "windowsize", 640, 520)
        s = me.settled(lambda s: s["board"]["cell"] < cell * 0.8)
        assert s["squares"] == squares(g.position)
        me.click_button("quit")
        assert me.finish()[0] == 0
    finally:
        me.kill()


def test_without_a_display_it_says_why_and_changes_nothing(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    board = board_folder(tmp_path / "b")
    before = sorted(p.name for p in board.rglob("*"))
    for lang, says in (("en", "cannot open a window"), ("ja", "ウィンドウを開けません")):
        r = subprocess.run([sys.executable, "black.py", "--board", str(board), "--gui", "--lang", lang],
                           env=env, cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=60)
        assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert "--gui" in r.stderr
    r = subprocess.run([sys.executable, "-m", "peer", "watch", "--board", str(board), "--gui"],
                       env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "cannot open a window" in r.stderr
    assert sorted(p.name for p in board.rglob("*")) == before


def test_without_tkinter_it_names_the_package(tmp_path):
    code = ("import sys; sys.modules['tkinter'] = None; from peer.cli import main; "
            f"sys.exit(main(['--board', {str(tmp_path / 'b')!r}, '--gui', '--lang', 'en'], 'white'))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 2 and "python3-tk" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_every_window_leaves_on_one_signal(tmp_path, display, sig):
    """A playing window, a watching one and a replaying one, each sent one ``sig``: each leaves
    (the player as ``quit`` leaves), with exit code 0 and no traceback.  The wait is a hang
    detector, not a measure: before, a watching window never left on one signal."""
    board = board_folder(tmp_path / "watched")
    rec = Record(id="g1", size=8, black="Ann", white="Bob", moves="d3c3", status="playing")
    (tmp_path / "g1.game").write_text(rec.text(), encoding="utf-8")
    argvs = {"play": [ROOT / "black.py", "--board", tmp_path / "b", "--lang", "en"],
             "watch": ["-m", "peer", "watch", "--board", board, "--lang", "en"],
             "replay": ["-m", "peer", "replay", tmp_path / "g1.game", "--lang", "en"]}
    windows = {name: Driven(display, argv, tmp_path / f"{name}.json", tmp_path / f"{name}.out")
               for name, argv in argvs.items()}
    try:
        for name, window in windows.items():
            window.wait("the window", lambda s: s["title"])
        for window in windows.values():
            window.proc.send_signal(getattr(signal, sig))
        for name, window in windows.items():
            code, out = window.finish(timeout=5)
            assert code == 0 and "Traceback" not in out, (name, out)
        assert "You left the game" in windows["play"].output()
    finally:
        for window in windows.values():
            window.kill()


def whole_in(window, widget):
    """``widget`` (a centre and a size, from the window's state) lies wholly inside ``window``."""
    left, top = widget["x"] - widget["width"] / 2, widget["y"] - widget["height"] / 2
    return (window["x"] <= left and left + widget["width"] <= window["x"] + window["width"]
            and window["y"] <= top and top + widget["height"] <= window["y"] + window["height"])


def test_a_small_window_gives_the_board_the_space(tmp_path, display):
    """At the smallest size (520x420, more with larger fonts) the board keeps most of the window's
    height, the panel is narrower and every button is whole, none clipped by the panel (Quit was,
    under the messages, with the DejaVu fonts most Linux desktops have); a Japanese replay
    window's close button says close."""
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--time", "0.1")
    rec = Record(id="g1", size=8, black="Ann", white="Bob", moves="f5d6c3d3c4", status="playing")
    (tmp_path / "g1.game").write_text(rec.text(), encoding="utf-8")
    me = Driven(display, [ROOT / "black.py", "--board", board, "--lang", "en"], tmp_path / "p.json", tmp_path / "p.out")
    replay = Driven(display, ["-m", "peer", "replay", tmp_path / "g1.game", "--lang", "ja"], tmp_path / "r.json",
                    tmp_path / "r.out")
    try:
        for x, window, title in ((0, me, "^Othello: black on " + re.escape(str(board)) + "$"),
                                 (600, replay, r"g1\.game$")):
            s = window.settled(lambda s: s["board"] is not None)          # (as it opens: 960x680)
            assert not any(b["cut"] for b in s["buttons"].values()), s["buttons"]
            least = s["least"]          # (from this machine's fonts: 520x420 at least)
            assert least[0] >= 520 and least[1] >= 420
            window.xdotool("search", "--sync", "--name", title, "windowsize", *least, "windowmove", x, 0)
            s = window.settled(lambda s: (s["window"]["x"], s["window"]["width"], s["window"]["height"])
                               == (x, *least))
            side = s["board"]["cell"] * s["board"]["size"]
            assert side >= 0.6 * least[1], s["board"]          # (it was 94 px: the panel kept 330)
            panel = [b for key, b in s["buttons"].items() if key != "send"]
            assert s["board"]["x"] + side <= min(b["x"] - b["width"] / 2 for b in panel)     # beside the board
            for key, button in s["buttons"].items():
                assert whole_in(s["window"], button) and not button["cut"], (key, s["buttons"])
        me.screenshot("window-smallest")        # (README's picture of the smallest window: both moved apart)
        me.click_square("d3")                                   # the board takes clicks at this size
        me.wait("d3 played", lambda s: len(s["moves"]) >= 1 and s["moves"][0].endswith("d3"))
        assert replay.now()["buttons"]["quit"]["text"] == "閉じる"
        replay.click_button("quit")
        assert replay.finish()[0] == 0
        me.click_button("quit")
        assert me.finish()[0] == 0
    finally:
        me.kill()
        replay.kill()
        w.terminate()
        w.communicate(timeout=30)


def test_a_replay_announces_a_pass_on_the_pass_only():
    """A replay repeated a pass's words on the ply after it (play keeps them a ply longer, for the
    side that passed to see)."""
    from types import SimpleNamespace
    from peer.faces.window import Window
    played, after = SimpleNamespace(moves=[19, 18, PASS]), SimpleNamespace(moves=[19, 18, PASS, 17])
    replay, play = Window("en", mode="replay"), Window("en", mode="play")
    assert replay._passed(played) and play._passed(played)
    assert replay._passed(after) is None and play._passed(after)
