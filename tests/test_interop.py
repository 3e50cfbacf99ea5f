"""The conformance kit against the JavaScript peer, our own Python one, and a broken one."""
import io
import shutil
import sys
import uuid
from pathlib import Path

import pytest

from peer import conformance

from netfs import share

ROOT = Path(__file__).resolve().parents[1]
JS = f"node {ROOT / 'interop' / 'js' / 'peer.js'}"
PY_PEER = f"{sys.executable} -m comm"
PY_PLAYER = f"{sys.executable} -m peer play --ai random"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def run_kit(*args, **kw):
    out = io.StringIO()
    results = conformance.run(*args, stream=out, **kw)
    failed = [r for r in results if not r[2]]
    return results, failed, out.getvalue()


@needs_node
def test_javascript_peer_passes_every_clause(tmp_path):
    results, failed, text = run_kit(JS, base=tmp_path)
    assert len(results) == len(conformance.BOARD_SCENARIOS + conformance.GAME_SCENARIOS)
    assert not failed, text


def test_python_peer_passes_every_clause(tmp_path):
    results, failed, text = run_kit(PY_PEER, PY_PLAYER, base=tmp_path)
    assert not failed, text


def test_the_kit_fails_a_broken_implementation(tmp_path):
    fake = f"{sys.executable} {ROOT / 'tests' / 'fake_peer.py'}"
    results, failed, text = run_kit(fake, base=tmp_path, only=["init", "send", "recv", "talk", "quiet", "names"])
    assert len(failed) == len(results) == 6, text
    assert conformance.main(["--peer", fake, "--only", "init"]) == 1


@needs_node
@pytest.mark.netfs
@pytest.mark.xdist_group("netfs")
@pytest.mark.parametrize("kind", ["sshfs", "smb"])
def test_javascript_peer_through_two_mounts(kind):
    a, b = share(kind)
    sub = f"kit-{uuid.uuid4().hex[:8]}"
    (a / sub).mkdir()
    try:
        results, failed, text = run_kit(JS, base=a / sub, base_b=b / sub)
        assert not failed, text
    finally:
        shutil.rmtree(a / sub, ignore_errors=True)
