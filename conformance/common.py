"""What every scenario uses: its verdict (``check``, ``Fail``, ``Skip``) and the two views of the board folder."""
import uuid


class Fail(Exception):
    pass


class Skip(Exception):
    """The scenario cannot run here (no symbolic links or FIFOs on this system)."""


def other_view(d):
    """The same board folder as the kit's own side sees it (another mount of the share, if given)."""
    return VIEW["b"] / d.relative_to(VIEW["a"]) if VIEW.get("b") else d


VIEW = {}


def check(cond, what):
    if not cond:
        raise Fail(what)


def _secret():
    return f"conformance {uuid.uuid4().hex[:12]} sécret"
