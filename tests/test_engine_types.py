"""The stub of the compiled core (engine/_core.pyi) names exactly what the core exports (mypy
checks the code against the stub: tests/test_types.py)."""
import ast
from pathlib import Path

import pytest

from engine import backend

ROOT = Path(__file__).resolve().parents[1]


def stub_names() -> set[str]:
    tree = ast.parse((ROOT / "engine" / "_core.pyi").read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@pytest.mark.skipif(backend.compiled is None, reason="the compiled core is not built")
def test_the_stub_names_what_the_compiled_core_exports():
    from engine import _core
    exported = {name for name in dir(_core) if not name.startswith("_")}
    assert stub_names() == exported


@pytest.mark.skipif(backend.compiled is None, reason="the compiled core is not built")
def test_the_stub_names_the_searchers_methods():
    from engine import _core
    tree = ast.parse((ROOT / "engine" / "_core.pyi").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Searcher")
    stubbed = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    stubbed |= {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    public = {name for name in dir(_core.Searcher) if not name.startswith("_")} | {"__init__"}
    assert stubbed == public
