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


@needs_java
def test_the_java_peer_passes_the_minimal_profile(tmp_path):
    results, text = kit(build(tmp_path), tmp_path)
    assert [r[0] for r in results] == [fn.__name__[2:] for fn in conformance.MINIMAL_SCENARIOS], text
    assert all(ok and not why for _, _, ok, why in results), text


@needs_java
def test_the_kit_fails_a_minimal_peer_that_skips_the_lock(tmp_path):
    source = SOURCE.read_text(encoding="utf-8")
    for method in ("void takeLock() throws IOException {", "void releaseLock() throws IOException {"):
        assert source.count(method) == 1
        source = source.replace(method, method + " if (true) { lockToken = \"x\"; return; }")
    assert source.count("    boolean ownsLock() {") == 1
    source = source.replace("    boolean ownsLock() {", "    boolean ownsLock() { if (true) return true;")
    results, text = kit(build(tmp_path, source), tmp_path, only=["minimal_lock"])
    assert not results[0][2] and "while the kit held the lock (L1 L3" in results[0][3], text


@needs_java
def test_the_kit_fails_a_minimal_peer_that_junk_stops(tmp_path):
    source = SOURCE.read_text(encoding="utf-8")
    line = "            String body = message.body().strip();\n"
    assert source.count(line) == 1
    fragile = source.replace(line, line + '            if (body.startsWith("#")) throw new IllegalStateException(body);\n')
    results, text = kit(build(tmp_path, fragile), tmp_path, only=["minimal_lock"])
    assert not results[0][2] and "exited" in results[0][3] and "(P5: " in results[0][3], text
