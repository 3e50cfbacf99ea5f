"""How engine and othellotool are put together: no import cycle, the fitting tools and argparse
out of what plays, othellotool on engine's public API, no module over 1,000 lines."""
import ast
import subprocess
import sys
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
MAX_LINES = 1000
COMMAND_LINES = {"engine.__main__", "engine.options", "engine.cliargs", "engine.fit.weights",
                 "engine.fit.probcut"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def engine_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def imports(path: Path, known: set[str], name: str | None = None) -> set[str]:
    """The modules of ``known`` that ``path`` (the module ``name``, by default its own) imports
    anywhere: inside functions and under ``if TYPE_CHECKING:`` too.  ``from . import texts``
    imports ``texts``, not the package."""
    name = module_name(path) if name is None else name
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            subs = [f"{base}.{alias.name}" for alias in node.names]
            targets = [s for s in subs if s in known] or [base]
        else:
            continue
        for target in targets:
            while target and target not in known:   # engine.backend.core -> engine.backend
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` as a list of modules (first == last), or []."""
    state: dict[str, int] = {}   # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def import_graph() -> dict[str, set[str]]:
    modules = engine_modules()
    # a package's own __init__ runs before any of its modules; that is no dependency
    return {name: imports(path, set(modules)) - {"engine", "engine.fit"} for name, path in modules.items()}


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions():
    graph = import_graph()
    assert "engine._core" not in graph                       # compiled: no source, no edges out
    assert "engine.fit.book" in graph["engine.__main__"]     # imported inside cmd_book
    assert "engine.tournament" in graph["engine.__main__"]   # imported inside cmd_tournament


def test_no_import_cycle_in_engine():
    cycle = find_cycle(import_graph())
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_argparse_only_in_command_line_modules():
    users = {name for name, path in engine_modules().items() if "argparse" in imports(path, {"argparse"})}
    assert users <= COMMAND_LINES, f"argparse outside the command lines: {sorted(users - COMMAND_LINES)}"


def test_what_plays_loads_neither_the_fitting_tools_nor_argparse():
    code = ("import sys, engine, engine.strategies, engine.nboard, engine.oneshot, engine.book, othellotool\n"
            "othellotool.move_for_board('best', othellotool.SetBoard(), 0, 0.05)\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('engine.fit') or m == 'argparse')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == []


def test_othellotool_uses_only_engines_public_api():
    public = set(engine.__all__) | {"strategies"}
    tree = ast.parse((ROOT / "othellotool" / "__init__.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert all(not a.name.startswith("engine.") for a in node.names), ast.unparse(node)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engine"):
            assert node.module == "engine", ast.unparse(node)
            assert {a.name for a in node.names} <= public, ast.unparse(node)


def test_no_module_over_1000_lines():
    files = [p for p in [*ENGINE.rglob("*.py"), *ENGINE.glob("*.pyx"), *ENGINE.glob("*.pxi"),
                         *(ROOT / "othellotool").rglob("*.py")]]
    long = {str(p.relative_to(ROOT)): n for p in files
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long
