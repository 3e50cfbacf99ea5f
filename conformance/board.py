"""Board scenarios: the operations of the contract (init, send, recv, talk, quiet), members, the lock."""
import os
import threading
import time
import zlib
from pathlib import Path
from typing import Any

from comm import fsops

from .common import body_of, check, Fail, other_view, second_view
from .decoder import _check_r1, _kit_parse, _run_of, KitBoard, msg_name
from .hostile import _snapshot
from .process import Served


BAD_MARKERS = [("U+00A0 between its words", "cardstand-board\u00a01\n".encode()),
               ("a BOM", "\ufeffcardstand-board 1\n".encode()),
               ("a 10-digit version", b"cardstand-board 0000000001\n"),
               ("more than 4096 bytes", b"cardstand-board 1" + b" " * 4090 + b"\n")]


def _answer_or_refused(impl: Served, **req: Any) -> dict[str, Any]:
    """The answer to ``req``; ``{"ok": False}`` when the implementation stopped without one (20 s)."""
    try:
        return impl.ask(timeout=20, **req)
    except Fail:
        return {"ok": False}


def s_init(cmd: str, d: Path) -> None:
    """F2 F3 R1 I1: Init creates the board and the member record (256 bytes) in a folder holding other files; a marker that is not one is refused; no operation before init."""
    # serve contract: before init every operation is refused, and not even the board folder is made
    early = Served(cmd, d / "not-yet", "impl")
    try:
        for op in ("send", "recv", "talk", "quiet", "wipe"):
            a = _answer_or_refused(early, op=op, **({"to": "kit", "body": "x"} if op in ("send", "talk") else {}))
            check(not a.get("ok"), f"{op} before init was answered {a} (CONFORMANCE.md: ok false before init)")
        check(not os.path.lexists(d / "not-yet"), "an operation before init made the board folder")
    finally:
        early.close()
    # F2: a folder whose cardstand.board is not a marker is refused, changing nothing
    tried = []
    for i, (what, data) in enumerate(BAD_MARKERS):
        sub = d / f"marker-{i}"
        sub.mkdir()
        (sub / "cardstand.board").write_bytes(data)
        tried.append((what, sub, data, Served(cmd, sub, "impl")))
    (d / "loose").mkdir()
    (d / "loose" / "cardstand.board").write_bytes(b"  cardstand-board\t1\r\n")
    loose = Served(cmd, d / "loose", "impl")
    try:
        for what, sub, data, impl in tried:
            a = _answer_or_refused(impl, op="init")
            check(not a.get("ok"), f"init on a folder whose marker has {what} was answered {a} (F2: not a board)")
            check(sorted(p.name for p in sub.iterdir()) == ["cardstand.board"]
                  and (sub / "cardstand.board").read_bytes() == data,
                  f"init on a folder whose marker has {what} changed the folder (F2: refuse, changing nothing)")
        a = loose.ask(op="init")
        check(a.get("ok"), f"init with the marker '  cardstand-board\\t1\\r\\n' was answered {a} (F2: white space "
                           "around and between the words is allowed)")
    finally:
        for *_, impl in tried:
            impl.close()
        loose.close()
    # a folder without a marker that holds other files (the ones above) is made a board; they stay
    before = _snapshot(d)
    impl = Served(cmd, d, "impl")
    try:
        check(impl.ask(op="init").get("ok"), "init failed on a folder without a marker holding other files (F2)")
        check((d / "cardstand.board").read_text().split() == ["cardstand-board", "1"], "marker (F2)")
        for name in ("box", "tmp", "trash"):
            check((d / name).is_dir(), f"{name}/ missing (F2)")
        after = _snapshot(d)
        changed = sorted(k for k in before if after.get(k) != before[k])
        check(not changed, f"init changed what the folder held: {', '.join(changed[:4])} (F2, F3: left alone)")
        member = _check_r1(d / "box" / "impl" / "member", "box/impl/member")
        check("\nrun: " in member and "\nname: impl" in member, "member record fields (I1)")
        if (d / "box" / "impl" / "alive").exists():
            _check_r1(d / "box" / "impl" / "alive", "box/impl/alive")
    finally:
        impl.close()


