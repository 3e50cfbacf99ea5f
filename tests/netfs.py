"""Mount one real network share twice over loopback (FUSE), for tests that need two "computers"."""
import os
import subprocess
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "netfs-scripts" / "mount_share.sh"   # copied from the team's shared/netfs
UNMOUNT = SCRIPT.with_name("unmount_share.sh")
MNT = os.environ.get("NETFS_MNT", "/mnt/netfs")                # where the scripts mount (theirs too)
KNOWN = {"sshfs": (f"{MNT}/sshfs-a", f"{MNT}/sshfs-b"),
         "smb": (f"{MNT}/smb-a/127.0.0.1/export", f"{MNT}/smb-b/127.0.0.1/export")}


def _mounted(kind):
    a, b = KNOWN[kind]
    return os.path.isdir(a) and os.path.isdir(b) and os.path.ismount(
        a if kind == "sshfs" else f"{MNT}/smb-a") and os.access(a, os.W_OK)


def _stale(kind):
    """A mount left from a session whose server is gone ("transport endpoint is not connected")."""
    for p in (KNOWN[kind][0], f"{MNT}/smb-a" if kind == "smb" else KNOWN[kind][1]):
        try:
            os.stat(p)
        except FileNotFoundError:
            continue
        except OSError:
            return True
    return False


def _detach(kind):
    """Lazily unmount dead mount points (the shared unmount script skips them: `mountpoint` fails
    on them too), then stop the old server so the mount script starts afresh."""
    base = f"{MNT}/" + ("sshfs" if kind == "sshfs" else "smb")
    for mp in (base + "-a", base + "-b"):
        for cmd in (["fusermount3", "-uz", mp], ["fusermount", "-uz", mp], ["umount", "-l", mp]):
            try:
                if subprocess.run(cmd, capture_output=True, timeout=60).returncode == 0:
                    break
            except (OSError, subprocess.SubprocessError):
                continue
    if UNMOUNT.exists():
        subprocess.run(["bash", str(UNMOUNT), kind], capture_output=True, timeout=120)


def share(kind):
    """(mount A, mount B) of the same server folder, or skip with the reason."""
    if os.name == "nt" or os.geteuid() != 0:
        pytest.skip("mounting FUSE shares needs root on Linux")
    if not Path("/dev/fuse").exists():
        pytest.skip("no /dev/fuse: FUSE is unavailable here")
    if not _mounted(kind):
        if not SCRIPT.exists():
            pytest.skip(f"no {kind} share mounted and no mount script at {SCRIPT}")
        import fcntl
        with open("/tmp/cardstand-netfs-mount.lock", "a") as one_mounter:     # one worker mounts
            fcntl.flock(one_mounter, fcntl.LOCK_EX)
            if not _mounted(kind) and _stale(kind):
                _detach(kind)
            if not _mounted(kind):
                r = subprocess.run(["bash", str(SCRIPT), kind], capture_output=True, text=True, timeout=600)
                if r.returncode != 0:
                    pytest.skip(f"could not mount the {kind} share: {r.stderr.strip()[-300:]}")
    if not _mounted(kind):
        pytest.skip(f"the {kind} share is not mounted")
    return tuple(Path(p) for p in KNOWN[kind])


def board_pair(kind):
    a, b = share(kind)
    sub = f"board-{uuid.uuid4().hex[:8]}"
    (a / sub).mkdir()
    return a / sub, b / sub
