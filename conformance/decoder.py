"""The kit's own decoder, written from docs/PROTOCOL.md and not shared with ``comm``: message files
(M1, M3, A2), records (R1), game records (D1); and the kit's side of the board, whose every
message file it takes is first judged by that decoder."""
import hashlib
import hmac
import os
import re
import stat
import zlib
from pathlib import Path
from typing import Any, Callable

from comm import Board, fsops

from .common import check, Fail


def _check_r1(path: Path, what: str) -> str:
    """R1: a record is UTF-8 text padded with spaces to 255 bytes, then ``\\n`` (256 bytes), with
    no ``\\n`` after its last line; returns its text."""
    data = path.read_bytes()
    check(len(data) == 256 and data.endswith(b"\n"), f"{what} is {len(data)} bytes, not a 256-byte record "
                                                      "ending in \\n (R1)")
    text = data[:255].rstrip(b" ")
    check(not text.endswith(b"\n") and b"\n" not in data[len(text):255],
          f"{what}: a \\n before or inside its padding (R1: no \\n after the last line)")
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise Fail(f"{what} is not UTF-8 (R1)") from None


def _kit_record(d: Path, gid: str) -> dict[str, str] | None:
    """D1: the record ``records/<gid>.game`` read the way D1 describes it (the kit's own reading):
    a dict of its keys, or None when there is none.  ``records/current`` must name it."""
    rec = d / "records"
    try:
        raw = (rec / f"{gid}.game").read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise Fail(f"records/{gid}.game is not UTF-8 (D1)") from None
    lines = text.split("\n")
    check(lines[0] == "cardstand-game 1", f"records/{gid}.game begins {lines[0][:40]!r}, not 'cardstand-game 1' (D1)")
    check(len(raw) <= 262144 and text.endswith("\n") and "\r" not in text,
          f"records/{gid}.game ({len(raw)} bytes) is not lines each ending with \\n, at most 262,144 bytes (D1)")
    check(all(": " in line for line in lines[1:-1]), f"records/{gid}.game has a line that is not 'key: value' (D1)")
    f = {}
    for line in lines[1:]:
        k, s, v = line.rstrip("\r").partition(": ")
        if s and k not in f:
            f[k] = v
    check((rec / "current").exists(), f"no records/current beside records/{gid}.game (D1)")
    current = _check_r1(rec / "current", "records/current")
    check(current == gid, f"records/current says {current[:70]!r}, not the bare id of the game {gid} it wrote "
                          "last (D1: the id, no key, then the padding)")
    return f


def msg_name(seq: int) -> str:
    """M2: the name of message file number ``seq``."""
    return f"{seq:012d}.msg"


def _kit_mac(key: bytes, sender: str, sender_run: str, to: str, to_run: str, seq: int | str, data: bytes) -> str:
    """A2: HMAC-SHA256 over "cardstand-mac 1\\n" from \\n from-run \\n to \\n to-run \\n seq \\n body."""
    text = "\n".join(["cardstand-mac 1", sender, sender_run, to, to_run, str(seq), ""]).encode("ascii")
    return hmac.new(key, text + data, hashlib.sha256).hexdigest()


