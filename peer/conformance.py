"""Conformance kit: check any implementation of docs/PROTOCOL.md from the outside.

    python -m peer.conformance --peer "node interop/js/peer.js"

The implementation offers two commands (see docs/CONFORMANCE.md):

    CMD serve --board DIR --name NAME [--stale-after S] [--lock-timeout S]
        JSON requests on stdin, one JSON answer per line on stdout
    CMD play --board DIR --color black|white
        plays one game on DIR to its end, then exits 0 (non-zero when the game
        was refused)

Each scenario names the clauses of docs/PROTOCOL.md it checks and passes or
fails on its own; the exit status is 0 only when all pass.
"""
import argparse
import json
import logging
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from comm import Board, fsops
from comm.board import frame, msg_name, unframe
from engine import Game, PASS, square_name

from . import protocol
from .record import Records

ROOT = Path(__file__).resolve().parents[1]


class Fail(Exception):
    pass


def other_view(d):
    """The same board folder as the kit's own side sees it (another mount of the share, if given)."""
    return VIEW["b"] / d.relative_to(VIEW["a"]) if VIEW.get("b") else d


VIEW = {}


def check(cond, what):
    if not cond:
        raise Fail(what)


class Served:
    """An implementation under test in ``serve`` mode."""

    def __init__(self, cmd, board, name, stale_after=10.0, lock_timeout=10.0):
        argv = shlex.split(cmd) + ["serve", "--board", str(board), "--name", name,
                                   "--stale-after", str(stale_after), "--lock-timeout", str(lock_timeout)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, encoding="utf-8")

    def ask(self, timeout=30, **req):
        self.proc.stdin.write(json.dumps(req, ensure_ascii=False) + "\n")
        self.proc.stdin.flush()
        box = {}

        def read():
            box["line"] = self.proc.stdout.readline()

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        line = box.get("line")
        if not line:
            raise Fail(f"no answer to {req} within {timeout} s")
        try:
            return json.loads(line)
        except ValueError:
            raise Fail(f"answer is not JSON: {line[:80]!r}") from None

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# -- scenarios -------------------------------------------------------------------------------

def s_init(cmd, d):
    """F2 R1 I1: Init creates the board and the member record."""
    impl = Served(cmd, d, "impl")
    try:
        check(impl.ask(op="init").get("ok"), "init failed")
        check((d / "cardstand.board").read_text().split() == ["cardstand-board", "1"], "marker (F2)")
        for sub in ("box", "tmp", "trash"):
            check((d / sub).is_dir(), f"{sub}/ missing (F2)")
        member = (d / "box" / "impl" / "member").read_bytes()
        check(len(member) == 256 and member.endswith(b"\n"), "member is not a 256-byte record (R1)")
        check(b"run: " in member and b"name: impl" in member, "member record fields (I1)")
    finally:
        impl.close()