def s_send(cmd: str, d: Path) -> None:
    """M1 M3 N3: a message from the implementation is framed right and arrives byte for byte."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        body = "こんにちは\nline two\r\n🀄 end"
        a = impl.ask(op="send", to="kit", body=body)
        check(a.get("result") == 1, f"send answered {a}")
        f, data = _kit_parse((d / "box" / "kit" / msg_name(1)).read_bytes())   # the kit's own reading
        check(f.get("length") == str(len(data)), f"length: {f.get('length')!r}, the body has {len(data)} bytes (M1)")
        check(f.get("crc32") == f"{zlib.crc32(data):08x}", "crc32: is not the body's CRC-32 (M1)")
        check(f.get("seq") == "1" and f.get("to") == "kit", f"seq {f.get('seq')!r}, to {f.get('to')!r} (M1)")
        check(data == body.encode("utf-8") and f.get("from") == "impl", "body or sender differ (N3)")
        check(f.get("to-run") == kit.run, "to-run is not the recipient's run (M3)")
        check(body_of(kit.receive()) == body, "kit could not receive it")
        a = impl.ask(op="send", to="nobody", body="x")
        check(a.get("result") == 0, "send to a member that never joined must fail (M3)")
    finally:
        impl.close()


def s_recv(cmd: str, d: Path) -> None:
    """M4 M5 M7: messages to the implementation arrive in order, exact, once."""
    kit = KitBoard(other_view(d), "kit").join()
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
        check(impl.ask(op="quiet").get("result") == 0, "quiet dropped a message sent to this run (I2)")
        tail = fsops.read_int(d / "box" / "impl" / "tail")
        check(tail == len(bodies), f"tail is {tail} after a quiet, expected {len(bodies)} (M5)")
    finally:
        impl.close()


def s_redeliver(cmd: str, d: Path) -> None:
    """M5 I2 9: a message received by a process killed before its next call comes back to its next run, once."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        check(impl.ask(op="init").get("ok"), "init failed")
        for body in ("first", "second", "third", "fourth"):
            check(kit.send("impl", body), f"the kit could not send: {kit.last_error}")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "first", f"recv answered {a}")
        impl.kill()                                     # before its next call: nothing acknowledged
        impl = Served(cmd, d, "impl")
        check(impl.ask(op="init").get("ok"), "init of a new run failed")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "first",
              f"after the receiver was killed, its next run's recv answered {a}: the message it had "
              "received was lost (M5: it stays until the next call; section 9)")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "second",
              f"a second recv in the same run answered {a} (M5: a message is returned once in a run)")
        code = impl.end()                               # a clean end: close acknowledges "second"
        check(code == 0, f"serve exited {code} at the end of its input")
        impl = Served(cmd, d, "impl")
        check(impl.ask(op="init").get("ok"), "init of a new run failed")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "third",
              f"after a clean end (close), the next run's recv answered {a}, not the next message (M5)")
        impl.kill()                                     # "third" handed, not acknowledged
        impl = Served(cmd, d, "impl")
        check(impl.ask(op="init").get("ok"), "init of a new run failed")
        a = impl.ask(op="quiet")
        check(a.get("result") == 2, f"quiet in a new run answered {a}: it must drop the message handed to "
                                    "the killed run and the one after, both sent to earlier runs (I2)")
        a = impl.ask(op="recv")
        check(a.get("result") == -1, f"after quiet, recv answered {a} (I2)")
    finally:
        impl.close()


def s_talk(cmd: str, d: Path) -> None:
    """I3: Talk receives a waiting message instead of sending."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        kit.send("impl", "waiting")
        a = impl.ask(op="talk", to="kit", body="crossing")
        check(a.get("result") == 2 and a.get("body") == "waiting", f"talk answered {a}")
        check(kit.receive() is None, "talk sent although a message was waiting")
        a = impl.ask(op="talk", to="kit", body="now")
        check(a.get("result") == 1, f"talk answered {a}")
        check(body_of(kit.receive()) == "now", "kit did not get the message")
        check(impl.ask(op="talk", to="", body="").get("result") == -1, "Talk('', '') must give -1")
    finally:
        impl.close()


def s_quiet(cmd: str, d: Path) -> None:
    """I2: Quiet drops what was sent to an earlier run, keeps what was sent to this one."""
    kit = KitBoard(other_view(d), "kit").join()
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


def _plant_member(d: Path, name: str, run: str, machine: str, beat: int, state: str = "") -> None:
    """A member record and an alive record for ``name`` as another computer's program writes them."""
    box = d / "box" / name
    box.mkdir(parents=True, exist_ok=True)
    fsops.replace_with(d / "tmp", box / "member", fsops.record(
        f"cardstand-member 1\nname: {name}\nrun: {run}\nhost: elsewhere\nmachine: {machine}\npid: 4242"), durable=False)
    fsops.replace_with(d / "tmp", box / "alive", fsops.record(
        f"cardstand-alive 1\nrun: {run}\nbeat: {beat}\nstate: {state}"), durable=False)


