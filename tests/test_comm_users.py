"""Several OS users on one machine share a board (PROTOCOL.md F2, L7).

Needs root on Linux (to make two throw-away users with ``useradd`` and run processes as them
with ``setpriv``); elsewhere it skips.  The users, their group and their files are removed at
the end.  Each user's processes run with umask 022, as a login shell would give them.
"""
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from commtools import WORKER

pytestmark = pytest.mark.xdist_group("os-users")

ROOT = Path(WORKER).resolve().parents[1]
PYTHON = "/usr/bin/python3"   # the test's own interpreter may live where other users cannot go


def _site_packages():
    import colorama
    return str(Path(colorama.__file__).resolve().parents[1])


@pytest.fixture(scope="module")
def users():
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("needs root on Linux to make two OS users")
    for tool in ("useradd", "userdel", "groupadd", "groupdel", "setpriv"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is missing")
    if not os.access(PYTHON, os.X_OK):
        pytest.skip(f"no {PYTHON} that every user can run")
    tag = uuid.uuid4().hex[:6]
    group, names = f"cst{tag}", [f"cst{tag}a", f"cst{tag}b"]
    made = []
    try:
        subprocess.run(["groupadd", group], check=True, capture_output=True)
        made.append(("group", group))
        for n in names:
            subprocess.run(["useradd", "-M", "-N", "-g", "nogroup", "-G", group, "-s", "/bin/sh", n],
                           check=True, capture_output=True)
            made.append(("user", n))
        import pwd
        yield {"group": group, "names": names, "uids": [pwd.getpwnam(n).pw_uid for n in names]}
    except subprocess.CalledProcessError as e:
        pytest.skip(f"could not make test users: {e.stderr.decode(errors='replace')}")
    finally:
        for kind, n in reversed(made):
            subprocess.run(["userdel" if kind == "user" else "groupdel", n], capture_output=True)


@pytest.fixture
def place(users):
    """A shared folder (the group's, setgid) with the board in it, and a temp folder (1777)."""
    import grp
    top = Path(f"/tmp/cardstand-users-{uuid.uuid4().hex[:8]}")
    top.mkdir(mode=0o755)
    shared = top / "shared"
    shared.mkdir()
    os.chown(shared, 0, grp.getgrnam(users["group"]).gr_gid)
    os.chmod(shared, 0o2770)
    tmp = top / "tmp"
    tmp.mkdir()
    os.chmod(tmp, 0o1777)
    yield shared / "board", tmp
    shutil.rmtree(top, ignore_errors=True)


def as_user(user, tmpdir, *args, stale=1.0, wait=True, timeout=60):
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmpdir), "COMM_STALE": str(stale),
           "PYTHONPATH": f"{ROOT}:{_site_packages()}", "HOME": str(tmpdir), "LANG": "C.UTF-8"}
    cmd = ["setpriv", f"--reuid={user}", f"--regid=nogroup", "--init-groups", "sh", "-c",
           'umask 022; exec "$@"', "sh", PYTHON, WORKER, *map(str, args)]
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{user} {args}: {r.stderr[-2000:]}"
    return r.stdout.splitlines()[1:], r.stderr


def test_two_users_share_a_board(users, place):
    board, tmp = place
    a, b = users["names"]
    as_user(a, tmp, "do", board, "alice")            # alice makes the board
    as_user(b, tmp, "do", board, "bob")
    out, err = as_user(a, tmp, "do", board, "alice", "send:bob:from another user")
    assert out == ["sent bob"], err
    out, err = as_user(b, tmp, "do", board, "bob", "recv:10", "send:alice:and back")
    assert out == ["got from another user", "sent alice"], err
    out, err = as_user(a, tmp, "do", board, "alice", "recv:10")
    assert out == ["got and back"], err
    # what the board holds is the group's: files 0664, folders 2775 (setgid: the group stays)
    for p in [board, *board.rglob("*")]:
        st = os.lstat(p)
        want = 0o2775 if stat.S_ISDIR(st.st_mode) else 0o664
        assert stat.S_IMODE(st.st_mode) == want, (p, oct(st.st_mode))
    # each user queues on a host-local lock folder of their own, private
    for uid in users["uids"]:
        st = os.lstat(tmp / f"cardstand-locks-{uid}")
        assert st.st_uid == uid and stat.S_IMODE(st.st_mode) == 0o700


def test_a_lock_left_by_one_user_is_broken_by_the_other(users, place):
    board, tmp = place
    a, b = users["names"]
    as_user(b, tmp, "do", board, "bob")
    holder = as_user(a, tmp, "hold_and_die", board, "alice", wait=False)
    assert holder.stdout.readline().strip() == "holding", holder.stderr.read()
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert (board / "lock").is_dir()
    t = time.monotonic()
    out, err = as_user(b, tmp, "do", board, "carol", "send:bob:after", stale=1.0)
    assert out == ["sent bob"], err
    assert time.monotonic() - t < 10
    assert not (board / "lock").exists()
    assert list((board / "tmp").iterdir()) == []   # the other user's lock folder went too


def test_a_planted_lock_folder_in_the_temp_folder_is_not_used(users, place, tmp_path):
    """Another user makes this user's host-local lock folder first (a link, or their own
    folder): it is not used, nothing is written through it, the board still works."""
    board, tmp = place
    a, b = users["names"]
    uid_a = users["uids"][0]
    victim = tmp / "victim-of-b"
    victim.mkdir()
    os.chown(victim, users["uids"][1], -1)
    os.symlink(victim, tmp / f"cardstand-locks-{uid_a}")
    os.lchown(tmp / f"cardstand-locks-{uid_a}", users["uids"][1], -1)
    as_user(b, tmp, "do", board, "bob")
    out, err = as_user(a, tmp, "do", board, "alice", "send:bob:still works")
    assert out == ["sent bob"], err
    assert "not using" in err and "host-local" in err
    assert list(victim.iterdir()) == []
    out, _ = as_user(b, tmp, "do", board, "bob", "recv:10")
    assert out == ["got still works"]