def s_send(cmd, d):
    """M1 M3 N3: a message from the implementation is framed right and arrives byte for byte."""
    kit = Board(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        body = "こんにちは\nline two\r\n🀄 end"
        a = impl.ask(op="send", to="kit", body=body)
        check(a.get("result") == 1, f"send answered {a}")
        raw = (d / "box" / "kit" / msg_name(1)).read_bytes()
        m = unframe(raw)
        check(m.body == body and m.sender == "impl", "body or sender differ (N3)")
        check(m.to_run == kit.run, "to-run is not the recipient's run (M3)")
        check(kit.receive().body == body, "kit could not receive it")
        a = impl.ask(op="send", to="nobody", body="x")
        check(a.get("result") == 0, "send to a member that never joined must fail (M3)")
    finally:
        impl.close()


def s_recv(cmd, d):
    """M4 M5 M7: messages to the implementation arrive in order, exact, once."""
    kit = Board(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        bodies = ["d3", "日本語\n二行目", "", "x" * 5000]
        for b in bodies:
            check(kit.send("impl", b), "kit could not send")
        for b in bodies:
            a = impl.ask(op="recv")
            check(a.get("result") == 2 and a.get("body") == b and a.get("sender") == "kit",
                  f"expected {b[:20]!r}, got {a}")
        check(impl.ask(op="recv").get("result") == -1, "a fifth message appeared (M5)")
        tail = fsops.read_int(d / "box" / "impl" / "tail")
        check(tail == len(bodies), f"tail is {tail}, expected {len(bodies)} (M5)")
    finally:
        impl.close()


def s_talk(cmd, d):
    """I3: Talk receives a waiting message instead of sending."""
    kit = Board(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        kit.send("impl", "waiting")
        a = impl.ask(op="talk", to="kit", body="crossing")
        check(a.get("result") == 2 and a.get("body") == "waiting", f"talk answered {a}")
        check(kit.receive() is None, "talk sent although a message was waiting")
        a = impl.ask(op="talk", to="kit", body="now")
        check(a.get("result") == 1, f"talk answered {a}")
        check(kit.receive().body == "now", "kit did not get the message")
        check(impl.ask(op="talk", to="", body="").get("result") == -1, "Talk('', '') must give -1")
    finally:
        impl.close()


def s_quiet(cmd, d):
    """I2: Quiet drops what was sent to an earlier run, keeps what was sent to this one."""
    kit = Board(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        kit.send("impl", "for the old run")
        impl.ask(op="init")          # a new run of the same name
        kit.send("impl", "for the new run")
        impl.ask(op="quiet")
        a = impl.ask(op="recv")
        check(a.get("body") == "for the new run", f"after Quiet got {a}")
        check(impl.ask(op="recv").get("result") == -1, "Quiet kept an old message")
    finally:
        impl.close()


def s_lock_held(cmd, d):
    """L1 L3: while someone (heartbeating) holds the lock, the implementation waits."""
    kit = Board(other_view(d), "kit", stale_after=1.0).join()
    impl = Served(cmd, d, "impl", stale_after=1.0, lock_timeout=20)
    try:
        impl.ask(op="init")
        released = {}

        def hold():
            with kit.lease.hold(10):
                time.sleep(2.5)          # longer than stale-after: the heartbeat keeps it
                released["t"] = time.monotonic()

        th = threading.Thread(target=hold)
        th.start()
        time.sleep(0.3)
        a = impl.ask(op="send", to="kit", body="after you", timeout=30)
        done = time.monotonic()
        th.join()
        check(a.get("result") == 1, f"send answered {a}")
        check(done >= released["t"], "sent while the lock was held (broke a live lock)")
        check(kit.receive().body == "after you", "message missing")
    finally:
        impl.close()


def _ghost_lock(d):
    """A lock left by a holder on "another computer" that never beats."""
    lock = d / "lock"
    lock.mkdir()
    (lock / "owner").write_bytes(fsops.record(
        "cardstand-lock 1\ntoken: 0badc0de0badc0de\nname: ghost\nhost: elsewhere\n"
        "machine: elsewhere/boot\npid: 1"))
    return lock


def s_stale(cmd, d):
    """L4 L5: a silent lock of another computer is broken within the bound; file times are not used."""
    kit = Board(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl", stale_after=1.0, lock_timeout=20)
    try:
        impl.ask(op="init")
        lock = _ghost_lock(d)
        future = time.time() + 10 * 365 * 86400
        os.utime(lock / "owner", (future, future))
        t = time.monotonic()
        a = impl.ask(op="send", to="kit", body="through", timeout=30)
        took = time.monotonic() - t
        check(a.get("result") == 1, f"send answered {a}")
        check(0.8 <= took <= 1.0 + 5, f"broke the stale lock after {took:.1f} s (bound 1 s)")
        check(kit.receive().body == "through", "message missing")
    finally:
        impl.close()


def s_stale_short(cmd, d):
    """L3 L4: operations that give up before the bound still see a stale lock (the watch is kept)."""
    kit = Board(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl", stale_after=2.0, lock_timeout=0.5)
    try:
        impl.ask(op="init")
        _ghost_lock(d)
        t = time.monotonic()
        while True:
            a = impl.ask(op="send", to="kit", body="at last", timeout=30)
            if a.get("result") == 1:
                break
            check(a.get("result") == 0, f"send answered {a}")
            check(time.monotonic() - t < 2.0 + 8, "0.5 s sends never broke a lock left silent for 2 s")
        check(time.monotonic() - t >= 1.5, f"broke the lock after {time.monotonic() - t:.1f} s (bound 2 s)")
        check(kit.receive().body == "at last", "message missing")
    finally:
        impl.close()


def s_garbage(cmd, d):
    """M4 G3 F3: damaged messages are set aside, foreign files ignored, the next message arrives."""
    kit = Board(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        box = d / "box" / "impl"
        (box / msg_name(1)).write_bytes(frame("kit", "r", "impl", "r", 1, b"hello")[:-2])
        (box / "notes.txt").write_text("foreign")
        (d / "README.txt").write_text("foreign")
        kit.send("impl", "valid")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "valid", f"recv answered {a}")
        check(not (box / msg_name(1)).exists(), "the damaged message was left in place")
        check((box / "notes.txt").exists(), "a foreign file was removed")
    finally:
        impl.close()


def s_names(cmd, d):
    """N1 I5: invalid names are refused before the board is touched."""
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        for bad in ("a/b", "..", "sp ace", "con", "x" * 33):
            a = impl.ask(op="send", to=bad, body="x")
            check(not a.get("ok") or a.get("result") == 0, f"{bad!r} was accepted: {a}")
        check(sorted(p.name for p in (d / "box").iterdir()) == ["impl"], "something was created in box/")
    finally:
        impl.close()


def _ours(colour, board, *extra):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.Popen([sys.executable, str(ROOT / f"{colour}.py"), "--board", str(board), "--ai", "random",
                             "--lang", "en", *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)


def _theirs(play_cmd, board, colour):
    return subprocess.Popen(shlex.split(play_cmd) + ["--board", str(board), "--color", colour],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _game(play_cmd, d, colour):
    other = "white" if colour == "black" else "black"
    theirs = _theirs(play_cmd, d, colour)
    ours = _ours(other, other_view(d), "--patience", "15")
    deadline = time.monotonic() + 300
    while ours.poll() is None and time.monotonic() < deadline:
        if theirs.poll() not in (None, 0):
            ours.kill()
            raise Fail(f"their {colour} exited {theirs.returncode}: {theirs.stdout.read()[-300:]}")
        time.sleep(0.2)
    if ours.poll() is None:
        theirs.kill()
        ours.kill()
        raise Fail("the game did not finish within 300 s")
    out_ours = ours.stdout.read()
    try:
        out_theirs, _ = theirs.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        theirs.kill()
        out_theirs, _ = theirs.communicate()
        raise Fail(f"their side did not stop within 120 s after the game; ours said: "
                   f"{out_ours.strip()[-200:]!r}; theirs said: {out_theirs.strip()[-300:]!r}") from None
    check(ours.returncode == 0, f"our {other} exited {ours.returncode}: {out_ours[-300:]}")
    check(theirs.returncode == 0, f"their {colour} exited {theirs.returncode}: {out_theirs[-300:]}")
    rec = Records(d).current()
    check(rec is not None and rec.status == "over", "the game record is not finished")
    check(rec.mode == "full", "the game fell back to classic mode: no handshake (H1-H3)")
    g = Game.from_transcript(rec.moves)
    check(g.position.is_game_over(), "the recorded game is not over")


def s_game_black(cmd, d, play_cmd):
    """P1-P5 H1-H3 G1-G4: a whole game as black against our white."""
    _game(play_cmd, d, "black")


def s_game_white(cmd, d, play_cmd):
    """P1-P5 H1-H3 G1-G4: a whole game as white against our black."""
    _game(play_cmd, d, "white")


def _expect(kit, kind, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = kit.wait(timeout=max(0.01, deadline - time.monotonic()))
        if m is None:
            break
        msg = protocol.parse(m.body)
        if msg.kind == kind:
            return msg
    raise Fail(f"no {kind!r} message within {timeout} s")


def s_refused_move(cmd, d, play_cmd):
    """G2: an illegal move is refused with a reason and not applied."""
    theirs = _theirs(play_cmd, d, "white")
    kit = Board(other_view(d), "black").join()
    try:
        deadline = time.monotonic() + 30
        hello = protocol.control("hello", v=1, role="black", name="kit", size=8, game="conf-1", moves="")
        while not kit.send("white", hello):
            check(time.monotonic() < deadline, "the implementation never joined as white")
            time.sleep(0.2)
        w = _expect(kit, "welcome")
        check(w.get("game") == "conf-1", "welcome for another game (H3)")
        kit.send("white", "a1 #1")
        r = _expect(kit, "refused")
        check(r.get("reason"), "refused without a reason (G2)")
        kit.send("white", "f5 #1")
        reply = _expect(kit, "move")
        g = Game.from_transcript("f5")
        check(reply.get("n") == 2 and g.position.is_legal(reply.get("square")),
              f"after f5 the reply was {reply.text!r}: the refused move changed its board")
        kit.send("white", "#cardstand resign")
    finally:
        try:
            theirs.wait(timeout=20)
        except subprocess.TimeoutExpired:
            theirs.kill()


def s_version(cmd, d, play_cmd):
    """H4: a peer speaking another protocol version is refused, with the reason."""
    theirs = _theirs(play_cmd, d, "white")
    kit = Board(other_view(d), "black").join()
    try:
        deadline = time.monotonic() + 30
        hello = protocol.control("hello", v=2, role="black", name="future", size=8, game="v2", moves="")
        while not kit.send("white", hello):
            check(time.monotonic() < deadline, "the implementation never joined as white")
            time.sleep(0.2)
        r = _expect(kit, "refuse")
        check("version" in r.get("reason", ""), f"refuse without the version: {r.get('reason')!r}")
        try:
            code = theirs.wait(timeout=20)
        except subprocess.TimeoutExpired:
            raise Fail("the implementation kept running after refusing") from None
        check(code != 0, "a refused game must not exit 0")
    finally:
        if theirs.poll() is None:
            theirs.kill()


BOARD_SCENARIOS = [s_init, s_send, s_recv, s_talk, s_quiet, s_lock_held, s_stale, s_stale_short, s_garbage,
                   s_names]
GAME_SCENARIOS = [s_game_black, s_game_white, s_refused_move, s_version]


def run(cmd, play_cmd=None, base=None, only=None, stream=sys.stdout, base_b=None):
    """Run the scenarios; boards under ``base`` (default: a temporary folder).

    ``base_b``: the same folder seen through a second mount; the kit and our
    players then work through it while the implementation uses ``base``.
    """
    play_cmd = play_cmd or f"{cmd} play"
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(base) if base else Path(tmp)
        VIEW.clear()
        VIEW.update(a=root, b=Path(base_b) if base_b else None)
        for i, fn in enumerate(BOARD_SCENARIOS + GAME_SCENARIOS, 1):
            if only and fn.__name__[2:] not in only:
                continue
            d = root / f"{i:02d}-{fn.__name__[2:]}-{os.getpid()}"
            d.mkdir(parents=True)
            t = time.monotonic()
            try:
                if fn in GAME_SCENARIOS:
                    fn(cmd, d, play_cmd)
                else:
                    fn(cmd, d)
                ok, why = True, ""
            except Fail as e:
                ok, why = False, str(e)
            except Exception as e:  # a crash in the implementation's answers is a failure too
                ok, why = False, f"{type(e).__name__}: {e}"
            doc = (fn.__doc__ or "").strip()
            clauses, _, title = doc.partition(": ")
            stream.write(f"{'PASS' if ok else 'FAIL'}  {clauses:22s} {title} ({time.monotonic() - t:.1f} s)\n")
            if not ok:
                stream.write(f"      {why}\n")
            stream.flush()
            results.append((fn.__name__[2:], clauses, ok, why))
    passed = sum(ok for _, _, ok, _ in results)
    stream.write(f"{passed} passed, {len(results) - passed} failed\n")
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m peer.conformance", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", required=True, metavar="CMD", help="the implementation's command")
    ap.add_argument("--player", metavar="CMD",
                    help="the command that plays a game (default: the --peer command followed by 'play')")
    ap.add_argument("--board", metavar="DIR", help="make the boards under DIR (e.g. on a network share)")
    ap.add_argument("--board-b", metavar="DIR",
                    help="DIR as a second mount shows it: the kit and our players use this view")
    ap.add_argument("--only", nargs="*", help="run only these scenarios (names without 's_')")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # the kit's own retries are expected, not news
    if args.board_b and not args.board:
        ap.error("--board-b goes with --board")
    results = run(args.peer, args.player, args.board, args.only, base_b=args.board_b)
    return 0 if results and all(ok for _, _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
