"""A board folder that others can write: links, FIFOs, folders and absurd numbers planted in it.

Every attack runs through real processes (tests/comm_worker.py).  A test that plants a link
proves that the victim folder outside the board is unchanged byte for byte (every file and
folder hashed, with its mode and time, before and after) and that messaging still works
afterwards.  The link tests also run the portable code path (check with lstat, then act: what
Windows does) and, where a link can be made, through a real network share.
"""
import hashlib
import os
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from commtools import WORKER

STALE = 1.0        # stale_after of the worker processes
OLD = time.time() - 30 * 86400      # older than any clean-up limit
FUTURE = time.time() + 86400        # far in the future


def run(board, name, *actions, portable=False, timeout=60, stale=STALE, env=None):
    """Run one worker process (join ``name``, then ``actions``); its output lines."""
    e = dict(os.environ, COMM_STALE=str(stale), **(env or {}))
    if portable:
        e["COMM_PORTABLE"] = "1"
    try:
        r = subprocess.run([sys.executable, WORKER, "do", str(board), name, *actions], capture_output=True,
                           text=True, timeout=timeout, env=e)
    except subprocess.TimeoutExpired as t:
        pytest.fail(f"{name} {actions} did not finish within {timeout} s (blocked?): {t.stderr}")
    assert r.returncode == 0, f"{name} {actions} failed: {r.stderr[-2000:]}"
    lines = r.stdout.splitlines()
    assert lines and lines[0] == "joined", r.stdout + r.stderr
    return lines[1:], r.stderr


def make_victim(folder):
    """A folder outside the board full of things clean-up would love to delete: names the board
    uses, old and future files, nested folders."""
    folder.mkdir(parents=True)
    files = {"secret.txt": b"precious\n", "owner": b"cardstand-lock 1\ntoken: 0\n", "beat": b"7\n",
             "member": b"cardstand-member 1\nname: bob\nrun: 0123456789abcdef\n", "head": b"5\n",
             "tail": b"3\n", "cardstand.board": b"cardstand-board 1\n",
             "000000000001.msg": b"cardstand-msg 1\n", "host-1-abc.tmp": b"scratch\n",
             "sub/deep.txt": b"deep\n", "sub/lock-0123/owner": b"x\n", "box/bob/member": b"m\n"}
    for rel, data in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (folder / "future.tmp").write_bytes(b"from the future\n")
    os.chmod(folder / "secret.txt", 0o600)
    for p in sorted(folder.rglob("*"), reverse=True):
        t = FUTURE if p.name == "future.tmp" else OLD
        os.utime(p, (t, t))
    os.utime(folder, (OLD, OLD))
    return folder


def snapshot(folder):
    """Every entry below ``folder``: kind, mode, modification time and content hash."""
    out = {}
    st = os.lstat(folder)
    out["."] = ("dir", stat.S_IMODE(st.st_mode), st.st_mtime_ns)
    for dirpath, dirnames, filenames in os.walk(folder):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            rel = os.path.relpath(p, folder)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", stat.S_IMODE(st.st_mode), st.st_mtime_ns)
            else:
                with open(p, "rb") as f:
                    out[rel] = ("file", stat.S_IMODE(st.st_mode), st.st_mtime_ns,
                                hashlib.sha256(f.read()).hexdigest())
    return out


def link(target, at):
    """A symbolic link at ``at`` to ``target`` (relative, so that it resolves the same way on a
    share's server as on its clients)."""
    os.symlink(os.path.relpath(target, at.parent), at)


def in_trash(board):
    return [(p.name, "link" if p.is_symlink() else "dir" if p.is_dir() else "file")
            for p in (board / "trash").iterdir()]


def messaging_works(board, portable=False, tag="after"):
    out, _ = run(board, "alice", f"send:bob:{tag}", portable=portable)
    assert out == ["sent bob"], out
    out, _ = run(board, "bob", "recv:10", portable=portable)
    assert out == [f"got {tag}"], out


@pytest.fixture
def victim(tmp_path):
    v = make_victim(tmp_path / "victim")
    before = snapshot(v)
    yield v
    assert snapshot(v) == before, "the victim folder outside the board was changed"


@pytest.fixture
def board(tmp_path):
    b = tmp_path / "board"
    run(b, "bob")
    run(b, "alice")
    return b


MODES = [pytest.param(False, id="dirfd"), pytest.param(True, id="portable")]


