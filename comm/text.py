"""Text that came from a board folder, made safe to show a person.

Anyone who can write the folder can put escape sequences in a name or a chat
line: changing a terminal's title, colours or cursor, or reversing the text
around them.  ``visible`` writes every such character as a visible escape.
"""
import re

# C0 controls, DEL, C1 controls, and the bidirectional-text controls
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if c in _NAMED:
        return _NAMED[c]
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def visible(text: object, limit: int | None = None) -> str:
    """``text`` with control and bidi characters written as escapes (``\\x1b``, ``\\n``, ``\\u202e``).

    >>> visible("hi\\x1b]0;pwned\\x07 there")
    'hi\\\\x1b]0;pwned\\\\x07 there'
    >>> visible("abcdef", limit=4)
    'abc…'

    ``limit`` cuts the result to that many characters, the last one "…".
    Anything that is not a string is shown by its ``str``.
    """
    out = _HIDDEN.sub(_escape, text if isinstance(text, str) else str(text))
    if limit is not None and len(out) > limit:
        out = out[:max(0, limit - 1)] + "…"
    return out
