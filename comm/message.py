"""The message format of a board (docs/PROTOCOL.md): names, message files and their MAC,
the shared secret.  Pure functions: nothing here touches the board folder."""
import hashlib
import hmac
import os
import re
import zlib
from collections.abc import Mapping
from typing import NamedTuple

from . import fsops

VERSION = 1
MAX_BODY = 64 * 1024
HEADER_LIMIT = 4096  # bytes before the empty line: a longer message header is damaged (B7, M4)
MAX_SEQ = 999_999_000_000  # a pointer above this is damaged (M8): numbering never gets there

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
# Windows device names, refused in any case (N1): CON PRN AUX NUL, COM1-COM9 and LPT1-LPT9 with
# the superscript digits ¹ ² ³ (Microsoft, "Naming Files, Paths, and Namespaces"), and COM0 and
# LPT0, which an earlier revision of that page listed and other tools reserve.  The one list.
_RESERVED = frozenset({"con", "prn", "aux", "nul"} | {f"{d}{i}" for d in ("com", "lpt") for i in "0123456789¹²³"})
_MSG_FILE = re.compile(r"([0-9]{12})\.msg")


class InvalidArgument(ValueError):
    """A name or body that the board refuses; nothing was changed."""


class SecretProblem(InvalidArgument):
    """The shared secret cannot be used (A1).  For a program that words it itself: ``code``, one of
    ``missing``, ``not_a_file``, ``unreadable``, ``too_long``, ``empty_file``, ``empty_variable``,
    and ``fields``: ``file`` (the secret file as given), ``cause`` (the system's words, for
    ``unreadable``), ``limit`` (bytes, for ``too_long``)."""

    def __init__(self, code: str, text: str, **fields: object) -> None:
        super().__init__(text)
        self.code = code
        self.fields = fields


class Message(NamedTuple):
    sender: str
    body: str
    seq: int
    to_run: str
    sender_run: str
    signed: bool = False    # it carried a MAC (checked when the reader has the secret)


class Rejected(NamedTuple):
    """A message refused for its MAC (A3): moved to trash, never returned."""
    sender: str             # as the message claims
    sender_run: str
    seq: int
    reason: str             # starts with "no MAC" or "wrong MAC"


class Unauthentic(ValueError):
    """A well-formed message whose MAC is missing or wrong; ``message`` is what it claims."""

    def __init__(self, reason: str, message: Message) -> None:
        super().__init__(reason)
        self.message = message


def is_device_name(name: str) -> bool:
    """Whether Windows takes ``name`` (even with an extension: ``nul.game``) for a device (N1)."""
    return name.split(".", 1)[0].rstrip(" ").lower() in _RESERVED


def check_name(name: str, what: str = "name") -> str:
    """``name`` if it is a valid member name (N1), else ``InvalidArgument`` naming ``what``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidArgument(
            f"invalid {what} {name!r}: use 1-32 letters, digits, '-' or '_', starting with a letter "
            "or digit (no spaces, '/', '..' or control characters)")
    if is_device_name(name):
        raise InvalidArgument(f"invalid {what} {name!r}: reserved as a device name on Windows")
    return name


def encode_body(body: str, limit: int = MAX_BODY) -> bytes:
    """``body`` in UTF-8, or ``InvalidArgument`` when it is not text or is over ``limit`` bytes."""
    if not isinstance(body, str):
        raise InvalidArgument(f"message body must be text (str), not {type(body).__name__}")
    try:
        data = body.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgument(f"message body is not valid Unicode text: {e}") from None
    if len(data) > limit:
        raise InvalidArgument(f"message body is {len(data)} bytes in UTF-8; the limit is {limit}")
    return data


_RUN = re.compile(r"[A-Za-z0-9_-]{0,64}")
_DIGITS = re.compile(r"[0-9]{1,12}")
_HEX8 = re.compile(r"[0-9a-f]{8}")


MAX_SECRET = 4096   # bytes: a longer secret file is a mistake (A1)


def load_secret(secret_file: str | os.PathLike[str] | None = None,
                environ: Mapping[str, str] | None = None) -> bytes | None:
    """The shared secret (A1): the file's content if ``secret_file`` is given, else the
    ``CARDSTAND_SECRET`` environment variable, without surrounding white space; None when
    neither is given.  Raises ``SecretProblem`` (an ``InvalidArgument``) for an empty or unreadable
    secret."""
    if secret_file is not None:
        file = os.fspath(secret_file)
        if not os.path.isfile(secret_file):     # a folder, a device (/dev/zero), a FIFO
            missing = not os.path.exists(secret_file)
            raise SecretProblem("missing" if missing else "not_a_file",
                                f"cannot read the secret file {file}: "
                                f"{'no such file' if missing else 'not a regular file'}", file=file)
        try:
            with open(secret_file, "rb") as f:
                raw = f.read(MAX_SECRET + 1)
        except OSError as e:
            cause = e.strerror or str(e)
            raise SecretProblem("unreadable", f"cannot read the secret file {file}: {cause}",
                                file=file, cause=cause) from None
        if len(raw) > MAX_SECRET:
            raise SecretProblem("too_long", f"the secret file {file} is longer than {MAX_SECRET} bytes: "
                                "not a secret file", file=file, limit=MAX_SECRET)
        raw = raw.removeprefix(b"\xef\xbb\xbf")      # the BOM Windows Notepad writes
        empty = SecretProblem("empty_file", f"the shared secret in the secret file {file} is empty", file=file)
    else:
        value = (os.environ if environ is None else environ).get("CARDSTAND_SECRET")
        if value is None:
            return None
        raw = value.encode("utf-8", "surrogateescape")
        empty = SecretProblem("empty_variable", "the shared secret in CARDSTAND_SECRET is empty")
    key = raw.strip(b" \t\r\n")
    if not key:
        raise empty
    return key


def _key(secret: str | bytes | None) -> bytes | None:
    if secret is None:
        return None
    key = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
    if not key:
        raise InvalidArgument("the shared secret is empty")
    return key


def mac(key: bytes, sender: str, sender_run: str, to: str, to_run: str, seq: int | str, data: bytes) -> str:
    """HMAC-SHA256 of a message (A2) as 64 lower-case hex digits."""
    signed = f"cardstand-mac {VERSION}\n{sender}\n{sender_run}\n{to}\n{to_run}\n{seq}\n".encode("ascii")
    return hmac.new(key, signed + data, hashlib.sha256).hexdigest()


def member_mac(key: bytes, name: str, run: str) -> str:
    """HMAC-SHA256 of a member record's name and run (I6, with a shared secret) as hex."""
    return hmac.new(key, f"cardstand-member-mac {VERSION}\n{name}\n{run}\n".encode("utf-8"),
                    hashlib.sha256).hexdigest()


