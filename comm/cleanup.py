"""Clean-up of a board (S1): scratch left by crashed writers and old trash, removed by name
only (F3), judged old by the share's own clock.  Never follows a link."""
import logging
import os
import re
import stat
from typing import Any

from . import fsops

log = logging.getLogger("comm")

SCRATCH_MAX_AGE = 600.0  # seconds, by the share's own clock (also how far in the future)
TRASH_MAX_AGE = 7 * 86400.0
# What clean-up may remove (S1), and nothing else (F3): in tmp/, scratch files and the
# private, stale and released lock folders with their moved owner records; in trash/, what
# was set aside.  (Through a link that a share's server follows, clean-up can only ever
# reach names of these forms.)
_SCRATCH_FILE = re.compile(r"[^/]+\.tmp|(stale|released)-[0-9A-Za-z]+-owner")
_SCRATCH_DIR = re.compile(r"(lock|stale|released)-[0-9A-Za-z]+")
_TRASH_ENTRY = re.compile(r"[0-9A-Za-z]+-[^/]+")


def clean_scratch(root: "fsops.Root[Any]") -> None:
    """Remove scratch left by crashed writers, judged old by the share's own clock (and
    scratch dated more than as much in the future), and old trash.  Never follows a link."""
    try:
        with root.batch():
            probe = root.write_scratch("tmp", b"", durable=False)
            st = root.lstat(probe)
            root.remove(probe)
            if st is None:
                return
            now = st.st_mtime
            for folder, max_age in (("tmp", SCRATCH_MAX_AGE), ("trash", TRASH_MAX_AGE)):
                for name, est in root.scan(folder):
                    if est is None or not _cleanable(folder, name, est):
                        continue
                    rel = f"{folder}/{name}"
                    spare = folder == "tmp" and name.startswith("lock-") and stat.S_ISDIR(est.st_mode)
                    if spare:   # a kept private lock folder: its owner is rewritten (S1)
                        ost = root.lstat(f"{rel}/owner")
                        if ost is not None and stat.S_ISREG(ost.st_mode) and ost.st_mtime > est.st_mtime:
                            est = ost
                    age = now - est.st_mtime
                    if not (age > max_age or age < -SCRATCH_MAX_AGE):
                        continue
                    if spare:   # away from the name its member renames to lock, then deleted
                        rel, old = f"tmp/stale-{fsops.new_token()}", rel
                        try:
                            root.rename(old, rel, attempts=1)
                        except OSError:
                            continue    # taken or renamed under us: not ours to delete
                    root.remove_tree(rel)
    except OSError as e:
        log.debug("scratch clean-up skipped: %s", e)


def _cleanable(folder: str, name: str, st: os.stat_result) -> bool:
    """Whether clean-up may remove ``folder/name`` (a link is never followed: it goes alone)."""
    if folder == "trash":
        return bool(_TRASH_ENTRY.fullmatch(name))
    is_dir = stat.S_ISDIR(st.st_mode)
    return bool((_SCRATCH_DIR if is_dir else _SCRATCH_FILE).fullmatch(name)
                or not is_dir and _SCRATCH_DIR.fullmatch(name))
