"""Board scenarios: what a hostile or damaged board holds (bad messages, old scratch, bad names,
signatures, links, FIFOs, pointers)."""
import hashlib
import hmac
import os
import re
import stat
import time
from pathlib import Path
from typing import Callable

from comm import fsops

from .common import _secret, check, Fail, other_view, Skip, body_of, run_of
from .decoder import _kit_frame, _kit_mac, _kit_parse, _place, _plain_messages, _run_of, KitBoard, msg_name
from .process import Served


def s_garbage(cmd: str, d: Path) -> None:
    """M1 M4 S3 F3 R1: damaged messages (no from-run, an empty from-run, an empty file, no crc32) are set aside, foreign files ignored; one without to-run, one with an unknown header key, one with its lines in another order arrive; a member record's first line is not checked."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        box = d / "box" / "impl"
        (box / msg_name(1)).write_bytes(_kit_frame("kit", "r", "impl", "r", 1, "hello")[:-2])
        (box / "notes.txt").write_text("foreign")
        (d / "README.txt").write_text("foreign")
        kit.send("impl", "valid")
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "valid", f"recv answered {a}")
        check(not (box / msg_name(1)).exists(), "the damaged message was left in place")
        check((box / "notes.txt").exists(), "a foreign file was removed")
        # M1: from-run and crc32 are required (from-run not empty); to-run may be missing
        kbox, run = other_view(box), _run_of(box)

        def without(key: bytes, body: str) -> Callable[[int], bytes]:
            return lambda k: re.sub(rb"\n" + key + rb": [^\n]*", b"", _kit_frame("kit", run_of(kit), "impl", run, k, body), 1)
        bad = [("a message without from-run", without(b"from-run", "no from-run")),
               ("a message with an empty from-run", lambda k: _kit_frame("kit", "", "impl", run, k, "empty from-run")),
               ("an empty message file", lambda k: b""),
               ("a message without crc32", without(b"crc32", "no crc32"))]
        placed = [(what, _place(kit, kbox, make)) for what, make in bad]
        _place(kit, kbox, without(b"to-run", "no to-run"))
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "no to-run",
              f"after {', '.join(w for w, _ in bad)}, then a message without to-run: recv answered {a} "
              "(M1: the bad ones are never returned; to-run MAY be missing)")
        for what, k in placed:
            check(not os.path.lexists(box / msg_name(k)), f"{what} was left in the mailbox (M1 M4: moved to trash)")
        a = impl.ask(op="recv")
        check(a.get("result") == -1, f"after the last message, recv answered {a}")
        # M1: header keys M1 does not list are ignored, and the order of the lines is free
        _place(kit, kbox, lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, "with a new key").replace(
            b"\nseq: ", b"\nfuture: yes\nseq: ", 1))

        def reordered(k: int) -> bytes:
            head, _, body = _kit_frame("kit", run_of(kit), "impl", run, k, "in another order").partition(b"\n\n")
            first, *lines = head.split(b"\n")
            return b"\n".join([first, *reversed(lines)]) + b"\n\n" + body
        _place(kit, kbox, reordered)
        for want, why in (("with a new key", "a header key M1 does not list MUST be ignored"),
                          ("in another order", "the order of the header lines is free")):
            a = impl.ask(op="recv")
            check(a.get("result") == 2 and a.get("body") == want, f"recv answered {a}, not the message "
                                                                  f"{want!r} (M1: {why})")
        # R1: readers MUST NOT check a record's first line (the board's version is the marker's)
        member = d / "box" / "kit" / "member"
        text = member.read_bytes().decode("utf-8").replace("cardstand-member 1\n", "cardstand-member 2\n", 1)
        fsops.replace_with(kit.tmp, other_view(member), text.encode("utf-8"), durable=False)
        a = impl.ask(op="send", to="kit", body="to a member record of another first line")
        check(a.get("result") == 1, f"with 'cardstand-member 2' on the first line of the kit's member record, "
                                    f"send answered {a} (R1: readers MUST NOT check the first line)")
    finally:
        impl.close()


def _written(p: Path, data: bytes) -> None:
    """``data`` in a new file ``p``, on the disk before this returns (an SMB client that sends a
    write after the file's time was set dates the file now)."""
    with open(p, "xb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _dated(p: Path, mtime: float) -> None:
    """Set ``p``'s time and read it back until it holds (a share may still be writing what came before)."""
    deadline = time.monotonic() + 10
    while True:
        os.utime(p, (mtime, mtime))
        if abs(os.lstat(p).st_mtime - mtime) < 2:
            return
        if time.monotonic() > deadline:
            raise Skip(f"this folder does not keep the file times the kit sets ({p.name}): S1's ages cannot be planted")
        time.sleep(0.2)


def s_cleanup(cmd: str, d: Path) -> None:
    """S1 F3: init removes old scratch of the forms S1 names (a private lock folder judged by its owner's time), and nothing else."""
    KitBoard(other_view(d), "kit").join()
    tmp, trash = d / "tmp", d / "trash"
    hour_ago, tomorrow, days_ago = time.time() - 3600, time.time() + 86400, time.time() - 8 * 86400

    def plant(p: Path, folder: bool = False, owner: float | None = None) -> None:
        if folder:
            p.mkdir()
            if owner is not None:
                _written(p / "owner", fsops.record("cardstand-lock 1\ntoken: " + p.name[5:] +
                                                   "\nname: ghost\nhost: elsewhere\nmachine: \npid: 1"))
        else:
            _written(p, b"x")

    gone = {"tmp/host-1-0ld.tmp": (hour_ago, False, None), "tmp/host-1-future.tmp": (tomorrow, False, None),
            "tmp/lock-0123456789abcdef": (hour_ago, True, hour_ago), "tmp/stale-5ca1ab1e": (hour_ago, True, None),
            "tmp/released-0ddba11-owner": (hour_ago, False, None), "trash/0ddba11-old.msg": (days_ago, False, None),
            "tmp/lock-f11e": (hour_ago, False, None)}
    kept = {"tmp/host-1-fresh.tmp": (time.time(), False, None), "tmp/notes.txt": (hour_ago, False, None),
            "tmp/lock-fedcba9876543210": (hour_ago, True, time.time()), "tmp/keep": (hour_ago, True, None),
            "trash/notes": (days_ago, False, None), "trash/0ddba11-recent.msg": (hour_ago, False, None),
            "tmp/folder.tmp": (hour_ago, True, None), "tmp/lock-0feedbeef": (time.time(), True, None)}
    for rel, (mtime, folder, owner) in {**gone, **kept}.items():
        plant(d / rel, folder, owner)
    # A Samba server dates a written file when its client lets go of it, which may come after the
    # kit dated it (seen through smbnetfs, with several boards at once): they are dated after that
    time.sleep(2.5)
    for rel, (mtime, folder, owner) in {**gone, **kept}.items():
        if owner is not None:
            _dated(d / rel / "owner", owner)
        _dated(d / rel, mtime)
    impl = Served(cmd, d, "impl")
    try:
        check(impl.ask(op="init").get("ok"), "init failed")
    finally:
        impl.close()
    deadline = time.monotonic() + 5      # (an SMB client may finish a delete when it lets go of the file)
    while (left := [rel for rel in gone if os.path.lexists(d / rel)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    def dated(rel: str) -> str:
        try:
            return f"dated {(time.time() - os.lstat(d / rel).st_mtime) / 3600:.1f} h ago here"
        except OSError:
            return "gone since"
    check(not left, "old scratch left after init: " + ", ".join(f"{rel} ({dated(rel)})" for rel in left) + " (S1)")
    removed = [rel for rel in kept if not os.path.lexists(d / rel)]
    why = {"tmp/lock-fedcba9876543210": " (a private lock folder whose owner was written just now: S1 "
                                        "judges it by the newer of its own and its owner's times)",
           "tmp/host-1-fresh.tmp": " (younger than 10 minutes)",
           "tmp/folder.tmp": " (a folder: only files are cleaned up by the name *.tmp, S1)",
           "tmp/lock-0feedbeef": " (a fresh private lock folder whose owner is not written yet: S1a judges it "
                                 "by its own time then)", "trash/0ddba11-recent.msg": " (younger than 7 days)"}
    check(not removed, "init removed " + ", ".join(r + why.get(r, " (a name S1 does not list: F3)") for r in removed))
    stale = sorted(p.name for p in tmp.iterdir() if p.name.startswith("stale-"))
    check(not stale, f"init left {', '.join(stale)} in tmp/ (S1b: what the clean-up moves aside it deletes; every stale-* here was older than 10 minutes)")


def s_names(cmd: str, d: Path) -> None:
    """N1 I5: invalid names are refused before the board is touched."""
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        for bad in ("a/b", "..", "sp ace", "con", "x" * 33):
            a = impl.ask(op="send", to=bad, body="x")
            check(a.get("ok") is False, f"a send to {bad!r} was answered {a}, not ok: false (I5: a bad 'to' "
                                        "is an invalid argument, refused before the board is touched)")
        check(sorted(p.name for p in (d / "box").iterdir()) == ["impl"], "something was created in box/")
    finally:
        impl.close()


def s_device_names(cmd: str, d: Path) -> None:
    """N1 I5: COM0 and LPT0 are Windows device names too (Microsoft's naming rules): refused."""
    KitBoard(other_view(d), "kit").join()            # the board exists
    for bad in ("com0", "LPT0"):
        impl = Served(cmd, d, bad)                 # joining under that name must fail
        try:
            try:
                a = impl.ask(op="init", timeout=20)
            except Fail:
                a = {"ok": False}                  # it stopped at once: refused too
            check(not a.get("ok"), f"joined as {bad!r}: {a}")
        finally:
            impl.close()
        box = other_view(d) / "box" / bad.lower()  # a member planted under that name: not sent to
        box.mkdir()
        (box / "member").write_bytes(fsops.record(f"cardstand-member 1\nname: {bad}\nrun: 0123456789abcdef"))
    impl = Served(cmd, d, "impl")
    try:
        impl.ask(op="init")
        for bad in ("com0", "LPT0", "Com0", "lpt0"):
            a = impl.ask(op="send", to=bad, body="x")
            check(not a.get("ok") or a.get("result") == 0, f"{bad!r} was accepted: {a}")
        for bad in ("com0", "lpt0"):
            check(sorted(p.name for p in (d / "box" / bad).iterdir()) == ["member"], f"a message was delivered to {bad}")
    finally:
        impl.close()


def s_mac(cmd: str, d: Path) -> None:
    """A1 A2 A3 A4 A5: with CARDSTAND_SECRET the implementation signs what it sends and refuses what is not signed right."""
    secret = _secret()
    key = secret.encode("utf-8")
    kit = KitBoard(other_view(d), "kit").join()          # no secret: the kit checks MACs with its own code
    impl = Served(cmd, d, "impl", secret=f"  {secret}\n")     # A1: white space around it is not part of it
    try:
        check(impl.ask(op="init").get("ok"), "init failed with CARDSTAND_SECRET set")
        body = "signé\nby the implementation 🀄"
        a = impl.ask(op="send", to="kit", body=body)
        check(a.get("result") == 1, f"send answered {a}")
        f, data = _kit_parse((d / "box" / "kit" / msg_name(1)).read_bytes())
        check("mac" in f, "a message sent with CARDSTAND_SECRET set has no mac: line (A2)")
        check(re.fullmatch(r"[0-9a-f]{64}", f["mac"]), f"mac: {f['mac'][:70]!r} is not 64 lower-case hex digits (A2)")
        want = _kit_mac(key, f["from"], f["from-run"], f["to"], f["to-run"], f["seq"], data)
        check(hmac.compare_digest(f["mac"], want), "the mac: line is not HMAC-SHA256 of A2 with the stripped secret")
        check(data.decode("utf-8") == body, "the signed body differs")
        check(body_of(kit.receive()) == body, "the kit could not receive it")

        box = other_view(d) / "box" / "impl"
        run = _run_of(box)

        def good(text: str) -> Callable[[int], bytes]:
            return lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, text, key)

        k = _place(kit, box, good("signed by the kit"))
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "signed by the kit", f"a correctly signed message: recv answered {a}")
        _place(kit, box, lambda k: _kit_frame("kit", run_of(kit), "impl", run, f"{k:04d}", "zeros", key))
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "zeros", f"a message signed with 'seq: 000N' as written "
              f"(leading zeros): recv answered {a} (M1: its number is the decimal value; A2: the MAC is over "
              "the value exactly as written, never normalised)")
        copy = _kit_frame("kit", run_of(kit), "impl", run, k, "signed by the kit", key)
        bad = [
            ("an unsigned message", lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, "unsigned")),
            ("a message signed with another secret", lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, "other", b"not it")),
            ("a message with a malformed mac", lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, "short", mac="00ff")),
            ("a message whose body was changed after signing",
             lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, "d4", mac=_kit_mac(key, "kit", run_of(kit), "impl", run, k, b"d3"))),
            ("a message whose sender was changed after signing",
             lambda k: _kit_frame("white", run_of(kit), "impl", run, k, "x", mac=_kit_mac(key, "kit", run_of(kit), "impl", run, k, b"x"))),
            ("a signed message copied to another number", lambda k: copy),
        ]
        for what, make in bad:
            k = _place(kit, box, make)
            a = impl.ask(op="recv")
            check(a.get("result") != 2, f"{what} was returned: {a} (A3)")
            check(not os.path.lexists(box / msg_name(k)), f"{what} was left in the mailbox (A3: moved to trash)")
        _place(kit, box, good("still talking"))
        a = impl.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "still talking", f"after the refused ones: recv answered {a}")
    finally:
        impl.close()
    plain = Served(cmd, d, "plain")                  # A4: a reader without a secret ignores mac:
    try:
        check(plain.ask(op="init").get("ok"), "init failed")
        pbox = other_view(d) / "box" / "plain"
        _place(kit, pbox, lambda k: _kit_frame("kit", run_of(kit), "plain", _run_of(pbox), k, "signed, read plainly", key))
        a = plain.ask(op="recv")
        check(a.get("result") == 2 and a.get("body") == "signed, read plainly",
              f"without a secret, a signed message must be read (A4): {a}")
    finally:
        plain.close()


