"""A league of six entrants on a real network share mounted twice (two "computers": one through
SFTP, one through SMB), with real processes: two built-in AIs, one's own AI file, an external engine, and the JavaScript and C peers
of ``interop/``.  One entrant is killed mid-league (its games forfeited, the rest played), the
referee is killed and another one, on the other mount, goes on; the standings agree with the
game records, and the standings page opens in a real headless browser."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from peer.league import FORFEIT, PLAYED
from peer.leaguefiles import LeagueFolder
from peer.record import Records
from peer.referee import points
from peertools import ROOT

pytestmark = [pytest.mark.netfs, pytest.mark.xdist_group("netfs")]

LIMITS = ["--start-limit", "20", "--gone-limit", "5", "--move-limit", "30", "--ack-limit", "15"]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def peer(args, log, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    env.pop("CARDSTAND_SECRET", None)
    with open(log, "w", encoding="utf-8") as out:
        return subprocess.Popen([sys.executable, "-m", "peer", "league", *map(str, args)], stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                                start_new_session=True)


def wait_for(what, test, timeout):
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.5)


def left_behind(name):
    """The command lines of processes still playing at the league ``name``'s tables."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = (Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"{name}-g" in cmd:
            out.append(cmd)
    return out


def decided(folder):
    try:
        league = folder.load()
        return {} if league is None else folder.results(league)[0]
    except Exception:       # (a file being replaced on the share: read again)
        return {}


def test_a_league_of_six_across_two_mounts_survives_a_killed_entrant_and_referee(tmp_path):
    from netfs import share
    if shutil.which("node") is None or shutil.which("cc") is None:
        pytest.skip("the league's other-language entrants need node and cc")
    a, _ = share("sshfs")
    _, b = share("smb")
    name = f"L{uuid.uuid4().hex[:6]}"
    sub = f"class-{name}"
    (a / sub).mkdir()
    share_a, share_b = a / sub, b / sub       # one server folder, through SFTP and through SMB
    wait_for("the share seen through both mounts", share_b.is_dir, 30)
    minimal = tmp_path / "minimal"
    r = subprocess.run(["cc", "-std=c99", "-O2", "-o", str(minimal), str(ROOT / "interop" / "c" / "minimal.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    logs = tmp_path / "logs"
    logs.mkdir()
    entrants = {
        "greedy": (share_a, ["--ai", "greedy"]),
        "alphabeta": (share_b, ["--ai", "alphabeta"]),
        "mine": (share_b, ["--ai", f"{ROOT / 'peer' / 'sample-programs' / 'first_ai.py'}:FirstAI"]),
        "oneshot": (share_a, ["--engine", f"{sys.executable} {ROOT / 'tests' / 'oneshot_first.py'}"]),
        "js": (share_b, ["--program", f"node {ROOT / 'interop' / 'js' / 'peer.js'} play --classic-after 2"]),
        "c": (share_a, ["--program", f"{minimal} play"]),
    }
    procs = {}
    for who, (where, args) in entrants.items():
        procs[who] = peer(["enter", "--share", where, "--league", name, "--name", who, "--log", logs, *args],
                          tmp_path / f"{who}.out", tmp_path)
    referee = peer(["referee", "--share", share_a, "--league", name, "--entrants", 6, "--time", 0.02,
                    "--wait", 120, *LIMITS], tmp_path / "referee1.out", tmp_path)
    watch = LeagueFolder(share_b, name, readonly=True)
    try:
        wait_for("six games decided", lambda: len(decided(watch)) >= 6, 300)
        os.killpg(referee.pid, signal.SIGKILL)      # the referee dies mid-league
        referee.wait()
        referee = peer(["referee", "--share", share_b, "--league", name, *LIMITS], tmp_path / "referee2.out", tmp_path)
        wait_for("twelve games decided", lambda: len(decided(watch)) >= 12, 300)
        os.killpg(procs["mine"].pid, signal.SIGKILL)     # an entrant dies, its player with it
        procs["mine"].wait()
        assert referee.wait(timeout=600) == 0, (tmp_path / "referee2.out").read_text()
        for who, p in procs.items():
            if who != "mine":
                assert p.wait(timeout=120) == 0, (tmp_path / f"{who}.out").read_text()[-2000:]
    finally:
        for p in [referee, *procs.values()]:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    deadline = time.monotonic() + 20
    while left_behind(name):            # no player outlives its entrant (the killed one's neither)
        assert time.monotonic() < deadline, left_behind(name)
        time.sleep(0.5)
    out1, out2 = (tmp_path / "referee1.out").read_text(), (tmp_path / "referee2.out").read_text()
    assert "6 entrants (alphabeta, c, greedy, js, mine, oneshot), 30 games" in out1, out1
    assert "going on from the share" in out2 and "is over" in out2, out2
    league = watch.load()
    results, due = watch.results(league)
    assert len(results) == 30 and not due
    played = forfeits = 0
    for n, res in results.items():
        g = league.game(n)
        if res.how == PLAYED:
            played += 1
            rec = Records(share_b / g.table).load(res.gid)       # (read through the other mount)
            assert rec is not None and rec.status in ("over", "resigned")
            assert points(rec.status, rec.result) == (res.black, res.white), (n, rec, res)
        else:
            forfeits += 1
            assert "mine" in (g.black, g.white), (g, res)       # only the killed entrant's games
            loser = g.black if res.black == 0 else g.white
            assert loser == "mine" and res.how == FORFEIT, res
    assert played >= 20 and forfeits >= 1
    standings = (share_a / name / "standings.txt").read_text()
    table = {line.split()[1]: line.split() for line in standings.splitlines() if re.match(r" *\d+ \S+ +\d+ ", line)}
    mine_forfeits = sum(1 for r in results.values() if r.how == FORFEIT)
    assert int(table["mine"][6]) == mine_forfeits and len(table) == 6
    for who in table:
        pts = sum(r.black if league.game(n).black == who else r.white for n, r in results.items()
                  if who in (league.game(n).black, league.game(n).white))
        assert float(table[who][7]) == pts
    page = share_b / name / "standings.html"
    browser = chromium()
    if browser is None:
        pytest.skip("no Chromium here to open the standings page (.ci/run installs Debian's chromium)")
    shot = tmp_path / "standings.png"
    common = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'chromium'}"]
    r = subprocess.run(common + ["--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    dom = r.stdout
    assert dom.count("<tr") >= 1 + 6 + 7 + 31 and 'id="standings"' in dom and 'id="crosstable"' in dom
    linked = sum(1 for r in results.values() if r.gid)      # (a game forfeited mid-way keeps its record too)
    assert len(re.findall(r'<a href="\.\./' + name + r'-g\d{3}/records/[^"]+\.game"', dom)) == linked >= played
    r = subprocess.run(common + [f"--screenshot={shot}", "--window-size=1100,1400", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    assert shot.exists(), r.stderr[-2000:]
    from PIL import Image
    img = Image.open(shot).convert("RGB")
    artifacts = ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    img.save(artifacts / "league-standings.png")
    colours = img.getcolors(maxcolors=1 << 24)
    green = sum(n for n, px in colours if px == (0x2E, 0x7D, 0x32))     # the tables' headings
    dark = sum(n for n, px in colours if sum(px) < 150)                 # text
    assert green > 5000 and dark > 5000, (green, dark)
