"""A league's values and files: the round robin, the standings and Elo, the files signed with the
class's secret and refused when forged, and what the standings page shows of a hostile entry."""
import itertools
import math
import os

import pytest

from peer.league import FORFEIT, PLAYED, League, Result, elo, round_robin, standings
from peer.leaguefiles import (Entry, LeagueError, LeagueFolder, Unsettled, _signed, check_entrant, check_league_name,
                              standings_html)
from peer.tables import table_names
from peertools import board_folder


def test_a_round_robin_meets_every_pair_once_in_each_colour_per_round():
    names = ["ann", "bob", "cy", "dee", "eve"]
    games = round_robin("wk", names, rounds=2)
    assert len(games) == 2 * 5 * 4
    for rnd in (1, 2):
        pairs = [(g.black, g.white) for g in games if g.round == rnd]
        assert sorted(pairs) == sorted(itertools.permutations(names, 2))
    assert [g.n for g in games] == list(range(1, 41)) and games[6].table == "wk-g007"
    # games that can run at once come together: each block of two (five entrants, a bye) has no one twice
    for i in range(0, len(games), 2):
        block = games[i:i + 2]
        players = [p for g in block for p in (g.black, g.white)]
        assert len(players) == len(set(players))


def test_elo_puts_the_stronger_first_with_error_bars():
    names = ["a", "b", "c"]
    games = [("a", "b", 1.0), ("b", "a", 0.0), ("a", "b", 0.0), ("a", "c", 1.0), ("c", "a", 0.0), ("c", "a", 1.0),
             ("b", "c", 0.5), ("c", "b", 0.5)] * 3
    ratings, errors = elo(names, games)
    assert ratings["a"] > ratings["b"] == pytest.approx(ratings["c"])
    assert abs(sum(ratings.values())) < 1e-6
    assert all(math.isfinite(e) and e > 0 for e in errors.values())
    more, errors_more = elo(names, games * 4)
    assert errors_more["a"] < errors["a"]          # more games, narrower bars
    r, e = elo(["a", "b", "x"], [("a", "b", 1.0)])
    assert e["x"] == math.inf and r["a"] > 0 > r["b"]


def test_standings_count_forfeits_and_double_forfeits():
    league = League("wk", ["ann", "bob", "cy"], round_robin("wk", ["ann", "bob", "cy"]))
    results = {}
    for g in league.games:
        if "cy" in (g.black, g.white):      # cy never came
            b = 0.0 if g.black == "cy" else 1.0
            results[g.n] = Result(g.n, FORFEIT, b, 1.0 - b, reason="absent")
        elif g.black == "ann":
            results[g.n] = Result(g.n, PLAYED, 1.0, 0.0, score="40-24", gid=f"g{g.n}")
        else:
            results[g.n] = Result(g.n, FORFEIT, 0.0, 0.0, reason="both left")
    table = {s.name: s for s in standings(league, results)}
    assert (table["ann"].points, table["bob"].points, table["cy"].points) == (3.0, 2.0, 0.0)
    assert table["cy"].forfeits == 4 and table["cy"].losses == 4 and table["cy"].error == math.inf
    assert table["bob"].losses == 2 and table["ann"].wins == 3 and table["ann"].rank == 1


def test_names_of_leagues_and_entrants_are_checked():
    for bad in ("../x", "", "a" * 17, "con", "a b"):
        with pytest.raises(LeagueError):
            check_league_name(bad)
    for bad in ("referee", "Referee", "../x", "", "a" * 33):
        with pytest.raises(LeagueError):
            check_entrant(bad)


def folder(tmp_path, secret=None, readonly=False):
    board_folder(tmp_path / "wk")
    return LeagueFolder(tmp_path, "wk", secret, readonly=readonly)


