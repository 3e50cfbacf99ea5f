"""Tables on a share: the read-only look at a board (``comm.look``), what a table is doing
(``peer.tables``), where a player started with ``--share`` sits, and that looking (a lobby, a
watcher) never writes to a table, whatever it holds."""
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from comm import Board
from comm.look import Beats, Seat, look
from peer.faces.plain import Screen
from peer.faces.records import follow
from peer.record import Record, Records
from peer.tables import (EMPTY, ENDED, LEFT, PLAYING, WAITING, Seating, ShareError, Tables, check_share, judge, usable_table,
                         new_table, table_folder, table_names)
from peertools import ROOT, board_folder


def tree(top):
    """Every name under ``top`` with its kind and size (links not followed): proves nothing changed."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            st = p.lstat()
            out[str(p.relative_to(top))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def hostile_table(share, name="table-0001"):
    """A table whose fixed folders are what a writer would set aside and make again: ``box`` a link
    out of the board, ``records`` a FIFO, ``trash`` a file, no ``tmp``."""
    board = board_folder(share / name)
    (board / "tmp").rmdir()
    outside = share.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "black").mkdir(exist_ok=True)
    (board / "box").symlink_to(outside)
    if hasattr(os, "mkfifo"):
        os.mkfifo(board / "records")
    (board / "trash").write_text("not a folder")
    return board


def test_looking_at_a_hostile_table_writes_nothing(tmp_path):
    share = tmp_path / "share"
    share.mkdir()
    board = hostile_table(share)
    before = tree(tmp_path)
    seen = look(board, ("black", "white"))
    assert seen.board and seen.seats == {}
    tables = Tables(share).look()
    assert [t.name for t in tables] == ["table-0001"] and tables[0].state == EMPTY
    assert Records(board, readonly=True).current_checked() == (None, None)
    assert tree(tmp_path) == before


def test_watching_a_hostile_board_writes_nothing(tmp_path, capsys):
    board = hostile_table(tmp_path)
    before = tree(tmp_path)
    assert follow(board, Screen("en"), until_over=True, timeout=0.5) == 1
    assert tree(tmp_path) == before
    assert "No game on this board yet" in capsys.readouterr().out


def test_look_reads_members_and_their_heartbeats(tmp_path):
    board = board_folder(tmp_path / "b")
    with Board(board, "black") as b:
        b.beat("waiting")
        seen = look(board)
        seat = seen.seats["black"]
        assert seat.name == "black" and seat.run == b.run and seat.beat and seat.state == "waiting"
        assert seat.ended == ""
    after = look(board).seats["black"]
    assert after.beat == "" and after.ended == "closed"      # a clean close: its alive record is gone


def test_beats_judge_on_our_own_clock():
    now = [0.0]
    beats = Beats(gone_after=6.0, clock=lambda: now[0])
    seat = Seat("black", "run1", beat="3")
    assert beats.there("k", seat) and not beats.beating("k")
    now[0] = 5.0
    assert beats.there("k", seat)
    now[0] = 6.5
    assert not beats.there("k", seat)                   # its beat stopped: gone
    assert beats.there("k", Seat("black", "run1", beat="4")) and beats.beating("k")
    assert not beats.there("k", Seat("black", "run1", beat="4", ended="gone"))
    assert not beats.there("k", None)
    assert beats.there("k", Seat("black", "run2", beat="1")) and not beats.beating("k")   # a new run


def record(status="playing", moves="", result=""):
    return Record(id="g1", black="ann", white="bob", moves=moves, status=status, result=result)


def test_what_a_table_is_doing():
    f = Path("t")
    assert judge("t", f, (False, False), None).state == EMPTY
    t = judge("t", f, (True, False), None)
    assert t.state == WAITING and t.waiting_for == "white" and not t.free
    assert judge("t", f, (False, True), record()).waiting_for == "black"
    t = judge("t", f, (True, True), record(moves="f5d6"))
    assert t.state == PLAYING and t.plies == 2 and (t.black, t.white) == ("ann", "bob")
    assert judge("t", f, (False, False), record(moves="f5")).state == LEFT
    t = judge("t", f, (False, False), record("resigned", "f5", "white resigned"))
    assert t.state == ENDED and t.free and t.result == "white resigned"
    assert judge("t", f, (False, False), record("abandoned")).free


@pytest.mark.parametrize("name", ["../x", "a/b", "", ".hidden", "con", "x" * 33, "a b"])
def test_a_table_name_is_one_folder_of_the_share(tmp_path, name):
    with pytest.raises(ShareError):
        table_folder(tmp_path, name)


def test_a_share_must_be_a_folder_of_tables(tmp_path):
    with pytest.raises(ShareError, match="cannot be reached"):
        check_share(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ShareError, match="not a folder"):
        check_share(tmp_path / "file")
    board = board_folder(tmp_path / "board")
    with pytest.raises(ShareError, match="is a board"):
        check_share(board)
    with pytest.raises(ShareError, match="empty"):
        check_share("")
    assert check_share(tmp_path) == tmp_path


def test_tables_made_at_once_are_all_different(tmp_path):
    made, errors = [], []

    def make():
        try:
            made.append(new_table(tmp_path).name)
        except Exception as e:      # noqa: BLE001 (reported below)
            errors.append(e)
    threads = [threading.Thread(target=make) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(made)) == 12
    assert sorted(made) == [f"table-{i:04d}" for i in range(1, 13)]


def test_tables_are_listed_oldest_first_and_only_boards(tmp_path):
    for name in ("table-0010", "table-0002", "zeta", "alpha"):
        board_folder(tmp_path / name)
    (tmp_path / "not-a-board").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "alpha")
    (tmp_path / "file").write_text("x")
    assert table_names(tmp_path) == ["table-0002", "table-0010", "alpha", "zeta"]


def test_a_player_sits_where_the_other_colour_waits_else_makes_a_table(tmp_path):
    board_folder(tmp_path / "table-0001")           # free: nobody there
    waiting = board_folder(tmp_path / "table-0002")
    with Board(waiting, "black") as b:
        b.beat("waiting")
        white = Seating(tmp_path, 1)
        assert white.first() == waiting             # (after seeing black's beat change)
        black = Seating(tmp_path, 0, confirm=0.5)
        assert black.first() == tmp_path / "table-0001"     # nobody waits for black: the free table
    stale = board_folder(tmp_path / "table-0003")
    with Board(stale, "white") as w:
        w.heartbeat.stop()          # a record left by a run that no longer beats
        assert Seating(tmp_path, 0, confirm=1.5).first() == tmp_path / "table-0001"


def test_white_alone_moves_to_a_table_where_black_waits_and_black_never_moves(tmp_path):
    white = Seating(tmp_path, 1, confirm=0.1)
    mine = white.first()
    assert mine == tmp_path / "table-0001"
    black = Seating(tmp_path, 0, confirm=0.1)
    other = board_folder(tmp_path / "table-0000")
    assert not white.alone()
    with Board(other, "black") as b:
        b.beat("waiting")
        deadline = time.monotonic() + 5
        while not white.alone():
            assert time.monotonic() < deadline, "white never moved to the table where black waits"
            time.sleep(0.2)
        assert white.next() == other
    assert not black.alone()


def test_player_options_for_a_share_are_checked(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    for args, words in ((["--table", "t1"], "--table names a table on a share"),
                        (["--share", str(tmp_path), "--table", "../up"], "cannot be a table's name"),
                        (["--share", str(tmp_path / "no")], "cannot be reached"),
                        (["--share", str(tmp_path), "--board", "x"], "not allowed with")):
        r = subprocess.run([sys.executable, "-m", "peer", "--color", "black", *args], capture_output=True,
                           text=True, env=env, cwd=tmp_path, timeout=60)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert words in r.stderr + r.stdout and "Traceback" not in r.stderr
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_lobby_fits_a_terminal_of_80_columns(tmp_path, lang):
    from peer.faces.lobby import rows
    from peer.faces.plain import cwidth
    from peer.protocol import parse_board
    from engine import Shape
    from peer.tables import Table
    long = "名" * 40
    tables = [Table(f"table-{i:04d}", tmp_path, state, (True, False), "white", black=long, white="w" * 40, plies=59,
                    board=parse_board("8", None), used=(600_000, 5_000), gid="g", result="black resigned", status="resigned")
              for i, state in enumerate([PLAYING, WAITING, LEFT, ENDED, EMPTY], 1)]
    lines = rows(Screen(lang), tables, 80)
    assert len(lines) == 6 and all(cwidth(line) <= 79 for line in lines), lines
    assert "10:00/0:05" in lines[1] and "*" + long[:6] in lines[1]
    assert "*Ann [AI]" in rows(Screen(lang), [replace(tables[0], black="Ann", kinds=("computer", "person"))], 80)[1]
    assert "8x8" not in lines[1] and "8×8" not in lines[1]      # every board the plain 8x8: no board column
    shaped = rows(Screen(lang), [replace(tables[0], board=Shape.named("heart"))] + tables[1:], 80)
    assert all(cwidth(line) <= 79 for line in shaped) and "10:00/0:05" in shaped[1], shaped


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_start_screen_offers_a_shares_tables(tmp_path, lang):
    from peer.faces.start import ask_terminal
    board_folder(tmp_path / "table-0001")
    board_folder(tmp_path / "table-0002")
    said = []

    def run(*answers):
        it = iter(answers)
        return ask_terminal(lambda prompt: said.append(prompt) or next(it), said.append, lang=lang)
    c = run("1" if lang == "en" else "2", str(tmp_path), "", "2", "1", "")
    assert c.argv()[:4] == ["--color", "white", "--share", str(tmp_path)] and "--board" not in c.argv()
    assert "--table" not in c.argv() and any("table-0002" in s for s in said)
    c = run("1", str(tmp_path), "../up", "2", "1", "1", "")      # a name that cannot be a table: asked again
    assert c.argv()[2:6] == ["--share", str(tmp_path), "--table", "table-0002"]
    assert any("cannot be a table's name" in s or "卓の名前に使えません" in s for s in said)
    c = run("1", str(tmp_path), "pair7", "1", "1", "1")
    assert c.argv()[2:6] == ["--share", str(tmp_path), "--table", "pair7"] and "--size" in c.argv()


def test_a_clock_file_may_say_what_plays_its_side(tmp_path):
    board = board_folder(tmp_path / "b")
    records = Records(board)
    records.save_clock("g-1", "black", 1200, kind="computer")
    records.save_clock("g-1", "white", 800, kind="person")
    assert (records.kind("g-1", "black"), records.kind("g-1", "white")) == ("computer", "person")
    assert records.clock("g-1", "black") == 1200 and records.kind("g-2", "black") == ""
    records.save_clock("g-1", "white", 800, kind="<script>")         # not a kind: not written
    assert records.kind("g-1", "white") == ""
    (board / "records" / "g-1.clock-black").write_text("cardstand-clock 1\ngame: g-1\nused: 5\nkind: wizard\n")
    assert records.kind("g-1", "black") == "" and records.clock("g-1", "black") == 5


def test_the_lobby_replays_a_game_and_clears_only_a_table_nobody_is_at(tmp_path):
    import io
    from peer.faces.lobby import Lobby
    from peer.players import Lines
    played = board_folder(tmp_path / "table-0001")
    Records(played).save(Record(id="g-1", black="Ann", white="Bob", moves="f5d6c3"))
    board_folder(tmp_path / "table-0002")
    out = io.StringIO()
    lines = Lines()
    lobby = Lobby(tmp_path, Screen("en", stream=out), lines=lines, clear_screen=False)
    lobby.draw(lobby.tables.look())
    assert re.search(r"1 table-0001 +left at move 4 +Ann +- +Bob", out.getvalue()), out.getvalue()
    lobby.command("r 1")
    assert "1.f5 2.d6 3.c3" in out.getvalue() and "replay " + str(played / "records" / "g-1.game") in out.getvalue()
    lines.put("n\n")
    lobby.command("c 2")
    assert "is kept" in out.getvalue() and (tmp_path / "table-0002").is_dir()
    lines.put("y\n")
    lobby.command("c table-0002")
    assert "was cleared" in out.getvalue() and not (tmp_path / "table-0002").exists()
    with Board(played, "black") as b:
        b.beat("waiting")
        lobby.draw(lobby.tables.look())
        lobby.command("c 1")
    assert "Someone is at table-0001" in out.getvalue() and (played / "records" / "g-1.game").exists()
    lobby.command("9")
    assert "No table 9" in out.getvalue()
    assert lobby.command("q") == "quit"


def test_a_link_or_a_file_where_a_table_belongs_is_never_followed(tmp_path):
    share = tmp_path / "share"
    share.mkdir()
    outside = board_folder(tmp_path / "outside")
    Records(outside).save(Record(id="g-1", black="Mallory", moves="f5", status="playing"))
    (share / "wk-g001").symlink_to(outside)
    (share / "wk-g002").write_text("a file")
    t = Tables(share).table("wk-g001")
    assert t.state == "unusable" and not t.gid and "a link" in t.problem
    assert Tables(share).table("wk-g002").problem.startswith("not a folder")
    assert Tables(share).table("wk-g003").state == EMPTY
    with pytest.raises(ShareError, match="not a folder of the share"):
        usable_table(share, "wk-g001")
    assert usable_table(share, "wk-g003") == share / "wk-g003"
    r = subprocess.run([sys.executable, "-m", "peer", "--color", "black", "--share", str(share), "--table", "wk-g001",
                        "--ai", "greedy"], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       env=dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1"))
    assert r.returncode == 2 and "not a folder of the share" in r.stdout + r.stderr
    assert sorted(os.listdir(outside)) == ["cardstand.board", "records", "tmp"]


def test_seating_reuses_a_finished_table_and_never_takes_a_leagues(tmp_path):
    from peer.leaguefiles import LeagueFolder
    finished = board_folder(tmp_path / "table-0001")
    Records(finished).save(Record(id="g-1", moves="", status="abandoned", result="abandoned by black"))
    board_folder(tmp_path / "wk")
    LeagueFolder(tmp_path, "wk").mark()
    league_table = board_folder(tmp_path / "wk-g001")
    with Board(league_table, "white") as w:         # a league's white waits for its black
        w.beat("waiting")
        assert Seating(tmp_path, 0, confirm=1.5).first() == finished      # not the league's table
        t = Tables(tmp_path).table("wk-g001")
        assert t.league == "wk"
    for name, words in (("wk-g001", "for a game of the league wk"), ("wk", "a league's folder")):
        with pytest.raises(ShareError, match=words):
            usable_table(tmp_path, name)
    assert table_names(tmp_path) == ["table-0001", "wk-g001"]
