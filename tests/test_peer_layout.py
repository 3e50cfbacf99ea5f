"""How peer is put together: no import cycle (imports for type checking and inside functions
included), the game core without I/O, the session's parts below the faces and each below the
parts that use it."""
import ast
from pathlib import Path

from test_engine_layout import find_cycle, imports, module_name

ROOT = Path(__file__).resolve().parents[1]
PEER = ROOT / "peer"
# what the match core may import: the rules and the words of a refusal, and the standard
# library's pure modules; nothing that reads a clock, a file, a thread or a screen
CORE_MAY_IMPORT = {"engine", "peer.reasons", "dataclasses", "enum", "typing", "__future__"}
# the session's parts from the bottom up (peer/session/__init__.py): each may use those before it
PARTS = ["state", "telling", "recording", "trouble", "runs", "control", "classic", "presence", "handshake",
         "moves", "commands", "core"]


def peer_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PEER.rglob("*.py")) if "sample-programs" not in p.parts}


def top_imports(path: Path) -> set[str]:
    """Every module ``path`` imports, by its top-level name (``comm``, ``time``, ``peer.reasons``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found |= {f"peer.{node.module}" if node.module else "peer"}
            else:
                found.add((node.module or "").split(".")[0])
    return found


def import_graph() -> dict[str, set[str]]:
    modules = peer_modules()
    return {name: imports(path, set(modules)) for name, path in modules.items()}


def test_the_graph_sees_imports_for_type_checking_and_inside_functions(tmp_path):
    (tmp_path / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n")
    (tmp_path / "b.py").write_text("def f():\n    from . import a\n")
    known = {"pkg", "pkg.a", "pkg.b"}
    graph = {"pkg.a": imports(tmp_path / "a.py", known, "pkg.a"), "pkg.b": imports(tmp_path / "b.py", known, "pkg.b")}
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]
    peer = import_graph()
    assert "peer.session" in peer["peer"]                    # imported inside peer.__getattr__
    assert "peer.protocol" in peer["peer.session.control"]   # from .. import protocol


def test_no_import_cycle_in_peer():
    cycle = find_cycle(import_graph())
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_no_session_module_imports_a_face():
    graph = import_graph()
    for name, deps in graph.items():
        if name.startswith("peer.session"):
            assert not {d for d in deps if d.startswith("peer.faces")}, name


def test_the_match_core_imports_nothing_that_does_io():
    assert top_imports(PEER / "match.py") <= CORE_MAY_IMPORT, top_imports(PEER / "match.py")
    assert top_imports(PEER / "reasons.py") <= CORE_MAY_IMPORT | {"re", "string"}


def test_each_part_of_the_session_uses_only_the_parts_below_it():
    graph = import_graph()
    for i, part in enumerate(PARTS):
        above = {f"peer.session.{p}" for p in PARTS[i + 1:]}
        assert not graph[f"peer.session.{part}"] & above, (part, graph[f"peer.session.{part}"] & above)
