"""The start screen: ``python -m peer`` alone at a terminal asks what the options set, in English
or Japanese, then plays; ``--gui`` alone asks in a window; a script is never asked."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from peer.faces import start
from peertools import ROOT, default_sigint, final_line, finish, player

pexpect = pytest.importorskip("pexpect", reason="pexpect needs a POSIX pseudo-terminal")


def asked(cwd, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8", LANG="C.UTF-8")
    env.pop("LC_ALL", None)
    return pexpect.spawn(sys.executable, ["-m", "peer", *args], env=env, cwd=str(cwd), encoding="utf-8",
                         timeout=30, dimensions=(40, 400), preexec_fn=default_sigint)


def test_a_learner_starts_a_game_by_answering(tmp_path):
    board = tmp_path / "b"
    p = asked(tmp_path)
    p.expect(r"Language / 言語: 1 English, 2 日本語 \[default: 1\]: ")
    p.sendline("")
    p.expect(r"Board folder: .* \[default: " + str(tmp_path / "cardstand") + r"\]: ")
    p.sendline(str(board))
    p.expect(r"Your colour: 1 black \(moves first\), 2 white \[default: 1\]: ")
    p.sendline("3")
    p.expect("Type one of the numbers shown.")
    p.sendline("2")
    p.expect(r"Who plays it: 1 you, 2 a computer player, 3 your own AI \(a .py file\) \[default: 1\]: ")
    p.sendline("2")
    p.expect(r"6 best +the strongest")
    p.expect(r"Which computer player \(number or name\) \[default: 6\]: ")
    p.sendline("cleverest")
    p.expect("Not a computer player")
    p.sendline("2")
    p.expect(r"Board size, even 4..26 \(empty: the one black proposes\): ")
    p.sendline("")
    p.expect(r"Seconds per move for the computer \[default: 1\]: ")
    p.sendline("0.1")
    p.expect("Starting. Next time you can type:  python -m peer play --color white --board "
             + str(board) + " --lang en --ai greedy --time 0.1")
    b = player("black", board, "--ai", "random", "--time", "0.1")
    rb, ob = finish(b)
    p.expect(pexpect.EOF, timeout=120)
    p.close()
    assert rb == 0 and p.exitstatus == 0, ob[-600:]
    assert final_line(ob) in p.before, p.before[-600:]
    # the command is said again after the game (a live screen covered the first one)
    assert p.before.rstrip().endswith("The same answers next time (an unfinished game is resumed), type:  "
                                      "python -m peer play --color white --board " + str(board)
                                      + " --lang en --ai greedy --time 0.1"), p.before[-600:]
    assert "greedy (white O)" in ob


def test_in_japanese_and_a_folder_that_is_not_a_board_is_refused(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "essay.txt").write_text("mine")
    p = asked(tmp_path)
    p.expect(r"\[default: 1\]: ")
    p.sendline("2")
    p.expect(r"伝言台のフォルダー.*\[既定: ")
    p.sendline(str(tmp_path / "mine"))
    p.expect("essay.txt")          # said why, and asked again
    p.expect(r"伝言台のフォルダー")
    p.sendeof()
    p.expect("開始しませんでした。")
    p.expect(pexpect.EOF)
    p.close()
    assert p.exitstatus == 1
    assert [x.name for x in (tmp_path / "mine").iterdir()] == ["essay.txt"]


def test_a_script_is_never_asked(tmp_path):
    r = subprocess.run([sys.executable, "-m", "peer"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "commands:" in r.stderr and "Language" not in r.stdout + r.stderr


def test_the_choices_are_the_play_options():
    c = start.Choices(lang="ja", board="b d", colour="black", ai="mybot.py:Corners", size=10, time=0.5)
    assert c.argv() == ["--color", "black", "--board", "b d", "--lang", "ja", "--ai", "mybot.py:Corners",
                        "--time", "0.5", "--size", "10"]
    assert c.command() == "python -m peer play --color black --board 'b d' --lang ja --ai mybot.py:Corners " \
                          "--time 0.5 --size 10"
    # a folder or a file whose name starts with '-' is no option; '~' is the home folder, as a shell reads it
    c = start.Choices(board="-x", ai="-bot.py")
    assert c.argv()[:3] == ["--color", "black", "--board=-x"] and "--ai=-bot.py" in c.argv()
    from peer.cli import play_parser
    args = play_parser().parse_args(c.argv())
    assert args.board == "-x" and args.ai == "-bot.py"
    assert start.board_folder("-x") == str(Path.cwd() / "-x")
    assert start.board_folder("~/othello") == str(Path.home() / "othello")
    assert start.own_spec(" ~/mine/bot.py ") == str(Path.home() / "mine" / "bot.py")
    assert start.parse_size("7") is None and start.parse_size("10") == 10 and start.parse_size("٨") is None
    assert start.parse_time("0") is None and start.parse_time("nan") is None and start.parse_time("2") == 2
    assert start.parse_ai("1") == "random" and start.parse_ai("BEST") == "best" and start.parse_ai("9") is None


@pytest.fixture(scope="module")
def display():
    """One X display for the module's windows: Tk keeps its connection to a display in the
    process, and ends the process when that display goes away under it."""
    from windowtools import start_display
    proc, name = start_display()
    yield name
    proc.terminate()
    proc.wait()


def test_the_window_asks_the_same(tmp_path, monkeypatch, display):
    from tkinter import ttk
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.chdir(tmp_path)
    form = start.StartForm("en")
    form.build()
    form.root.update()
    assert form.labels["board"].cget("text").startswith("Board folder")
    # a form's words, not the terminal's numbered answers; themed widgets, not X11's 1990s ones
    assert form.labels["lang"].cget("text") == "Language" and form.labels["ai"].cget("text") == "Computer player"
    assert ttk.Style(form.root).theme_use() != "default"
    # the computer's fields wait until a computer plays
    assert form.ai_menu.instate(["disabled"]) and form.own_entry.instate(["disabled"])
    assert form.time_entry.instate(["disabled"])
    form.who_var.set("ai")
    form._enable()
    assert not form.ai_menu.instate(["disabled"]) and form.own_entry.instate(["disabled"])
    # black picks the board: the usual one first, other sizes, the shaped boards
    assert form.shape_var.get() == "8x8" and "Heart (8x8 with holes)" in form.shape_menu.cget("values")
    form.lang_var.set("ja")
    form._relabel()
    assert form.start_button.cget("text") == "開始" and form.root.title() == "伝言台オセロ: 新しい対局"
    assert form.shape_var.get() == "8×8" and "ハート（穴のある 8×8）" in form.shape_menu.cget("values")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "essay.txt").write_text("mine")
    form.board_var.set(str(tmp_path / "mine"))
    form.start_button.invoke()
    assert "essay.txt" in form.error.cget("text") and form.result is None
    form.board_var.set(str(tmp_path / "b"))
    form.ai_var.set("table - x")
    form.shape_var.set("ハート（穴のある 8×8）")
    form.start_button.invoke()
    assert form.result == start.Choices(lang="ja", board=str(tmp_path / "b"), colour="black", ai="table",
                                        size=None, shape="Heart", time=1.0, gui=True)
    assert form.result.argv()[-3:] == ["--shape", "Heart", "--gui"]
    form = start.StartForm("en")        # white takes black's board, or requires a size
    form.build()
    form.colour_var.set("white")
    form._colour_chosen()
    assert form.shape_var.get() == "the one black proposes"
    form.board_var.set(str(tmp_path / "b"))
    form.start_button.invoke()
    assert form.result == start.Choices(lang="en", board=str(tmp_path / "b"), colour="white", size=None,
                                        gui=True)


def test_black_is_offered_the_shaped_boards_at_the_terminal(tmp_path):
    own = tmp_path / "ring.txt"
    own.write_text("######\n#....#\n#.OX.#\n#.XO.#\n#....#\n######\n", encoding="utf-8")
    bad = tmp_path / "five.txt"
    bad.write_text(".....\n.....\n..OX.\n..XO.\n.....\n", encoding="utf-8")
    answers = iter(["", str(tmp_path / "b"), "1", "1", "3", "99", str(bad), "heart"])
    said = []
    c = start.ask_terminal(lambda prompt: said.append(prompt) or next(answers), said.append)
    assert c.shape == "Heart" and c.size is None and "--shape" in c.argv() and "--size" not in c.argv()
    text = "\n".join(said)
    assert "3 a shaped board" in text and "15 Heart" in text and "Not a board" in text
    assert "5x5" in text, text          # what is wrong with a picture file, not only "not a board"
    answers = iter(["2", "", "1", "1", "3", "", str(own)])       # in Japanese, one's own picture file
    said = []
    c = start.ask_terminal(lambda prompt: said.append(prompt) or next(answers), said.append)
    assert c.shape == str(own) and "ハート" in "\n".join(said)
    answers = iter(["", "", "1", "1", "2", "10"])                 # another size
    c = start.ask_terminal(lambda prompt: next(answers), lambda s: None)
    assert c.size == 10 and c.shape is None


def test_answers_that_are_no_answer_are_asked_again_never_a_traceback():
    """'²' is a digit to Python (int() refuses it), 5000 digits are over int()'s limit, a name of
    300 letters is too long for the system: each gave a traceback."""
    for text in ("²", "9" * 5000, "a" * 300, "x/" * 200 + "y.txt", "\x1b[2J", "0", "-1"):
        assert start.parse_ai(text) is None and start.parse_shape(text) is None, text
    assert start.board_problem("a\x1bb") and start.board_problem("a\nb")
    assert start.parse_shape("15") == "Heart" and start.parse_ai("6") == "best"


def test_the_questions_in_the_language_asked_and_no_command_after_a_start_that_failed(tmp_path):
    """``python -m peer --lang ja`` asks (it said "--color is required"); a start that fails (here:
    a folder that is a file's) prints no command to try again, which would fail the same way."""
    from peer.cli import _start_screen_options
    assert _start_screen_options(["--lang", "ja"]) == (False, "ja")
    assert _start_screen_options(["--gui", "--lang=en"]) == (True, "en")
    assert _start_screen_options(["--lang", "xx"]) is None and _start_screen_options(["--color", "black"]) is None
    p = asked(tmp_path, "--lang", "ja")
    p.expect(r"\[既定: 2\]: ")          # the language question: Japanese is the default now
    p.sendline("")
    p.expect(r"伝言台のフォルダー.*\[既定: ")
    p.sendeof()
    p.expect("開始しませんでした。")
    p.expect(pexpect.EOF)
    p.close()
    assert p.exitstatus == 1


@pytest.mark.parametrize("code, said", [(0, True), (5, True), (2, False), (3, False)])
def test_the_command_for_next_time_only_after_a_start_that_played(monkeypatch, capsys, code, said):
    from peer import cli
    monkeypatch.setattr(start.StartForm, "run", lambda self: start.Choices(board="/tmp/x", gui=True))
    monkeypatch.setattr(cli, "play", lambda argv: code)
    assert cli.start_screen(gui=True, lang="en") == code
    assert ("The same answers next time" in capsys.readouterr().out) == said


def test_an_unfinished_game_on_the_board_is_offered_before_the_board_is_asked(tmp_path):
    """The board's unfinished game went on without a word when the usual board was chosen, and
    another size failed with a message about --size and --new, options the person never typed."""
    from engine import Shape
    from peer.record import Record, Records
    from peertools import board_folder
    board = board_folder(tmp_path / "b")
    Records(board).save(Record(id="g-1", size=8, shape=Shape.named("Heart").code(), black="Ann", white="Bob",
                               moves="f5d6", status="playing"))
    said = []
    answers = iter(["", str(board), "1", "1", "1"])     # go on with it; black; you
    c = start.ask_terminal(lambda prompt: said.append(prompt) or next(answers), said.append)
    text = "\n".join(said)
    assert "unfinished game: Ann (black) - Bob (white) on the Heart board" in text and "move 3 next" in text, text
    assert c.resume and not c.new and not {"--size", "--shape", "--new"} & set(c.argv()), c.argv()
    assert "The board:" not in text         # (its record says the board)
    answers = iter(["2", str(board), "2", "1", "1", "2", "10"])     # in Japanese: a new game, 10x10
    said = []
    c = start.ask_terminal(lambda prompt: said.append(prompt) or next(answers), said.append)
    assert "途中の対局があります: Ann（黒）対 Bob（白）" in "\n".join(said)
    assert c.new and c.argv()[-3:] == ["--size", "10", "--new"], c.argv()
    # next time the new game is the unfinished one: the command resumes it, never closes it again
    assert "--new" not in c.command() and c.command().endswith("--size 10")


def test_the_window_form_goes_on_with_an_unfinished_game_or_closes_it_when_asked(tmp_path, monkeypatch, display):
    from engine import Shape
    from peer.record import Record, Records
    from peertools import board_folder
    board = board_folder(tmp_path / "b")
    Records(board).save(Record(id="g-1", size=8, shape=Shape.named("Heart").code(), black="Ann", white="Bob",
                               moves="f5d6", status="playing"))
    monkeypatch.setenv("DISPLAY", display)
    form = start.StartForm("en")
    form.build()
    form.board_var.set(str(board))
    form.shape_var.set("10x10")
    form.start_button.invoke()
    assert form.result.resume and not {"--size", "--shape", "--new"} & set(form.result.argv())
    form = start.StartForm("en")
    form.build()
    form.board_var.set(str(board))
    form.shape_var.set("10x10")
    form.new_var.set(True)
    form.start_button.invoke()
    assert form.result.new and form.result.argv()[-4:] == ["--size", "10", "--new", "--gui"], form.result.argv()
    assert "--new" not in form.result.command()


def test_the_window_offers_a_shares_tables(tmp_path, monkeypatch, display):
    from peertools import board_folder
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.chdir(tmp_path)
    share = tmp_path / "class"
    board_folder(share / "table-0001")
    form = start.StartForm("en")
    form.build()
    form.root.update()
    assert form.table_menu.instate(["disabled"])           # a board folder, not a share: no tables
    form.board_var.set(str(share))
    assert not form.table_menu.instate(["disabled"])
    assert list(form.table_menu.cget("values")) == ["the first one waiting for your colour", "table-0001"]
    form.start_button.invoke()
    assert form.result.share == str(share) and form.result.table is None
    assert form.result.argv()[:4] == ["--color", "black", "--share", str(share)] and "--board" not in form.result.argv()
    form = start.StartForm("en")
    form.build()
    form.board_var.set(str(share))
    form.table_var.set("../elsewhere")
    form.start_button.invoke()
    assert "cannot be a table's name" in form.error.cget("text") and form.result is None
    form.table_var.set("table-0001")
    form.start_button.invoke()
    assert form.result.argv()[2:6] == ["--share", str(share), "--table", "table-0001"]