def frame(sender: str, sender_run: str, to: str, to_run: str, seq: int, data: bytes,
          key: bytes | None = None) -> bytes:
    """The bytes of a message file (M1), with a MAC when ``key`` is given (A2)."""
    head = (f"cardstand-msg {VERSION}\nfrom: {sender}\nfrom-run: {sender_run}\nto: {to}\n"
            f"to-run: {to_run}\nseq: {seq}\nlength: {len(data)}\ncrc32: {zlib.crc32(data):08x}\n")
    if key is not None:
        head += f"mac: {mac(key, sender, sender_run, to, to_run, seq, data)}\n"
    return (head + "\n").encode("ascii") + data


def unframe(raw: bytes, *, box: str | None = None, number: int | None = None,
            key: bytes | None = None) -> Message:
    """Parse a message file; raises ValueError saying what is wrong with it (M1, M4).

    ``box`` and ``number`` are the mailbox name and file number it was found under (checked
    against ``to`` and ``seq`` when given); with ``key`` (the shared secret) a missing or
    wrong MAC raises ``Unauthentic`` (A3).
    """
    head, sep, data = raw.partition(b"\n\n")
    if not sep:
        raise ValueError("no header end")
    if len(head) > HEADER_LIMIT:
        raise ValueError("header too long")      # B7, M4: as every reader (interop/js) judges it
    try:
        text = head.decode("ascii")
    except UnicodeDecodeError:
        raise ValueError("header is not ASCII") from None
    first = text.partition("\n")[0]
    if first != f"cardstand-msg {VERSION}":
        raise ValueError(f"not a version-{VERSION} message: {first[:40]!r}")
    f = fsops.parse_record(text, strict=True)[1]
    try:
        for k in ("from", "from-run", "to", "seq", "length", "crc32"):
            if k not in f:
                raise ValueError(f"no {k!r}")
        if not (_DIGITS.fullmatch(f["seq"]) and _DIGITS.fullmatch(f["length"]) and _HEX8.fullmatch(f["crc32"])):
            raise ValueError("seq, length or crc32 malformed")
        length, crc, seq = int(f["length"]), int(f["crc32"], 16), int(f["seq"])
        sender = check_name(f["from"])
        check_name(f["to"])
        if not f["from-run"] or not _RUN.fullmatch(f["from-run"]) or not _RUN.fullmatch(f.get("to-run", "")):
            raise ValueError("run id malformed")
    except ValueError as e:
        raise ValueError(f"bad header: {e}") from None
    if box is not None and f["to"].lower() != box:
        raise ValueError(f"addressed to {f['to']!r}, found in the mailbox of {box!r}")
    if number is not None and seq != number:
        raise ValueError(f"numbered {seq}, found as message {number} (a copy?)")
    if len(data) != length:
        raise ValueError(f"truncated: {len(data)} of {length} bytes")
    if zlib.crc32(data) != crc:
        raise ValueError("checksum mismatch")
    try:
        body = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("body is not UTF-8") from None
    msg = Message(sender, body, seq, f.get("to-run", ""), f["from-run"], "mac" in f)
    if key is not None:
        if "mac" not in f:
            raise Unauthentic("no MAC (the sender has no shared secret)", msg)
        want = mac(key, f["from"], f["from-run"], f["to"], f.get("to-run", ""), f["seq"], data)
        if not hmac.compare_digest(want, f["mac"]):
            raise Unauthentic("wrong MAC (another secret, or a forged message)", msg)
    return msg


def msg_name(seq: int) -> str:
    """The file name of message ``seq`` in a mailbox."""
    return f"{seq:012d}.msg"


def msg_number(name: str) -> int | None:
    """The sequence number of a message file name, or None."""
    m = _MSG_FILE.fullmatch(name)
    if m is None:
        return None
    n = int(m.group(1))
    return n if n <= MAX_SEQ else None