# -- links planted as fixed folders ---------------------------------------------------------------
@pytest.mark.parametrize("portable", MODES)
def test_tmp_as_a_link_is_set_aside_never_used(board, victim, portable, caplog):
    import shutil
    shutil.rmtree(board / "tmp")
    link(victim, board / "tmp")
    _, err = run(board, "carol", portable=portable)      # join: scratch written, clean-up run
    assert "'tmp'" in err and "symbolic link" in err, err
    assert (board / "tmp").is_dir() and not (board / "tmp").is_symlink()
    assert ("link" in {kind for _, kind in in_trash(board)})
    messaging_works(board, portable)


@pytest.mark.parametrize("portable", MODES)
def test_trash_as_a_link_is_set_aside_never_used(board, victim, portable):
    import shutil
    shutil.rmtree(board / "trash")
    link(victim, board / "trash")
    (board / "box" / "bob" / "000000000001.msg").write_bytes(b"garbage, to be set aside\n")
    run(board, "carol", portable=portable)               # clean-up of old trash
    messaging_works(board, portable)                     # bob sets the garbage aside
    assert not (board / "trash").is_symlink()
    kinds = sorted(kind for _, kind in in_trash(board))
    assert kinds == ["file", "link"], kinds


@pytest.mark.parametrize("portable", MODES)
def test_box_as_a_link_is_set_aside(board, victim, portable):
    import shutil
    shutil.rmtree(board / "box")
    link(victim, board / "box")
    run(board, "bob", portable=portable)
    assert not (board / "box").is_symlink()
    messaging_works(board, portable)


@pytest.mark.parametrize("portable", MODES)
def test_lock_as_a_link_is_set_aside_at_once(board, victim, portable):
    link(victim, board / "lock")
    t = time.monotonic()
    out, err = run(board, "alice", "send:bob:through", portable=portable, stale=30)
    assert out == ["sent bob"] and time.monotonic() - t < 15, (out, err)
    assert not (board / "lock").exists()
    out, _ = run(board, "bob", "recv:10", portable=portable)
    assert out == ["got through"]


@pytest.mark.parametrize("portable", MODES)
def test_links_inside_a_stale_lock_are_not_followed(board, victim, portable):
    lock = board / "lock"
    lock.mkdir()
    link(victim / "owner", lock / "owner")          # the owner record itself a link
    (lock / "beat").write_bytes(b"1\n")
    link(victim, lock / "sub")                      # a folder link inside
    link(victim / "secret.txt", lock / "secret")    # a file link inside
    t = time.monotonic()
    out, err = run(board, "alice", "send:bob:after the break", portable=portable)
    assert out == ["sent bob"], err
    assert time.monotonic() - t >= STALE * 0.9      # judged stale after the bound, then broken
    assert "broke a stale lock" in err
    assert not lock.exists()
    out, _ = run(board, "bob", "recv:10", portable=portable)
    assert out == ["got after the break"]


@pytest.mark.parametrize("portable", MODES)
def test_old_links_under_tmp_are_removed_not_followed(board, victim, portable):
    tmp = board / "tmp"
    link(victim, tmp / "lock-0123456789abcdef")     # an "old private lock folder" that is a link
    link(victim / "secret.txt", tmp / "host-1-0.tmp")
    old = tmp / "stale-0123456789abcdef"            # a real old folder with links inside
    (old / "deeper").mkdir(parents=True)
    link(victim, old / "deeper" / "into-victim")
    link(victim / "sub", old / "sub")
    (old / "owner").write_bytes(b"x")
    for p in (tmp / "lock-0123456789abcdef", tmp / "host-1-0.tmp", old / "deeper" / "into-victim",
              old / "sub", old / "owner", old / "deeper", old):
        os.utime(p, (OLD, OLD), follow_symlinks=False)
    (tmp / "notes").write_bytes(b"not a scratch name: left alone")
    os.utime(tmp / "notes", (OLD, OLD))
    run(board, "carol", portable=portable)          # join cleans tmp/
    assert sorted(p.name for p in tmp.iterdir()) == ["notes"]
    messaging_works(board, portable)


@pytest.mark.parametrize("portable", MODES)
def test_mailbox_folder_as_a_link(board, victim, portable):
    """box/<key> a link to a folder that looks like a mailbox: nothing is delivered there."""
    import shutil
    shutil.rmtree(board / "box" / "bob")
    link(victim / "box" / "bob", board / "box" / "bob")
    out, err = run(board, "alice", "send:bob:into the link?", portable=portable)
    assert out == ["failed bob has not joined this board"], (out, err)
    assert not (board / "box" / "bob").is_symlink()
    run(board, "bob", portable=portable)            # bob joins again: his mailbox is rebuilt
    messaging_works(board, portable)


