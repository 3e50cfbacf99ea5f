"""Small records on a board (R1): ``key: value`` lines after a first line that says what they
are, padded to a fixed size; the same reader for game records (D1) and message headers (M1)."""

RECORD = 256


def record(text: str) -> bytes:
    """Small state files are padded to a fixed 256 bytes.

    A share's client may keep a file's old size for a while after it was
    replaced (sshfs does): a read of a record of the same size is never cut.
    """
    data = text.encode("utf-8")
    if len(data) >= RECORD:
        raise ValueError("record too long")
    return data + b" " * (RECORD - 1 - len(data)) + b"\n"


def parse_record(text: str, strict: bool = False) -> tuple[str, dict[str, str]]:
    r"""``(first line, {key: value})`` of a record (R1), a game record (D1) or a message
    header (M1): a first line that says what it is, then ``key: value`` lines.

    Lines end at ``\n`` only (never at another line break a value may hold).  A value is the
    text after the first ``": "``, as written (readers of padded records strip it).

    Not ``strict`` (records: damaged or forged lines never stop a reader; R1): a CR before
    the ``\n`` is dropped, a line without ``": "`` (or with nothing before it) is skipped, and
    a key given twice keeps its first value; keys are taken as written.  ``strict`` (a message
    header): a line without ``": "`` or a key given twice raises ``ValueError`` saying which;
    lines are taken exactly as they are.

    >>> parse_record("cardstand-member 1\nname: Black\nrun: 9e2f \nrun: other\njunk\r\nstate:\n run: x")
    ('cardstand-member 1', {'name': 'Black', 'run': '9e2f ', ' run': 'x'})
    >>> parse_record("cardstand-msg 1\nfrom: a\nfrom: b", strict=True)
    Traceback (most recent call last):
    ValueError: header key 'from' given twice
    """
    first, *lines = text.split("\n")
    fields = {}
    for line in lines:
        if strict:
            key, sep, value = line.partition(": ")
            if not sep:
                raise ValueError(f"bad header line {line[:40]!r}")
            if key in fields:
                raise ValueError(f"header key {key[:40]!r} given twice")
        else:
            if line.endswith("\r"):
                line = line[:-1]
            key, sep, value = line.partition(": ")
            if not sep or not key or key in fields:
                continue
        fields[key] = value
    return first, fields


def record_fields(text: str | None) -> dict[str, str]:
    """The ``key: value`` fields of a record (R1) as ``record`` writes it, values stripped of the
    padding (``parse_record``, not strict: damaged lines are skipped); {} for None."""
    return {k: v.strip(" \t") for k, v in parse_record(text or "")[1].items()}
