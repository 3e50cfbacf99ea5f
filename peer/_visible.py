"""TEMPORARY local copy of ``comm.text.visible`` until it lands on main (issue 10); then removed."""
try:  # pragma: no cover - the real one, once merged
    from comm.text import visible
except ImportError:
    import re

    _BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    _CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
    _NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}

    def _escape(m):
        c = m.group(0)
        if c in _NAMED:
            return _NAMED[c]
        return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"

    def visible(s, limit=None):
        s = _CONTROL.sub(_escape, str(s))
        if limit is not None and len(s) > limit:
            s = s[:max(0, limit - 1)] + "…"
        return s