def test_own_mailbox_replaced_by_a_link_while_waiting(board, victim):
    """A running reader whose mailbox is swapped for a link rebuilds it and keeps receiving."""
    import shutil
    reader = subprocess.Popen([sys.executable, WORKER, "do", str(board), "bob", "recv:30", "recv:30"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, COMM_STALE=str(STALE)))
    try:
        assert reader.stdout.readline().strip() == "joined"
        deadline = time.monotonic() + 20
        while True:   # (bob may rebuild his mailbox between the two steps: then swap it again)
            shutil.rmtree(board / "box" / "bob", ignore_errors=True)
            try:
                link(victim / "box" / "bob", board / "box" / "bob")
                break
            except FileExistsError:
                assert time.monotonic() < deadline, "the mailbox could not be swapped for a link"
        while True:   # bob notices within a poll or two and rebuilds his mailbox
            out, _ = run(board, "alice", "send:bob:rebuilt")
            if out == ["sent bob"]:
                break
            assert time.monotonic() < deadline, out
            time.sleep(0.2)
        assert reader.stdout.readline().strip() == "got rebuilt"
        out, _ = run(board, "alice", "send:bob:again")
        assert reader.stdout.readline().strip() == "got again"
        assert reader.wait(timeout=30) == 0, reader.stderr.read()
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()


@pytest.mark.parametrize("portable", MODES)
@pytest.mark.parametrize("record", ["head", "tail", "alive"])
def test_records_as_links_are_replaced_never_written_through(board, victim, portable, record):
    box = board / "box" / "bob"
    (box / record).unlink(missing_ok=True)
    link(victim / record, box / record)
    run(board, "bob", "beat", portable=portable)     # rewrites alive
    messaging_works(board, portable)                  # rewrites head and tail
    assert not (box / record).is_symlink()


@pytest.mark.parametrize("portable", MODES)
def test_member_record_as_a_link(board, victim, portable):
    box = board / "box" / "bob"
    (box / "member").unlink()
    link(victim / "member", box / "member")
    out, err = run(board, "alice", "send:bob:x", portable=portable)
    assert out[0].startswith("failed the mailbox of bob is damaged"), out
    run(board, "bob", portable=portable)            # bob joins again: a new member record
    messaging_works(board, portable)


# -- files that are not what their name says ----------------------------------------------------
fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


@fifo
@pytest.mark.parametrize("portable", MODES)
@pytest.mark.parametrize("name", ["000000000001.msg", "000000000002.msg", "head", "tail", "alive"])
def test_fifo_never_blocks_a_sender_or_the_board(board, portable, name):
    """A FIFO named like the next message once blocked a sender inside open() while its
    heartbeat kept the lock alive: the whole board froze."""
    if name == "000000000002.msg":   # one real message waits before it
        out, _ = run(board, "alice", "send:bob:first", portable=portable)
    os.mkfifo(board / "box" / "bob" / name)
    out, err = run(board, "alice", "send:bob:not blocked", portable=portable, timeout=30)
    assert out == ["sent bob"], err
    out, err = run(board, "carol", "send:bob:board not frozen", portable=portable, timeout=30)
    assert out == ["sent bob"], err
    want = (["first"] if name == "000000000002.msg" else []) + ["not blocked", "board not frozen"]
    out, err = run(board, "bob", *["recv:10"] * len(want), portable=portable, timeout=60)
    assert out == [f"got {w}" for w in want], (out, err)
    assert not any(stat.S_ISFIFO(os.lstat(p).st_mode) for p in (board / "box" / "bob").iterdir()
                   if p.name.endswith(".msg")), "a FIFO still waits in the mailbox"
    messaging_works(board, portable)


@fifo
def test_fifo_as_member_record(board):
    member = board / "box" / "bob" / "member"
    member.unlink()
    os.mkfifo(member)
    out, _ = run(board, "alice", "send:bob:x", timeout=30)
    assert out[0].startswith("failed the mailbox of bob is damaged"), out
    run(board, "bob")
    messaging_works(board)


