"""The minimal profile's example peer in Java (interop/java-minimal/MinimalPeer.java), written by
following docs/FIRST-PEER.md alone: built with `javac`, checked by the kit's minimal profile (which
plays it against black.py and white.py in both colours), and the kit shown to fail a peer that skips
the lock (an outsider's try on 2026-11-26: the kit passed such a peer before)."""
import io
import shutil
import subprocess
from pathlib import Path

import pytest

import conformance
import kitruns

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "interop" / "java-minimal" / "MinimalPeer.java"
JAVAC = shutil.which("javac")
JAVA = shutil.which("java")
needs_java = pytest.mark.skipif(JAVAC is None or JAVA is None,
                                reason="no Java compiler (javac) on this system: the Java peer cannot be built")


def build(tmp: Path, source: str | None = None) -> str:
    """Compile the peer (or a changed copy of its source) into ``tmp``; the command that runs it."""
    out = tmp / "java"
    out.mkdir()
    src = out / "MinimalPeer.java"
    src.write_text(SOURCE.read_text(encoding="utf-8") if source is None else source, encoding="utf-8")
    r = subprocess.run([str(JAVAC), "-d", str(out), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return f'"{JAVA}" -cp "{out}" MinimalPeer'


def kit(peer: str, tmp: Path, only: list[str] | None = None) -> tuple[list[conformance.runner.Result], str]:
    out = io.StringIO()
    results = conformance.run(peer, base=tmp / "boards", only=only, stream=out, profile="minimal")
    return results, out.getvalue()


def test_the_java_peer_is_short_enough_to_read_in_one_sitting():
    assert len(SOURCE.read_text(encoding="utf-8").splitlines()) < 500


def changed(*pairs: tuple[str, str]) -> str:
    source = SOURCE.read_text(encoding="utf-8")
    for old, new in pairs:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


SKIP_LOCK = [(m, m + " if (true) { lockToken = \"x\"; return; }")
             for m in ("void takeLock() throws IOException {", "void releaseLock() throws IOException {")] + \
            [("    boolean ownsLock() {", "    boolean ownsLock() { if (true) return true;")]
LINE = "            String body = message.body().strip();\n"
JUNK_STOPS = [(LINE, LINE + '            if (body.startsWith("#")) throw new IllegalStateException(body);\n')]

# Each test's run of the kit, made side by side with the others (tests/kitruns.py)
PLANS = {
    "test_the_java_peer_passes_the_minimal_profile": lambda tmp: kit(build(tmp), tmp),
    "test_the_kit_fails_a_minimal_peer_that_skips_the_lock":
        lambda tmp: kit(build(tmp, changed(*SKIP_LOCK)), tmp, only=["minimal_lock"]),
    "test_the_kit_fails_a_minimal_peer_that_junk_stops":
        lambda tmp: kit(build(tmp, changed(*JUNK_STOPS)), tmp, only=["minimal_lock"]),
}
kit_runs = kitruns.side_by_side(PLANS.get)
side_by_side = pytest.mark.xdist_group("kit-java")     # (one worker: the runs start together)


@needs_java
@side_by_side
def test_the_java_peer_passes_the_minimal_profile(kit_runs, request):
    results, text = kit_runs(request)
    assert [r[0] for r in results] == [fn.__name__[2:] for fn in conformance.MINIMAL_SCENARIOS], text
    assert all(ok and not why for _, _, ok, why in results), text


@needs_java
@side_by_side
def test_the_kit_fails_a_minimal_peer_that_skips_the_lock(kit_runs, request):
    results, text = kit_runs(request)
    assert not results[0][2] and "while the kit held the lock (L1 L3" in results[0][3], text


@needs_java
@side_by_side
def test_the_kit_fails_a_minimal_peer_that_junk_stops(kit_runs, request):
    results, text = kit_runs(request)
    assert not results[0][2] and "exited" in results[0][3] and "(P5: " in results[0][3], text
