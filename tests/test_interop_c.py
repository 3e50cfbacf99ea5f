"""The minimal profile's example peer in C (interop/c/minimal.c): built with `cc`, checked by the kit's
minimal profile (which plays it against black.py and white.py in both colours), and the kit shown to
fail the two mistakes a first peer most easily makes."""
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import conformance
import kitruns

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "interop" / "c" / "minimal.c"
CC = shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc) on this system: the C peer cannot be built")


def build(tmp: Path, source: str | None = None) -> str:
    """Compile the peer (or a changed copy of its source) into ``tmp``; the command that runs it."""
    src = tmp / "minimal.c"
    src.write_text(SOURCE.read_text(encoding="utf-8") if source is None else source, encoding="utf-8")
    exe = tmp / "minimal"
    r = subprocess.run([CC, "-std=c99", "-O2", "-o", str(exe), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return str(exe)


def kit(peer: str, tmp: Path, only: list[str] | None = None) -> tuple[list[conformance.runner.Result], str]:
    out = io.StringIO()
    results = conformance.run(peer, base=tmp / "boards", only=only, stream=out, profile="minimal")
    return results, out.getvalue()


FULL_PEERS = {"javascript": (f"node {ROOT / 'interop' / 'js' / 'peer.js'}", None),
              "python": (f"{sys.executable} -m comm", f"{sys.executable} -m peer play --ai random")}


def own_scenarios() -> list[str]:
    """The minimal profile's scenarios that the full profile does not have."""
    full = {fn.__name__[2:] for fn in conformance.PROFILES["full"]}
    return [fn.__name__[2:] for fn in conformance.MINIMAL_SCENARIOS if fn.__name__[2:] not in full]


def changed(old: str, new: str) -> str:
    source = SOURCE.read_text(encoding="utf-8")
    assert source.count(old) == 1, old
    return source.replace(old, new)


DRAIN = ("            while (receive(body, sizeof body))  /* G2: what waits was sent before our move: out of turn */\n"
         "                printf(\"ignored from %s (not its turn)\\n\", you);\n")


def full_peer(name: str):
    def run(tmp: Path):
        peer, player = FULL_PEERS[name]
        out = io.StringIO()
        return conformance.run(peer, player, base=tmp, stream=out, profile="minimal", only=own_scenarios()), out.getvalue()
    return run


# Each test's run of the kit, made side by side with the others (tests/kitruns.py)
PLANS = {
    "test_the_c_peer_passes_the_minimal_profile": lambda tmp: kit(build(tmp), tmp),
    "test_the_kit_fails_a_minimal_peer_that_names_its_machine_without_an_alive_record": lambda tmp: kit(build(
        tmp, changed('machine: \\npid: %d",\n             me, run', 'machine: trap/boot\\npid: %d",\n             me, run')),
        tmp, only=["minimal_board"]),
    "test_the_kit_fails_a_minimal_peer_that_breaks_locks_too_soon": lambda tmp: kit(build(
        tmp, changed("#define L_STALE 10.0", "#define L_STALE 2.0")), tmp, only=["minimal_stale"]),
    "test_the_kit_fails_a_minimal_peer_that_applies_what_waited_on_its_own_turn": lambda tmp: kit(build(
        tmp, changed(DRAIN, "")), tmp, only=["minimal_turns"]),
    **{f"test_full_peers_pass_the_minimal_profile_too[{name}]": full_peer(name) for name in FULL_PEERS},
}
kit_runs = kitruns.side_by_side(PLANS.get)
side_by_side = pytest.mark.xdist_group("kit-c")     # (one worker: the runs start together)


@needs_cc
@side_by_side
def test_the_c_peer_passes_the_minimal_profile(kit_runs, request):
    results, text = kit_runs(request)
    assert [r[0] for r in results] == [fn.__name__[2:] for fn in conformance.MINIMAL_SCENARIOS], text
    assert all(ok and not why for _, _, ok, why in results), text
    assert "Not checked by the minimal profile (full profile only): " in text and " B6 " in text, text


@needs_cc
@side_by_side
def test_the_kit_fails_a_minimal_peer_that_names_its_machine_without_an_alive_record(kit_runs, request):
    """The trap an outsider's first peer fell into (2026-11-26): our black.py would take such a white for one that has left, for ever."""
    results, text = kit_runs(request)
    assert not results[0][2] and "wait for ever" in results[0][3], text


@needs_cc
@side_by_side
def test_the_kit_fails_a_minimal_peer_that_breaks_locks_too_soon(kit_runs, request):
    results, text = kit_runs(request)
    assert not results[0][2] and "silent for only" in results[0][3], text


def test_the_documentation_says_how_many_scenarios_the_minimal_profile_runs():
    """(Each has a row with its clauses: tests/test_interop.py checks the rows.)"""
    text = (ROOT / "docs" / "CONFORMANCE.md").read_text(encoding="utf-8")
    assert f"`--profile minimal` runs {len(conformance.MINIMAL_SCENARIOS)} scenarios" in text


@side_by_side
@pytest.mark.parametrize("peer", [
    pytest.param("javascript", marks=pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")),
    "python"])
def test_full_peers_pass_the_minimal_profile_too(kit_runs, request, peer):
    """PROTOCOL.md PR2 and CONFORMANCE.md say so: the minimal profile asks nothing a full peer does not do.
    (Its scenarios that the full profile has too, the classic games, run in tests/test_interop.py.)"""
    own = own_scenarios()
    assert own and len(own) < len(conformance.MINIMAL_SCENARIOS)
    results, text = kit_runs(request)
    assert len(results) == len(own), text
    assert all(ok for _, _, ok, _ in results), text


@needs_cc
@side_by_side
def test_the_kit_fails_a_minimal_peer_that_applies_what_waited_on_its_own_turn(kit_runs, request):
    """G2: a move that waited while it was the peer's turn was sent before its move; a peer that reads
    it only after moving takes it for the opponent's next move, and the two games part."""
    results, text = kit_runs(request)
    assert not results[0][2] and "is not a legal bare square" in results[0][3], text