@pytest.mark.parametrize("portable", MODES)
def test_folder_named_like_a_message_does_not_jam_the_mailbox(board, portable):
    d = board / "box" / "bob" / "000000000001.msg"
    d.mkdir()
    (d / "inside").write_bytes(b"x")
    out, _ = run(board, "alice", "send:bob:one", "send:bob:two", portable=portable)
    assert out == ["sent bob", "sent bob"]
    out, err = run(board, "bob", "recv:10", "recv:10", "recv:0.5", portable=portable, timeout=60)
    assert out == ["got one", "got two", "none"], err
    assert not d.exists()
    assert ("dir" in {kind for _, kind in in_trash(board)})


@pytest.mark.parametrize("portable", MODES)
def test_folder_named_like_a_record_is_set_aside(board, portable):
    (board / "box" / "bob" / "head").unlink(missing_ok=True)
    (board / "box" / "bob" / "head").mkdir()
    messaging_works(board, portable)
    assert (board / "box" / "bob" / "head").is_file()


def test_huge_message_file_is_set_aside(board):
    big = board / "box" / "bob" / "000000000001.msg"
    with open(big, "wb") as f:
        f.truncate(3 << 30)         # 3 GiB, sparse
    messaging_works(board)
    assert not big.exists()


@pytest.mark.parametrize("head", ["9" * 21, "999999999999", "999999000001", "1500", "abc", "-5", ""])
def test_absurd_head_pointer_neither_loops_nor_says_full(board, head, tmp_path):
    """A huge head once made a reader skip "missing" numbers for ever and a sender say
    "mailbox full"."""
    (board / "box" / "bob" / "head").write_text(head + "\n")
    t = time.monotonic()
    out, err1 = run(board, "alice", "send:bob:one", "send:bob:two", timeout=30)
    assert out == ["sent bob", "sent bob"], err1
    out, err2 = run(board, "bob", "recv:10", "recv:10", "recv:0.2", timeout=30)
    assert out == ["got one", "got two", "none"], err2
    assert time.monotonic() - t < 20
    if head != "1500":
        assert "damaged pointers" in err1 + err2
    n = int((board / "box" / "bob" / "head").read_text().strip())
    assert n < 10 ** 6, n
    messaging_works(board)


@pytest.mark.parametrize("tail", ["9" * 21, "999999999999", "abc"])
def test_absurd_tail_pointer(board, tail):
    out, _ = run(board, "alice", "send:bob:waiting")
    (board / "box" / "bob" / "tail").write_text(tail + "\n")
    out, err = run(board, "bob", "recv:10", timeout=30)
    assert out == ["got waiting"], err
    messaging_works(board)


def test_head_far_above_tail_with_few_messages_is_not_full(board):
    """head - tail over the limit while few messages wait: the head is damaged, not the box full."""
    (board / "box" / "bob" / "head").write_text("1000\n")
    out, err = run(board, "alice", "send:bob:room", timeout=30)
    assert out == ["sent bob"], err
    out, err = run(board, "bob", "recv:10", timeout=30)
    assert out == ["got room"], err


# -- clean-up by the share's clock ------------------------------------------------------------
def test_scratch_dated_in_the_future_is_cleaned_up(board):
    tmp, trash = board / "tmp", board / "trash"
    far, near, old_trash, future_trash = (tmp / "host-1-far.tmp", tmp / "host-1-near.tmp",
                                          trash / "x-old", trash / "x-future")
    for p in (far, near, old_trash, future_trash):
        p.write_bytes(b"x")
    (tmp / "lock-future").mkdir()
    now = time.time()
    os.utime(far, (now + 3600, now + 3600))
    os.utime(tmp / "lock-future", (now + 3600, now + 3600))
    os.utime(near, (now + 300, now + 300))          # within 10 minutes: may be a live writer's
    os.utime(old_trash, (now - 8 * 86400,) * 2)
    os.utime(future_trash, (now + 3600,) * 2)
    run(board, "carol")
    assert sorted(p.name for p in tmp.iterdir()) == ["host-1-near.tmp"]
    assert list(trash.iterdir()) == []


# -- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["CON", "prn", "Aux", "nul", "COM0", "com1", "COM9", "LPT0", "lpt5",
                                  "LPT9", "COM¹", "lpt³"])
def test_windows_device_names_are_refused(tmp_path, name):
    from comm import Board, InvalidArgument
    from comm.message import _RESERVED
    with pytest.raises(InvalidArgument):
        Board(tmp_path / "b", name)
    assert name.lower() in _RESERVED
    assert not (tmp_path / "b").exists()


def test_names_near_device_names_are_fine(tmp_path):
    from comm import Board
    for name in ("COM10", "LPT10", "console", "nul1x", "con-1"):
        Board(tmp_path / "b", name)