def _snapshot(root: Path) -> dict[str, tuple[object, ...]]:
    """Every entry under ``root`` (not following links): type, mode and content or link target."""
    out: dict[str, tuple[object, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    out[rel] = ("file", stat.S_IMODE(st.st_mode), hashlib.sha256(f.read()).hexdigest())
            else:
                out[rel] = ("other", st.st_mode)
    return out


def _victim(v: Path) -> None:
    """A folder outside the board that looks like a board's lock, mailbox and scratch, all old."""
    v.mkdir()
    (v / "owner").write_bytes(fsops.record("cardstand-lock 1\ntoken: 0123456789abcdef\nname: victim\nhost: x\npid: 1"))
    (v / "beat").write_bytes(fsops.record("7"))
    (v / "member").write_bytes(fsops.record("cardstand-member 1\nname: ghost\nrun: 00000000deadbeef\nhost: x\npid: 1"))
    (v / "head").write_bytes(fsops.record("0"))
    (v / "tail").write_bytes(fsops.record("0"))
    (v / msg_name(1)).write_bytes(_kit_frame("kit", "0000000000000001", "impl", "0000000000000002", 1, "victim's"))
    (v / "private.txt").write_text("the owner's own file\n")
    (v / "sub").mkdir()
    (v / "sub" / "deep.txt").write_text("deeper\n")
    old = time.time() - 30 * 86400
    for p in [*v.rglob("*"), v]:
        os.utime(p, (old, old))


def _link(target: Path, where: Path, mtime: float | None = None) -> None:
    """A symbolic link at ``where`` to ``target``, dated ``mtime`` where the system allows.

    The target is written relative to the link: on a loopback share (sshfs) the server follows
    links for some operations (SFTP SETSTAT), and an absolute target there would lead it back
    into the client mount it is serving, which deadlocks the mount. A relative one stays on the
    server's disk.
    """
    try:
        os.symlink(os.path.relpath(target, where.parent), where)
    except (OSError, NotImplementedError) as e:
        raise Skip(f"cannot make symbolic links here: {e}") from None
    if mtime is not None:
        try:
            os.utime(where, (mtime, mtime), follow_symlinks=False)
        except (OSError, NotImplementedError):
            pass


def s_links(cmd: str, d: Path) -> None:
    """B6 F2 S1 L5: symbolic links planted in the board (tmp/ entries, trash, lock, box/<key>, head) are never followed."""
    board, victim = d / "board", d / "victim"
    _victim(victim)
    before = _snapshot(victim)
    kit = KitBoard(other_view(board), "kit").join()
    old, future = time.time() - 3600, time.time() + 86400
    tmp = board / "tmp"
    _link(victim, tmp / "old-link", old)                      # S1: old scratch that is a link
    (tmp / "old-dir").mkdir()
    _link(victim, tmp / "old-dir" / "inside", old)            # ... a link inside old scratch
    os.utime(tmp / "old-dir", (old, old))
    _link(victim, tmp / "future-link", future)                # ... scratch dated in the future
    for p in (board / "trash").iterdir():
        p.unlink()
    (board / "trash").rmdir()
    _link(victim, board / "trash")                            # a fixed folder that is a link
    _link(victim, board / "lock")                             # a lock that is a link
    _link(victim, board / "box" / "impl")                     # the implementation's own mailbox
    _link(victim, board / "box" / "ghost")                    # a mailbox it may send to
    head = board / "box" / "kit" / "head"
    if os.path.lexists(head):
        head.unlink()
    _link(victim / "head", head)                              # a record that is a link
    impl = Served(cmd, board, "impl", stale_after=1.0, lock_timeout=20)
    try:
        check(impl.ask(op="init", timeout=40).get("ok"), "init failed on a board with planted links")
        check(_snapshot(victim) == before, "init changed the folder outside the board")
        mine = board / "box" / "impl"
        check(mine.is_dir() and not mine.is_symlink(), "box/impl is still a link after init (F2: set aside, recreated)")
        a = impl.ask(op="send", to="kit", body="through the links", timeout=40)
        check(a.get("result") == 1, f"send answered {a}")
        got = kit.receive()
        if got is None or got.body != "through the links":
            raise Fail("the kit did not get the message")
        (mine / msg_name(1)).write_bytes(_kit_frame("kit", run_of(kit), "impl", "r", 1, "damaged")[:-2])
        check(kit.send("impl", "valid"), f"the kit could not send: {kit.last_error}")
        a = impl.ask(op="recv", timeout=40)
        check(a.get("result") == 2 and a.get("body") == "valid", f"recv answered {a}")
        a = impl.ask(op="send", to="ghost", body="into the link", timeout=40)
        check(a.get("result") != 1, "delivered into box/ghost, a link to a folder outside the board")
        lock = board / "lock"                                   # L5: a stale lock with a link inside
        if os.path.lexists(lock):
            raise Fail("lock/ is still there after the implementation released it")
        lock.mkdir()
        (lock / "owner").write_bytes(fsops.record(
            "cardstand-lock 1\ntoken: 0badc0de0badc0de\nname: ghost\nhost: elsewhere\nmachine: elsewhere/b\npid: 1"))
        _link(victim, lock / "inside")
        _link(victim / "beat", lock / "beat")
        a = impl.ask(op="send", to="kit", body="past the stale lock", timeout=40)
        check(a.get("result") == 1, f"send answered {a}")
        got = kit.receive()
        if got is None or got.body != "past the stale lock":
            raise Fail("the kit did not get the message")
        check(impl.ask(op="init", timeout=40).get("ok"), "a second init failed")
    finally:
        impl.close()
    after = _snapshot(victim)
    changed = sorted(set(before) ^ set(after) | {k for k in before if k in after and before[k] != after[k]})
    check(after == before, f"the folder outside the board changed: {', '.join(changed[:6])}")


def _fifo(p: Path) -> None:
    """A FIFO at ``p`` (a SKIP where there are none)."""
    if not hasattr(os, "mkfifo"):
        raise Skip("no FIFOs on this system")
    try:
        os.mkfifo(p)
    except OSError as e:
        raise Skip(f"cannot make a FIFO here: {e}") from None


def s_fifo(cmd: str, d: Path) -> None:
    """B7 M2 M4 S3: a FIFO and a folder named like messages neither block nor jam a mailbox."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl", lock_timeout=5)
    try:
        impl.ask(op="init")
        box = d / "box" / "impl"
        run = _run_of(box)
        _fifo(box / msg_name(1))
        (box / msg_name(2)).mkdir()
        (box / msg_name(2) / "inside").write_text("x")
        _place(kit, other_view(box), lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, "after the junk"))
        a = impl.ask(op="recv", timeout=10)
        check(a.get("result") == 2 and a.get("body") == "after the junk", f"recv answered {a}")
        check(impl.ask(op="recv", timeout=10).get("result") == -1, "the junk came back as a message")
        _place(kit, other_view(box), lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, "and the next"))
        a = impl.ask(op="recv", timeout=10)
        check(a.get("result") == 2 and a.get("body") == "and the next", f"the mailbox is jammed: recv answered {a}")
        kbox = d / "box" / "kit"                             # where its next message to the kit would go
        _fifo(kbox / msg_name(1))
        (kbox / msg_name(2)).mkdir()
        a = impl.ask(op="send", to="kit", body="past the FIFO", timeout=10)
        check(a.get("result") == 1, f"send answered {a}")
        bodies = [data.decode("utf-8") for _, (f, data) in _plain_messages(kbox)]
        check(bodies == ["past the FIFO"], f"messages in the kit's mailbox: {bodies}")
        check(not os.path.lexists(d / "lock"), "the lock was left held")
    finally:
        impl.close()


def s_pointers(cmd: str, d: Path) -> None:
    """M2 M3 M4: absurd head values (beyond tail + 1000, 15 digits) neither loop forever nor fake a full mailbox."""
    kit = KitBoard(other_view(d), "kit").join()
    impl = Served(cmd, d, "impl", lock_timeout=5)
    try:
        impl.ask(op="init")
        box = other_view(d) / "box" / "impl"
        run = _run_of(box)
        for head in ("999999999999999", "5000", "99999999999"):
            tail = fsops.read_int(box / "tail")
            fsops.replace_with(kit.tmp, box / "head", fsops.record(str(tail)), durable=False)
            _place(kit, box, lambda k: _kit_frame("kit", run_of(kit), "impl", run, k, f"head {head}"))
            fsops.replace_with(kit.tmp, box / "head", fsops.record(head), durable=False)
            a = impl.ask(op="recv", timeout=10)
            check(a.get("result") == 2 and a.get("body") == f"head {head}", f"with head {head}, recv answered {a}")
            check(impl.ask(op="recv", timeout=10).get("result") == -1, f"with head {head}, a second message appeared")
        kbox = other_view(d) / "box" / "kit"
        for head in ("999999999999999", "5000"):
            fsops.replace_with(kit.tmp, kbox / "head", fsops.record(head), durable=False)
            a = impl.ask(op="send", to="kit", body=f"to head {head}", timeout=10)
            check(a.get("result") == 1, f"with the kit's head at {head}, send answered {a} (not full: M3)")
            found = _plain_messages(kbox)
            bodies = [data.decode("utf-8") for _, (f, data) in found]
            check(bodies == [f"to head {head}"], f"with the kit's head at {head}, its mailbox holds {bodies}")
            path, (f, _) = found[0]
            check(len(path.name) == len(msg_name(1)), f"with head {head}, the message went to {path.name}")
            path.unlink()                                    # consumed by hand (the kit's own reader would loop)
            fsops.replace_with(kit.tmp, kbox / "tail", fsops.record(f["seq"]), durable=False)
    finally:
        impl.close()