def _kit_frame(sender: str, sender_run: str, to: str, to_run: str, seq: int | str, body: str | bytes,
               key: bytes | None = None, mac: str | None = None) -> bytes:
    """A message file as M1 and A2 describe it (``mac`` forces a value)."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    head = (f"cardstand-msg 1\nfrom: {sender}\nfrom-run: {sender_run}\nto: {to}\nto-run: {to_run}\n"
            f"seq: {seq}\nlength: {len(data)}\ncrc32: {zlib.crc32(data):08x}\n")
    if mac is None and key is not None:
        mac = _kit_mac(key, sender, sender_run, to, to_run, seq, data)
    if mac is not None:
        head += f"mac: {mac}\n"
    return (head + "\n").encode("ascii") + data


_KIT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")        # N1
_KIT_RUN = re.compile(r"[A-Za-z0-9_-]{1,64}")                   # M1
_KIT_DIGITS = re.compile(r"[0-9]{1,12}")                        # M1: seq, length
_KIT_REQUIRED = ("from", "from-run", "to", "to-run", "seq", "length", "crc32")     # M1, M3 (to-run)


def _kit_parse(raw: bytes, box: str | None = None, number: int | None = None) -> tuple[dict[str, str], bytes]:
    """(header dict, body bytes) of a message file, read the way M1 describes it, with the kit's
    own code (not comm's): a header of ASCII ``key: value`` lines, every key M1 and M3 have a
    writer put there (``from-run`` and ``to-run`` included) given once and well formed, ``length``
    and ``crc32`` those of the body, the body UTF-8 (N3); ``to`` is ``box`` and ``seq`` is
    ``number`` when given (M4).  Keys M1 does not list are ignored."""
    head, sep, data = raw.partition(b"\n\n")
    check(sep, "a message file without the empty line after its header (M1)")
    try:
        lines = head.decode("ascii").split("\n")
    except UnicodeDecodeError:
        raise Fail("a message header that is not ASCII (M1)") from None
    check(lines[0] == "cardstand-msg 1", f"first line {lines[0][:40]!r} (M1)")
    f = {}
    for line in lines[1:]:
        k, s, v = line.partition(": ")
        check(s and k, f"bad header line {line[:40]!r} (M1)")
        check(k not in f, f"the header key {k!r} is given twice (M1: a bad header)")
        f[k] = v
    for k in _KIT_REQUIRED:
        check(k in f, f"a message without {k!r} in its header (M1{', M3' if k == 'to-run' else ''}): "
                      f"{head[:200].decode('ascii', 'replace')!r}")
    for k in ("from", "to"):
        check(_KIT_NAME.fullmatch(f[k]), f"{k}: {f[k][:40]!r} is not a member name (M1, N1)")
    for k in ("from-run", "to-run"):
        check(_KIT_RUN.fullmatch(f[k]), f"{k}: {f[k][:70]!r} is not 1-64 of [A-Za-z0-9_-] (M1)")
    for k in ("seq", "length"):
        check(_KIT_DIGITS.fullmatch(f[k]), f"{k}: {f[k][:20]!r} is not 1 to 12 decimal digits (M1)")
    check(re.fullmatch(r"[0-9a-f]{8}", f["crc32"]), f"crc32: {f['crc32'][:20]!r} is not 8 lower-case hex digits (M1 M1a)")
    check(int(f["length"]) == len(data), f"length: {f['length']}, the body has {len(data)} bytes (M1)")
    check(int(f["crc32"], 16) == zlib.crc32(data), "crc32: is not the body's CRC-32 (M1)")
    if "mac" in f:
        check(re.fullmatch(r"[0-9a-f]{64}", f["mac"]), f"mac: {f['mac'][:70]!r} is not 64 lower-case hex digits (A2)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise Fail("a message body that is not UTF-8 (N3)") from None
    if box is not None:
        check(f["to"].lower() == box, f"a message to {f['to']!r} in the mailbox of {box!r} (M1 M3)")
    if number is not None:
        check(int(f["seq"]) == number, f"message file {msg_name(number)} says seq: {f['seq']} (M1 M2)")
    return f, data


def _kit_inspect(box: str) -> Callable[[bytes, int], object]:
    """The kit's check of each raw message file that ``box``'s mailbox hands out."""
    return lambda raw, k: _kit_parse(raw, box=box, number=k)


def KitBoard(folder: Path, name: str, **options: Any) -> Board:
    """The kit's side of the board: comm's Board, but every message file it takes from its mailbox
    (all of them written by the implementation) is first judged by the kit's own decoder
    (``_kit_parse``, written from M1), so that comm does not judge the framing of the messages."""
    return Board(folder, name, inspect=_kit_inspect(name.lower()), **options)


def _run_of(box: Path) -> str:
    """The run in a mailbox's member record."""
    text = (box / "member").read_text("utf-8", "replace")
    runs = [line[5:].strip() for line in text.splitlines() if line.startswith("run: ")]
    check(runs and runs[0], f"no run in {box / 'member'}")
    return runs[0]


def _place(kit: Board, box: Path, make: Callable[[int], bytes]) -> int:
    """Deliver ``make(seq)`` (the bytes of a message file) into the mailbox folder ``box`` as M2/M3
    do, under the lock, probing with lstat only (never opening what is there); returns seq."""
    with kit.lease.hold(10):
        k = max(fsops.read_int(box / "head"), fsops.read_int(box / "tail")) + 1
        while os.path.lexists(box / msg_name(k)):
            k += 1
        data = make(k)
        scratch = fsops.write_scratch(kit.tmp, data)
        os.replace(scratch, box / msg_name(k))
        fsops.replace_with(kit.tmp, box / "head", fsops.record(str(k)), durable=False)
    return k


def _plain_messages(box: Path) -> list[tuple[Path, tuple[dict[str, str], bytes]]]:
    """The regular message files of a mailbox folder, read without opening anything else."""
    out = []
    for p in sorted(box.iterdir()):
        if re.fullmatch(r"[0-9]{12}\.msg", p.name) and stat.S_ISREG(os.lstat(p).st_mode):
            out.append((p, _kit_parse(p.read_bytes())))
    return out