# -- the records folder of the game layer, through the path helpers ---------------------------------
def test_records_folder_as_a_link_through_the_path_helpers(board, victim):
    """peer keeps records/ on the board with fsops.replace_with / read_text: a link there is
    set aside, and a game id with '..' never leaves the board."""
    link(victim / "sub", board / "records")
    code = ("import sys; from pathlib import Path; import comm; from comm import fsops\n"
            "b = Path(sys.argv[1]); comm.Board(b, 'black').join()\n"
            "fsops.replace_with(b / 'tmp', b / 'records' / 'g1.game', b'record\\n')\n"
            "fsops.replace_with(b / 'tmp', b / 'records' / 'current', fsops.record('g1'))\n"
            "print(fsops.read_text_full(b / 'records' / 'g1.game').strip())\n"
            "print(fsops.read_text_full(b / 'records' / '..' / '..' / 'victim' / 'secret.txt'))\n"
            "try:\n"
            "    fsops.replace_with(b / 'tmp', b / 'records' / '../../victim/secret.txt', b'x')\n"
            "except OSError as e:\n"
            "    print('refused')\n")
    r = subprocess.run([sys.executable, "-c", code, str(board)], capture_output=True, text=True, timeout=60,
                       cwd=str(Path(WORKER).parents[1]))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:3] == ["record", "None", "refused"], r.stdout + r.stderr
    assert (board / "records").is_dir() and not (board / "records").is_symlink()


# -- the same through a real network share --------------------------------------------------
share_kinds = pytest.mark.parametrize("kind", ["sshfs", "smb"])


def share_board(kind, request, mount=1):
    """A fresh board folder on a real share, through mount ``mount`` (0: A, 1: B), and the
    same folder on the share's server (this machine) for checking what really happened."""
    from netfs import share
    mounts = share(kind)
    server = Path(os.environ.get("NETFS_EXPORT", "/srv/netfs/export"))
    if not server.is_dir():
        pytest.skip(f"the share's server folder {server} is not on this machine")
    sub = f"hostile-{uuid.uuid4().hex[:8]}"
    top = mounts[mount] / sub
    top.mkdir()
    import shutil
    request.addfinalizer(lambda: shutil.rmtree(server / sub, ignore_errors=True))
    try:
        os.symlink("board", top / "probe-link")
        ok = os.path.islink(server / sub / "probe-link")
        os.unlink(top / "probe-link")
    except OSError as e:
        pytest.skip(f"{kind}: a symbolic link cannot be made through this share ({e.strerror or e})")
    if not ok:
        pytest.skip(f"{kind}: a link made through this share is not a link on the server")
    return [m / sub / "board" for m in mounts], server / sub


def plant(attack, board, victim, server_board):
    """Plant one link attack through a mount (``victim``: the victim as seen through it).
    Times of a link are set on the server: a share's client cannot (SFTP sets the target's)."""
    import shutil
    if attack in ("tmp", "trash", "box"):
        shutil.rmtree(board / attack)
        link(victim, board / attack)
    elif attack == "lock":
        link(victim, board / "lock")
    elif attack == "inside-lock":
        (board / "lock").mkdir()
        link(victim / "owner", board / "lock" / "owner")
        link(victim, board / "lock" / "sub")
    elif attack == "old-under-tmp":
        link(victim, board / "tmp" / "lock-0123456789abcdef")
        os.utime(server_board / "tmp" / "lock-0123456789abcdef", (OLD, OLD), follow_symlinks=False)
    elif attack == "box-key":
        shutil.rmtree(board / "box" / "bob")
        link(victim / "box" / "bob", board / "box" / "bob")
    elif attack == "records":
        link(victim / "sub", board / "records")
    elif attack == "head":
        link(victim / "head", board / "box" / "bob" / "head")


SHARE_ATTACKS = ["tmp", "trash", "box", "lock", "inside-lock", "old-under-tmp", "box-key", "records", "head"]