def s_members(cmd: str, d: Path) -> None:
    """I6: one live run per name; a live one is refused, a dead one taken over, take_over replaces."""
    kit = KitBoard(other_view(d), "twin").join()    # alive: this process runs on this machine
    impl = Served(cmd, d, "Twin", stale_after=1.0, lock_timeout=5.0)
    first = second = None
    try:
        kit_run = kit.run
        a = impl.ask(op="init")
        check(not a.get("ok") and a.get("error"), f"init as Twin while twin runs here was answered {a} (I6)")
        check(_run_of(d / "box" / "twin") == kit_run, "a refused init changed the member record (I6)")
        # a program on another computer that keeps beating: refused; once silent: taken over
        run = fsops.new_token()
        _plant_member(d, "ghost", run, "elsewhere/0000", 1)
        stop = threading.Event()

        def beating() -> None:
            n = 1
            while not stop.wait(0.2):
                n += 1
                try:            # a share may refuse to replace a file another client has open
                    fsops.replace_with(d / "tmp", d / "box" / "ghost" / "alive", fsops.record(
                        f"cardstand-alive 1\nrun: {run}\nbeat: {n}\nstate: "), durable=False)
                except OSError:
                    pass
        t = threading.Thread(target=beating, daemon=True)
        t.start()
        # L = 4 s: a share's client may show a file's old content for a second or two
        ghost = Served(cmd, d, "ghost", stale_after=4.0, lock_timeout=5.0)
        try:
            a = ghost.ask(op="init", timeout=20)
            check(not a.get("ok"), "init as a member whose heartbeat goes on (another computer) succeeded (I6)")
            stop.set()
            t.join()
            started = time.monotonic()
            a = ghost.ask(op="init", timeout=30)
            check(a.get("ok"), f"init as a member whose heartbeat stopped was answered {a} (I6)")
            check(time.monotonic() - started < 20, "a silent member was taken over only after 20 s (I6: L + margin)")
        finally:
            stop.set()
            ghost.close()
        # take_over: the first run stops taking messages; a killed run is taken over without it
        first = Served(cmd, d, "dup", stale_after=1.0, lock_timeout=5.0)
        check(first.ask(op="init").get("ok"), "init as dup failed")
        second = Served(cmd, d, "dup", stale_after=1.0, lock_timeout=5.0)
        check(not second.ask(op="init").get("ok"), "a second live run of dup was accepted (I6)")
        check(second.ask(op="init", take_over=True).get("ok"), "init with take_over failed (I6)")
        check(kit.send("dup", "for the new run"), f"the kit could not send to dup: {kit.last_error}")
        a = first.ask(op="recv")
        check(a.get("result") != 2, f"the replaced run still took a message: {a} (I6)")
        check(first.ask(op="send", to="twin", body="from a replaced run").get("result") == 0,
              "a replaced run could still send (I6)")
        for op in ("quiet", "wipe"):
            a = first.ask(op=op)
            check(a.get("result") == 0 and a.get("error"), f"a replaced run's {op} answered {a}, not result 0 "
                                                          "with an error (I6: it MUST NOT Quiet)")
        a = second.ask(op="recv")
        check(a.get("body") == "for the new run", f"the new run got {a} (a replaced run's quiet or wipe "
                                                  "must drop nothing, I6)")
        second.proc.kill()
        second.proc.wait()
        third = Served(cmd, d, "dup", stale_after=1.0, lock_timeout=5.0)
        try:
            check(third.ask(op="init", timeout=20).get("ok"), "a killed run's name was not taken over (I6)")
        finally:
            third.close()
    finally:
        for p in (impl, first, second):
            if p is not None:
                p.close()
        kit.close()