def test_the_league_files_round_trip_and_are_signed(tmp_path):
    f = folder(tmp_path, b"class secret")
    league = League("wk", ["ann", "bob"], round_robin("wk", ["ann", "bob"]), size=6, time=0.05)
    f.save(league)
    results = {1: Result(1, PLAYED, 1.0, 0.0, "20-16", "20261128-1-a"), 2: Result(2, FORFEIT, 0.0, 1.0,
                                                                                 reason="black (bob) left\nx")}
    f.save_results(results, [])
    again = LeagueFolder(tmp_path, "wk", b"class secret", readonly=True)
    assert again.load() == league
    assert again.results(league) == (results, [])
    with pytest.raises(LeagueError, match="not signed with the class's secret"):
        LeagueFolder(tmp_path, "wk", b"another secret").load()
    text = (tmp_path / "wk" / "results").read_text()
    body = text.split("digest: ")[0]
    (tmp_path / "wk" / "results").write_text(text.replace("played 1 0", "played 0 1"))
    with pytest.raises(Unsettled):                  # (as a file cut short: read again)
        again.results(league)
    forged = body.replace("played 1 0", "played 0 1")
    (tmp_path / "wk" / "results").write_text(_signed(forged, None))     # a forger's own digest, no MAC
    with pytest.raises(LeagueError, match="not signed"):
        again.results(league)
    (tmp_path / "wk" / "results").write_text(_signed(forged, b"a guessed secret"))
    with pytest.raises(LeagueError, match="not signed"):
        again.results(league)
    (tmp_path / "wk" / "results").write_text(text[:len(text) // 2])     # cut short
    with pytest.raises(Unsettled):
        again.results(league)


@pytest.mark.parametrize("line", ["game: 1 1 ann ../../etc", "game: 1 1 ann ann", "game: 2 1 ann bob",
                                  "entrant: ../x", "entrant: referee"])
def test_a_damaged_league_file_is_refused(tmp_path, line):
    f = folder(tmp_path)
    (tmp_path / "wk" / "league").write_text(_signed(f"cardstand-league 1\nname: wk\nentrant: ann\nentrant: bob\n{line}\n",
                                                    None))
    with pytest.raises(LeagueError) as e:
        f.load()
    assert not isinstance(e.value, Unsettled)


@pytest.mark.parametrize("line", ["result: 1 played 2 0 x y z", "result: 9 played 1 0 - - -",
                                  "result: 1 won 1 0 - - -", "result: 1 played 1 0 - ../x -"])
def test_a_damaged_result_is_refused(tmp_path, line):
    f = folder(tmp_path)
    league = League("wk", ["ann", "bob"], round_robin("wk", ["ann", "bob"]))
    f.save(league)
    (tmp_path / "wk" / "results").write_text(_signed(f"cardstand-league-results 1\n{line}\n", None))
    with pytest.raises(LeagueError) as e:
        f.results(league)
    assert not isinstance(e.value, Unsettled)


def test_the_standings_page_escapes_what_entrants_wrote(tmp_path):
    f = folder(tmp_path)
    f.enter(Entry("ann", "program", '<script>alert(1)</script> "x"'))
    assert f.entry("ann").plays.startswith("<script>")
    league = League("wk", ["ann", "bob"], round_robin("wk", ["ann", "bob"]))
    page = standings_html(league, standings(league, {}), {}, [1], {"ann": f.entry("ann"), "bob": None})
    assert "<script>" not in page and "&lt;script&gt;" in page and "under way" in page


def test_a_league_board_is_not_listed_as_a_table(tmp_path):
    board_folder(tmp_path / "table-0001")
    f = folder(tmp_path)
    assert table_names(tmp_path) == ["table-0001", "wk"]
    f.mark()
    assert table_names(tmp_path) == ["table-0001"]


def test_one_referee_at_a_time_and_one_run_of_each_entrant(tmp_path):
    import os
    import subprocess
    import sys
    from peertools import ROOT
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("CARDSTAND_SECRET", None)

    def league(*args):
        return subprocess.Popen([sys.executable, "-m", "peer", "league", *args, "--share", str(tmp_path), "--league",
                                 "wk"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    first = league("referee", "--entrants", "3", "--wait", "60")
    ann = league("enter", "--name", "ann", "--ai", "random")
    try:
        for p, line in ((first, "Waiting for 3 entrants"), (ann, "waiting for the referee")):
            assert line in p.stdout.readline()
        second = league("referee")
        out, _ = second.communicate(timeout=60)
        assert second.returncode == 2 and "another referee is at work" in out, out
        again = league("enter", "--name", "ann", "--ai", "greedy")
        out, _ = again.communicate(timeout=60)
        assert again.returncode == 2 and "ann has entered this league already" in out, out
        assert first.poll() is None and ann.poll() is None
    finally:
        for p in (first, ann):
            p.terminate()
    assert first.wait(timeout=30) == ann.wait(timeout=30) == 130      # (SIGTERM leaves as Ctrl+C does)
    assert table_names(tmp_path) == []          # the league's board is no table


def finished_game():
    """A sound record of a whole game (random legal moves to the end), black's and white's names."""
    import random
    from engine import PASS, Position
    from peer.record import Record
    rnd, pos, moves = random.Random(7), Position.start(), []
    while not pos.is_game_over():
        legal = pos.legal_moves()
        m = rnd.choice(legal) if legal else PASS
        moves.append("pass" if m == PASS else __import__("engine").notation.square_name(m, 8))
        pos = pos.play(m)
    b, w = pos.discs()
    return Record(id="g-1", black="ann", white="bob", moves="".join(moves), status="over", result=f"{b}-{w}")


def league_with_a_game(tmp_path, white_name="bob", kinds=("ai", "ai")):
    from peer.record import Records
    from peer.referee import Referee
    f = folder(tmp_path)
    league = League("wk", ["ann", "bob"], round_robin("wk", ["ann", "bob"]))
    f.save(league)
    for name, kind in zip(("ann", "bob"), kinds):
        f.enter(Entry(name, kind, "greedy" if kind == "ai" else "node peer.js play"))
    g = league.game(1)
    table = board_folder(tmp_path / g.table)
    rec = finished_game()
    rec.black, rec.white = g.black, white_name if g.white == "bob" else g.white
    Records(table).save(rec)
    for c in ("black", "white"):
        Records(table).acknowledge(rec.id, c)
    ref = Referee(tmp_path, "wk", lambda text: None)
    ref.kinds = {e: f.entry(e).kind for e in league.entrants}
    return ref, league, rec


def test_a_result_counts_only_for_the_entrants_that_were_scheduled(tmp_path):
    import time
    from peer.referee import Watch
    ref, league, rec = league_with_a_game(tmp_path)
    now = time.monotonic()
    ref.watches[1] = Watch(now, now)
    r = ref.decide(league, 1, now, {})
    assert r.how == PLAYED and r.gid == rec.id
    ref, league, rec = league_with_a_game(tmp_path / "2", white_name="sniper")
    ref.watches[1] = Watch(now, now)
    r = ref.decide(league, 1, now, {})
    assert r.how == FORFEIT and (r.black, r.white) == (0, 0) and "someone else played" in r.reason
    ref, league, rec = league_with_a_game(tmp_path / "3", white_name="js", kinds=("ai", "program"))
    ref.watches[1] = Watch(now, now)
    assert ref.decide(league, 1, now, {}).how == PLAYED       # (a program names itself)
    assert ref.recovered(league) == {1: ref.decide(league, 1, now, {})}     # a lost results file, taken again


def test_with_the_secret_only_signed_members_enter_and_a_league_folder_is_never_a_link(tmp_path):
    from comm import Board
    from peer.referee import Referee
    f = LeagueFolder(tmp_path, "wk", b"class secret")
    good = f.join("ann", "entrant", "busy")
    f.enter(Entry("ann", "ai", "greedy"))
    bad = Board(tmp_path / "wk", "mallory").join()      # no secret: its member record is not signed
    bad.beat("entrant")
    LeagueFolder(tmp_path, "wk").enter(Entry("mallory", "ai", "greedy"))
    said = []
    try:
        assert Referee(tmp_path, "wk", said.append, secret=b"class secret").present() == {"ann"}
        assert "mallory is on the league's board without the class's secret" in said[0]
    finally:
        good.close()
        bad.close()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "wk2").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LeagueError, match="not a folder of the share"):
        LeagueFolder(tmp_path, "wk2").join("ann", "entrant", "busy")
    table = board_folder(tmp_path / "week3")
    (table / "records").mkdir()
    with pytest.raises(LeagueError, match="a table of the share"):
        LeagueFolder(tmp_path, "week3").join("ann", "entrant", "busy")
    assert os.listdir(tmp_path / "elsewhere") == []


def test_an_entrant_resumes_its_game_and_keeps_a_bounded_log(tmp_path):
    import io
    from peer.entrant import LOG_LIMIT, Entrant, _keep
    league = League("wk", ["ann", "bob"], round_robin("wk", ["ann", "bob"]))
    e = Entrant(tmp_path, "wk", Entry("ann", "ai", "greedy"), print)
    for n in (1, 2):
        cmd = e.command(league, n)
        assert "--new" not in cmd and cmd[cmd.index("--name") + 1] == "ann"
    out = io.BytesIO()
    out.close = lambda: None
    _keep(io.BytesIO(b"x" * (3 * LOG_LIMIT)), out)
    assert len(out.getvalue()) < LOG_LIMIT + 100 and out.getvalue().endswith(b"more bytes not kept]\n")


@pytest.mark.parametrize("args, words", [(["--program", "/nonexistent/prog play"], "is not there"),
                                         (["--engine", ""], "needs a command"),
                                         (["--program", "node 'unterminated"], "cannot be read"),
                                         (["--ai", "missing_file.py:X"], "your AI cannot be used")])
def test_an_entrant_that_cannot_play_is_refused_at_once(tmp_path, args, words):
    import subprocess
    import sys
    from peertools import ROOT
    r = subprocess.run([sys.executable, "-m", "peer", "league", "enter", "--share", str(tmp_path), "--league", "wk",
                        "--name", "ann", *args], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert os.listdir(tmp_path) == []


def test_a_referee_started_on_a_league_that_is_over_says_so_and_stops(tmp_path):
    from peer.referee import Referee
    ref, league, rec = league_with_a_game(tmp_path)
    f = LeagueFolder(tmp_path, "wk")
    f.save_results({1: Result(1, PLAYED, 1.0, 0.0, "40-24", rec.id), 2: Result(2, FORFEIT, 0.0, 1.0, reason="x")}, [])
    said, code = [], []
    import threading
    t = threading.Thread(target=lambda: code.append(Referee(tmp_path, "wk", said.append, poll=0.05).run()), daemon=True)
    t.start()
    t.join(30)
    assert code == [0], said            # (it stops: it does not wait for a change that cannot come)
    assert "going on from the share" in said[0] and "is over. Winner: ann (2 points)" in said[-1]
    assert "(over)" in (tmp_path / "wk" / "standings.txt").read_text()