def act(attack, board):
    """What an honest member does next on the board: join (clean-up), send, receive."""
    if attack == "records":
        code = ("import sys; from pathlib import Path; import comm; from comm import fsops\n"
                "b = Path(sys.argv[1]); comm.Board(b, 'black').join()\n"
                "fsops.replace_with(b / 'tmp', b / 'records' / 'g1.game', b'record')\n")
        r = subprocess.run([sys.executable, "-c", code, str(board)], capture_output=True, text=True,
                           timeout=120, cwd=str(Path(WORKER).parents[1]))
        assert r.returncode == 0, r.stderr
    run(board, "carol", timeout=120)             # join: marker, fixed folders, clean-up
    out, err = run(board, "alice", "send:bob:probe", timeout=120)
    if attack in ("box", "box-key"):
        assert out[0].startswith("failed"), out  # bob's mailbox was set aside: he joins again
    else:
        assert out == ["sent bob"], err
    run(board, "bob", "quiet", timeout=120)


@pytest.mark.netfs
@pytest.mark.xdist_group("netfs")
@share_kinds
@pytest.mark.parametrize("attack", SHARE_ATTACKS)
def test_links_through_a_share(kind, attack, request):
    """Each link attack through a share: planted and acted on through one mount; the victim
    is on the same share outside the board, checked on the server.  Then the other mount
    (another computer) still talks to this one."""
    (board_a, board_b), server_sub = share_board(kind, request)
    victim = make_victim(server_sub / "victim")
    before = snapshot(victim)
    run(board_b, "bob", timeout=120)
    run(board_b, "alice", timeout=120)
    plant(attack, board_b, board_b.parent / "victim", server_sub / "board")
    act(attack, board_b)
    assert snapshot(victim) == before, "the victim folder outside the board was changed"
    for name in ("tmp", "trash", "box", "lock", "records", "box/bob", "box/bob/head"):
        assert not os.path.islink(server_sub / "board" / name), name
    out, err = run(board_b, "alice", "send:bob:through the share", timeout=120)
    assert out == ["sent bob"], err
    out, err = run(board_b, "bob", "recv:30", timeout=120)
    assert out == ["got through the share"], err


@pytest.mark.netfs
@pytest.mark.xdist_group("netfs")
@share_kinds
def test_links_planted_from_another_computer(kind, request):
    """Links planted through mount B on a board used through mount A: once A's client sees
    them (its caches may show the old folder for a while, sshfs up to 20 s: during that
    window the server follows the link, see docs/PROTOCOL.md B7), A never follows them."""
    (board_a, board_b), server_sub = share_board(kind, request, mount=0)
    victim = make_victim(server_sub / "victim")
    before = snapshot(victim)
    run(board_a, "bob", timeout=120)
    run(board_a, "alice", timeout=120)
    attacks = ["tmp", "trash", "lock", "head"]
    for attack in attacks:
        plant(attack, board_b, board_b.parent / "victim", server_sub / "board")
    deadline = time.monotonic() + 60
    while not all(os.path.islink(board_a / p) for p in ("tmp", "trash", "lock", "box/bob/head")):
        assert time.monotonic() < deadline, "mount A never saw the links"
        time.sleep(1)
    time.sleep(1)
    act("tmp", board_a)
    assert snapshot(victim) == before, "the victim folder outside the board was changed"
    out, err = run(board_b, "alice", "send:bob:across", timeout=120)
    assert out == ["sent bob"], err
    out, err = run(board_a, "bob", "recv:30", timeout=120)
    assert out == ["got across"], err


def test_fixed_folders_deleted_while_in_use_are_made_again(board):
    import shutil
    for name in ("tmp", "trash"):
        shutil.rmtree(board / name)
    out, err = run(board, "alice", "send:bob:still", timeout=30)   # joins: made again anyway
    (board / "box" / "bob" / "000000000002.msg").write_bytes(b"junk for the trash")
    shutil.rmtree(board / "tmp")
    shutil.rmtree(board / "trash")
    from comm import Board
    bob = Board(board, "bob", stale_after=STALE)
    member = (board / "box" / "bob" / "member").read_text()
    bob.run = next(l[5:].strip() for l in member.splitlines() if l.startswith("run: "))  # joined before
    bob._member = b""
    assert bob.receive().body == "still"
    assert bob.receive() is None               # the junk went to a trash made again
    assert (board / "tmp").is_dir() and len(list((board / "trash").iterdir())) == 1


def test_a_fresh_board_says_nothing(tmp_path):
    """Making a board and using it normally logs no warning (a warning means something was
    wrong on the board: tools print them)."""
    out, err = run(tmp_path / "fresh", "alice")
    assert err == "", err
    out, err = run(tmp_path / "fresh", "bob", "send:alice:hi")
    assert out == ["sent alice"] and err == "", err
    out, err = run(tmp_path / "fresh", "alice", "recv:10")
    assert out == ["got hi"] and err == "", err