def s_lock_held(cmd: str, d: Path) -> None:
    """L1 L3: while someone (heartbeating) holds the lock, the implementation waits; one that gives up names the holder."""
    kit = KitBoard(other_view(d), "kit", stale_after=1.0).join()
    impl = Served(cmd, d, "impl", stale_after=1.0, lock_timeout=20)
    try:
        impl.ask(op="init")
        released = {}

        def hold() -> None:
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
        check(body_of(kit.receive()) == "after you", "message missing")
    finally:
        impl.close()
    # L3: a wait that gives up names the holder it watched (its name and pid at least)
    holder = KitBoard(other_view(d), "holder7", stale_after=1.0).join()
    hasty = Served(cmd, d, "hasty", stale_after=1.0, lock_timeout=1.0)
    try:
        hasty.ask(op="init")
        with holder.lease.hold(10):
            a = hasty.ask(op="send", to="kit", body="in a hurry", timeout=30)
        error = a.get("error", "")
        check(a.get("result") == 0 and "holder7" in error and str(os.getpid()) in error,
              f"a send that gave up waiting for the lock answered {a}: the error must name the holder, "
              f"holder7 (pid {os.getpid()}) (L3)")
    finally:
        hasty.close()
        holder.close()


def _ghost_lock(d: Path) -> Path:
    """A lock left by a holder on "another computer" that never beats."""
    lock = d / "lock"
    lock.mkdir()
    (lock / "owner").write_bytes(fsops.record(
        "cardstand-lock 1\ntoken: 0badc0de0badc0de\nname: ghost\nhost: elsewhere\n"
        "machine: elsewhere/boot\npid: 1"))
    return lock


def s_stale(cmd: str, d: Path) -> None:
    """L4 L5: a silent lock of another computer is broken within the bound; file times are not used."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl", stale_after=1.0, lock_timeout=8)     # the bound is 6 s: 8 s is plenty
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
        check(body_of(kit.receive()) == "through", "message missing")
    finally:
        impl.close()


def s_stale_short(cmd: str, d: Path) -> None:
    """L3 L4: operations that give up before the bound still see a stale lock (the watch is kept)."""
    kit = KitBoard(other_view(d), "kit", stale_after=1.0).join()     # holding, it beats every 0.2 s (L2)
    # a live lock (beating): the first send may wait L + a margin (L3), the next ones only T (plus,
    # through a share, the time its client takes to show a replaced record: L3's settled reads)
    watcher = Served(cmd, d, "watcher", stale_after=4.0, lock_timeout=0.5)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with kit.lease.hold(10):
            held.set()
            release.wait(30)
    th = threading.Thread(target=hold, daemon=True)
    try:
        watcher.ask(op="init")
        th.start()
        held.wait(10)
        a = watcher.ask(op="send", to="kit", body="never", timeout=30)
        check(a.get("result") == 0, f"a send while the kit held the lock answered {a}")
        bound = 0.5 + (2.5 if second_view() else 0.7)
        for _ in range(2):
            t = time.monotonic()
            a = watcher.ask(op="send", to="kit", body="never", timeout=30)
            took = time.monotonic() - t
            check(a.get("result") == 0, f"a send while the kit held the lock answered {a}")
            check(took < bound, f"a later send waited {took:.1f} s for a lock it had watched already, not its "
                                "0.5 s (L3: the watch is kept between operations; only the first wait lasts L "
                                "plus a margin, here 5 s)")
    finally:
        release.set()
        if th.is_alive():
            th.join()
        watcher.close()
    impl = Served(cmd, d, "impl", stale_after=2.0, lock_timeout=0.5)
    try:
        impl.ask(op="init")
        _ghost_lock(other_view(d))      # (through the kit's view: the other may show the released lock a while)
        t = time.monotonic()
        while True:
            a = impl.ask(op="send", to="kit", body="at last", timeout=30)
            if a.get("result") == 1:
                break
            check(a.get("result") == 0, f"send answered {a}")
            check(time.monotonic() - t < 2.0 + 8, "0.5 s sends never broke a lock left silent for 2 s")
        check(time.monotonic() - t >= 1.5, f"broke the lock after {time.monotonic() - t:.1f} s (bound 2 s)")
        check(body_of(kit.receive()) == "at last", "message missing")
    finally:
        impl.close()
