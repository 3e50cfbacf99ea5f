"""The conformance kit against the JavaScript peer, our own Python one, and a broken one."""
import base64
import io
import json
import random
import shutil
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from comm.board import frame as board_frame, unframe as board_unframe
from comm.text import visible
import conformance
from conformance import hostile

from netfs import share

ROOT = Path(__file__).resolve().parents[1]
JS = f"node {ROOT / 'interop' / 'js' / 'peer.js'}"
PY_PEER = f"{sys.executable} -m comm"
PY_PLAYER = f"{sys.executable} -m peer play --ai random"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


# Scenarios side by side in these tests: twice the kit's default, as they mostly wait on the
# protocol's clocks (the whole kit against our peer: 35 s at 4, 23 s at 8, measured 2026-11-29)
KIT_JOBS = 2 * conformance.runner.JOBS
BROKEN_JOBS = 3 * conformance.runner.JOBS      # (one scenario each, most of them a few processes waiting)


def run_kit(*args, **kw):
    out = io.StringIO()
    kw.setdefault("jobs", KIT_JOBS)
    results = conformance.run(*args, stream=out, **kw)
    failed = [r for r in results if not r[2]]
    return results, failed, out.getvalue()


EVERY = [s.__name__[2:] for s in conformance.BOARD_SCENARIOS + conformance.GAME_SCENARIOS]


# The whole kit, its scenarios side by side (conformance.runner.JOBS at a time): about the time of its longest few
@needs_node
def test_javascript_peer_passes_every_clause(tmp_path):
    results, failed, text = run_kit(JS, base=tmp_path)
    assert [r[0] for r in results] == EVERY, text
    assert not failed, text


def test_python_peer_passes_every_clause(tmp_path):
    results, failed, text = run_kit(PY_PEER, PY_PLAYER, base=tmp_path)
    assert [r[0] for r in results] == EVERY, text
    assert not failed, text


def test_the_documentation_lists_every_scenario():
    """docs/CONFORMANCE.md says how many scenarios the kit runs and has a row for each, with its clauses."""
    import re
    text = (ROOT / "docs" / "CONFORMANCE.md").read_text(encoding="utf-8")
    scenarios = conformance.BOARD_SCENARIOS + conformance.GAME_SCENARIOS
    assert f"runs {len(scenarios)} scenarios" in text
    scenarios = scenarios + [fn for fn in conformance.MINIMAL_SCENARIOS if fn not in scenarios]
    rows = {}
    for names, clauses in re.findall(r"^\| ([a-z_, ]+) \| ([^|]+) \|", text, re.M):
        for name in names.split(", "):
            rows[name] = clauses.strip()
    for fn in scenarios:
        name = fn.__name__[2:]
        assert name in rows, f"no row for the scenario {name} in docs/CONFORMANCE.md"
        assert rows[name] == fn.__doc__.partition(":")[0].strip(), f"{name}: the clauses differ"


def test_the_kit_fails_a_broken_implementation(tmp_path):
    fake = f"{sys.executable} {ROOT / 'tests' / 'fake_peer.py'}"
    results, failed, text = run_kit(fake, base=tmp_path, only=["init", "send", "recv", "redeliver", "talk", "quiet",
                                                               "names"])
    assert len(failed) == len(results) == 7, text
    assert conformance.main(["--peer", fake, "--only", "init"]) == 1


# the game scenarios a share can change, each through one kind of share (all of them run on local
# disk too): a whole game through sshfs; through SMB, where a whole game takes 20 s, the folder going
# away and back, and a game killed and resumed (SMB messaging itself: test_comm_netfs)
THROUGH_SHARES = {"sshfs": ["game_white", "runs", "take_over"],
                  "smb": ["board_gone", "resume"]}
# Side by side through SMB too (67 s one at a time, 16-23 s four at a time).  It once ran one at a time:
# cleanup found files it had planted hour-old dated now after the JavaScript peer's init (Samba dates a
# written file when its client lets go of it, which smbnetfs may do after the kit dated it); the kit now
# dates them again after that (2026-11-29: the cleanup scenario through SMB in 16 runs, 16 boards at a
# time, and three of these tests at once: none failed)
JOBS_THROUGH = {"sshfs": conformance.runner.JOBS, "smb": conformance.runner.JOBS}


@needs_node
@pytest.mark.netfs
@pytest.mark.xdist_group("netfs")
@pytest.mark.parametrize("kind", ["sshfs", "smb"])
def test_javascript_peer_through_two_mounts(kind):
    """Every board scenario, and the game scenarios whose outcome a share can change (a whole game,
    runs, take-over, the folder going away, heartbeats seen through a share, restarts), with the
    implementation and the kit on two mounts.
    The other game scenarios judge game logic, the same on any folder: they run on local disk above."""
    a, b = share(kind)
    sub = f"kit-{uuid.uuid4().hex[:8]}"
    (a / sub).mkdir()
    only = [s.__name__[2:] for s in conformance.BOARD_SCENARIOS] + THROUGH_SHARES[kind]
    try:
        results, failed, text = run_kit(JS, base=a / sub, base_b=b / sub, only=only, jobs=JOBS_THROUGH[kind])
        assert [r[0] for r in results] == only, text
        assert not failed, text
    finally:
        shutil.rmtree(a / sub, ignore_errors=True)


def test_the_kit_fails_a_naive_implementation(tmp_path):
    """A peer that works but ignores the secret, follows links, blocks on FIFOs, trusts head and
    consumes a message at once."""
    naive = f"{sys.executable} {ROOT / 'tests' / 'fake_peer_naive.py'}"
    new = ["redeliver", "mac", "links", "fifo", "pointers", "game_secret"]
    results, failed, text = run_kit(naive, base=tmp_path, only=new)
    assert [r[0] for r in results] == new, text
    assert len(failed) == len(new), text
    why = {r[0]: r[3] for r in results}
    assert "no mac" in why["mac"], text
    assert "changed the folder outside the board" in why["links"], text
    assert "within 10 s" in why["fifo"] and "within 10 s" in why["pointers"], text
    assert "was lost" in why["redeliver"], text


@needs_node
def test_the_kit_checks_links_byte_for_byte(tmp_path, monkeypatch):
    """The links scenario fails when only the folder outside the board changed (nothing else)."""
    calls = []
    real = hostile._snapshot

    def tampered(root):
        snap = real(root)
        calls.append(root)
        if len(calls) > 1:            # every snapshot after the first sees one changed byte
            snap = dict(snap, **{"private.txt": ("file", 0o644, "0" * 64)})
        return snap

    monkeypatch.setattr(hostile, "_snapshot", tampered)
    results, failed, text = run_kit(JS, base=tmp_path, only=["links"])
    assert failed and "changed the folder outside the board" in failed[0][3], text


@needs_node
def test_javascript_fuzz():
    """P5 in JS: thousands of generated bodies (and mutated real ones) never make it throw."""
    r = subprocess.run(["node", str(ROOT / "interop" / "js" / "test" / "fuzz.js"), "--seed", "7", "--rounds", "2"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no failure" in r.stdout


def _node(script, data):
    r = subprocess.run(["node", "-e", script], input=json.dumps(data), capture_output=True, text=True,
                       timeout=60, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@needs_node
def test_visible_is_the_same_in_javascript_and_python():
    rnd = random.Random(10)
    alphabet = [chr(c) for c in range(0, 0xa0)] + ["\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066",
                                                    "\u2069", "\u2067", "é", "日", "🀄", "\\", "…", "\u200d"]
    cases = ["hi\x1b]0;pwned\x07 there", "abcdef", "", "\n\r\t", "a\u202eb"]
    cases += ["".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 30))) for _ in range(500)]
    limits = [None, 0, 1, 4, 10] + [rnd.randrange(0, 40) for _ in range(len(cases) - 5)]
    got = _node("const {visible} = require('./interop/js/cardstand.js');"
                "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                "process.stdout.write(JSON.stringify(d.map(([s, n]) => visible(s, n))));",
                list(zip(cases, limits)))
    for (s, n), js in zip(zip(cases, limits), got):
        assert js == visible(s, n), (s, n)


@needs_node
def test_mac_is_the_same_in_javascript_and_python():
    key = "s3cret"
    # the example of PROTOCOL.md A2, and messages each side frames for the other
    js = _node("const cs = require('./interop/js/cardstand.js');"
               "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
               "const k = Buffer.from(d.key);"
               "const out = {vector: cs.macOf(k, 'black', '0123456789abcdef', 'white', 'fedcba9876543210', '7', Buffer.from('d3')),"
               " framed: cs.frame('black', 'r1', 'white', 'r2', 3, Buffer.from(d.body), k).toString('base64'), checked: []};"
               "for (const f of d.frames) { const raw = Buffer.from(f, 'base64');"
               "  try { out.checked.push(cs.unframe(raw, 5, 'white', k).body); } catch (e) { out.checked.push('refused: ' + e.message); } }"
               "process.stdout.write(JSON.stringify(out));",
               {"key": key, "body": "d3 日本",
                "frames": [base64.b64encode(board_frame("black", "r1", "white", "r2", 5, "ok ✓".encode(), key.encode())).decode(),
                           base64.b64encode(board_frame("black", "r1", "white", "r2", 5, b"x", b"other")).decode(),
                           base64.b64encode(board_frame("black", "r1", "white", "r2", 5, b"x")).decode()]})
    assert js["vector"] == "590587b6c044b4f30b87893757fb167111f5b42e0e9c843de7f85e2bb8183350"
    m = board_unframe(base64.b64decode(js["framed"]), box="white", number=3, key=key.encode())
    assert m.body == "d3 日本" and m.signed
    assert js["checked"][0] == "ok ✓"
    assert js["checked"][1].startswith("refused: wrong MAC")
    assert js["checked"][2].startswith("refused: no MAC")



@needs_node
def test_javascript_keeps_its_private_lock_folder_fresh(tmp_path):
    """S1 in JS: the owner of a kept tmp/lock-<token> is rewritten in place when due, and
    clean-up by another member judges the folder by that owner's time."""
    board = tmp_path / "board"
    js = _node("const cs = require('./interop/js/cardstand.js'); const fs = require('fs'), path = require('path');"
               "const d = JSON.parse(fs.readFileSync(0, 'utf8'));"
               "const a = new cs.Board(d.board, 'alice').join(); new cs.Board(d.board, 'bob').join().close();"
               "a.send('bob', 'x');"
               "const owner = path.join(d.board, 'tmp', 'lock-' + a.lease.spare, 'owner');"
               "const hourAgo = Date.now() / 1000 - 3600;"
               "fs.utimesSync(owner, hourAgo, hourAgo); fs.utimesSync(path.dirname(owner), hourAgo, hourAgo);"
               "const before = fs.statSync(owner).mtimeMs;"
               "a.lease.spareAt = -1e9; a.lease.prepared();"
               "const after = fs.statSync(owner).mtimeMs;"
               "fs.utimesSync(path.dirname(owner), hourAgo, hourAgo);"
               "new cs.Board(d.board, 'carol').join().close();"
               "const kept = fs.existsSync(owner); a.close();"
               "process.stdout.write(JSON.stringify({before, after, kept, now: Date.now()}));",
               {"board": str(board)})
    assert js["now"] - js["before"] > 3000e3
    assert js["now"] - js["after"] < 60e3
    assert js["kept"]


# One rule broken at a time (tests/fake_peer_broken.py): the scenario that checks it must fail,
# and for that reason.  (rule, scenario, words of the failure)
BROKEN = [
    ("marker_loose", "init", "whose marker has U+00A0 between its words was answered"),
    ("record_newline", "init", "a \\n before or inside its padding (R1"),
    ("ops_before_init", "init", "an operation before init made the board folder"),
    ("join_any", "members", "while twin runs here was answered"),
    ("replaced_quiet", "members", "(I6: it MUST NOT Quiet)"),
    ("break_live", "lock_held", "broke a live lock"),
    ("holder_unnamed", "lock_held", "the error must name the holder"),
    ("never_break", "stale", "send answered"),
    ("forget_watch", "stale_short", "never broke a lock left silent"),
    ("forget_watch_only", "stale_short", "(L3: the watch is kept between operations"),
    ("keep_damaged", "garbage", "the damaged message was left in place"),
    ("seq_normalised", "mac", "the MAC is over the value exactly as written"),
    ("no_crc_ok", "garbage", "the bad ones are never returned"),
    ("header_unknown_bad", "garbage", "(M1: a header key M1 does not list MUST be ignored)"),
    ("first_line_checked", "garbage", "(R1: readers MUST NOT check the first line)"),
    ("clean_by_folder_time", "cleanup", "init removed tmp/lock-fedcba9876543210 (a private lock folder"),
    ("clean_any_name", "cleanup", "tmp/notes.txt (a name S1 does not list: F3)"),
    ("com0_ok", "device_names", "joined as 'com0'"),
    ("recipient_unchecked", "names", "not ok: false (I5"),
    ("no_to_run", "send", "without 'to-run'"),
    ("no_record", "game_black", "keeps no game record"),
    ("current_unpadded", "game_black", "records/current is "),
    ("game_unterminated", "game_white", "is not lines each ending with"),
    ("no_refused", "refused_move", "no 'refused' message"),
    ("keep_early", "refused_move", "was applied after it (H8"),
    ("no_rewelcome", "refused_move", "no 'welcome' message to a repeated hello"),
    ("moves_required", "refused_move", "refused to a hello without moves"),
    ("any_version", "version", "a hello with v=3 was answered"),
    ("shape_unread", "shape", "not the Heart's picture"),
    ("v_blank_ok", "version", "a hello without v was answered"),
    ("bye_after_refuse", "version", "after its refuse it sent"),
    ("no_percent_decode", "control_lines", "bad game id 'g-p4%2dtest'"),
    ("unknown_key_junk", "control_lines", "no handshake within 10 s"),
    ("role_checked", "control_lines", "the implementation refused"),
    ("pass_left_out_ok", "version", "a hello whose transcript leaves out a pass was answered"),
    ("self_pass", "passes", "before its 'pass #59' arrived"),
    ("pass_lower_only", "passes", "no move within 10 s after 'PASS #59'"),
    ("pass_any_case", "passes", "after 'pAss #59' (P5"),
    ("any_run", "runs", "from another run of black it sent"),
    ("no_ack", "end_reoffer", "ack-white after the kit's result"),
    ("forget_end", "end_restart", "whose end the kit never acknowledged"),
    ("greet_classic", "classic_white", "a classic program was sent"),
    ("greet_classic", "classic_black", "a classic program was sent"),
    ("classic_resend", "classic_again", "before its first move (H6b"),
    ("classic_any_size", "classic_size", "(H6c"),
    ("size_unnamed", "restart_size", "does not name the unfinished game"),
    ("other_welcome", "restart_size", "after a welcome for another game"),
    ("no_abandon", "restart_new", "not 'abandoned'"),
    ("unknown_status_resumes", "restart_new", "an unknown status reads as closed"),
    ("end_believed", "record_trust", "'over' / '64-0' after 3 plies (D5), black offered"),
    ("unsigned_trusted", "record_trust", "a record without a mac line (D4), black offered"),
    ("no_set_aside", "record_trust", "was not set aside as records/g-forged.set-aside-<token>"),
    ("no_refused_record", "refused_record", "not 'refused'"),
    ("remake_board", "board_gone", "was made again"),
    ("busy_code", "take_over", "not 2 (I6)"),
    ("crash_on_leave", "take_over", "not 6 (I6)"),
    ("full_leaves", "full_disk", "on a full disk (patience 60 s)"),
    ("gone_still", "gone", "while the kit thought"),
    ("never_gone", "gone", "was still there after 15 s"),
    ("early_ack", "result", "as if the end were acknowledged"),
    ("counts_strict", "result", "was not taken as the acknowledgement"),
    ("white_fresh", "resume", "the restarted white greeted with"),
]


@pytest.fixture(scope="session")
def broken_runs(request, tmp_path_factory):
    """The kit against every broken rule the session runs, side by side (they wait on the protocol's
    clocks: one after another they took four minutes): (rule, scenario) -> run_kit's answer."""
    chosen = [(item.callspec.params["rule"], item.callspec.params["scenario"]) for item in request.session.items
              if getattr(item, "originalname", None) == "test_the_kit_fails_one_broken_rule"]
    chosen = conformance.runner.longest_first(chosen, lambda case: case[1])    # (the last ends sooner)

    bases = [tmp_path_factory.mktemp(rule) for rule, _ in chosen]      # (here: the factory is not for threads)

    def one(case, base):
        rule, scenario = case
        fake = f"{sys.executable} {ROOT / 'tests' / 'fake_peer_broken.py'} {rule}"
        return run_kit(fake, base=base, only=[scenario])

    with ThreadPoolExecutor(BROKEN_JOBS) as pool:
        return dict(zip(chosen, pool.map(one, chosen, bases)))


@pytest.mark.xdist_group("broken")        # (one worker runs them all, side by side: broken_runs)
@pytest.mark.parametrize("rule, scenario, why", BROKEN, ids=[f"{r}-{s}" for r, s, _ in BROKEN])
def test_the_kit_fails_one_broken_rule(broken_runs, rule, scenario, why):
    """Our Python peer with one rule broken fails the scenario that checks that rule, for that reason."""
    results, failed, text = broken_runs[rule, scenario]
    assert [r[0] for r in results] == [scenario], text
    if results[0][3].startswith("skipped:"):
        pytest.skip(results[0][3])
    assert failed, text
    assert why in failed[0][3], text


def test_every_scenario_has_a_broken_variant():
    """Each scenario of the kit is shown to fail some broken implementation (fake_peer.py,
    fake_peer_naive.py or one rule of fake_peer_broken.py)."""
    shown = {s for _, s, _ in BROKEN} | {"init", "send", "recv", "redeliver", "talk", "quiet", "names"} | \
        {"redeliver", "mac", "links", "fifo", "pointers", "game_secret"}
    assert {fn.__name__[2:] for fn in conformance.BOARD_SCENARIOS + conformance.GAME_SCENARIOS} <= shown


@needs_node
def test_record_signatures_and_checks_are_the_same_in_javascript_and_python(tmp_path):
    """D4 D5: a record signed by one language is trusted by the other with the same secret, and
    refused with another secret or without a signature; an end the moves do not give is damage in both."""
    from peer.record import Record, record_mac
    key = "s3cret"
    lines = "".join(f"{k}: {v}\n" for k, v in (("id", "g-1"), ("size", "8"), ("black", "A\\nn"), ("white", "日本"),
                                              ("date", "2026-11-25T00:00:00Z"), ("mode", "full"),
                                              ("moves", "f5d6"), ("status", "playing"), ("result", "")))
    py_text = Record.parse("cardstand-game 1\n" + lines).text(key.encode())
    js = _node("const p = require('./interop/js/peer.js');"
               "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
               "const k = Buffer.from(d.key);"
               "const check = (t, key) => { try { const r = p.parseRecord(t); if (key) p.checkRecordMac(r, key);"
               "  p.verifyRecord(r); return 'ok'; } catch (e) { return e.constructor.name + ': ' + e.message; } };"
               "const r = p.parseRecord('cardstand-game 1\\n' + d.lines);"
               "process.stdout.write(JSON.stringify({mac: p.recordMac(k, d.lines), text: p.recordText(r, k),"
               " py: check(d.py, k), other: check(d.py, Buffer.from('other')), plain: check(d.plain, k),"
               " nokey: check(d.plain, null), over: check(d.over, null)}));",
               {"key": key, "lines": lines, "py": py_text, "plain": "cardstand-game 1\n" + lines,
                "over": "cardstand-game 1\n" + lines.replace("status: playing", "status: over")})
    assert js["mac"] == record_mac(key.encode(), lines)
    assert js["text"] == py_text
    assert js["py"] == "ok" and js["nokey"] == "ok"
    assert js["other"].startswith("Untrusted: its signature does not match")
    assert js["plain"].startswith("Untrusted: it is not signed")
    assert js["over"].startswith("Damaged: it says the game is over, but after 2 plies black can still move")


@needs_node
def test_a_secret_file_is_read_the_same_in_javascript_and_python(tmp_path):
    """A1: white space and Notepad's BOM taken off, the same key; too long, a device or a folder refused."""
    from comm import InvalidArgument, load_secret
    files = {"bom": b"\xef\xbb\xbfs3cret\r\n", "plain": b" s3cret\t", "utf8": "  秘密 \n".encode(),
             "long": b"x" * 4097, "folder": None, "missing": None}
    paths = {}
    for name, data in files.items():
        paths[name] = str(tmp_path / name)
        if name == "folder":
            (tmp_path / name).mkdir()
        elif data is not None:
            (tmp_path / name).write_bytes(data)
    if Path("/dev/zero").exists():
        paths["device"] = "/dev/zero"
    js = _node("const cs = require('./interop/js/cardstand.js');"
               "const d = JSON.parse(require('fs').readFileSync(0, 'utf8')); const out = {};"
               "for (const [k, f] of Object.entries(d)) { try { out[k] = cs.loadSecret(f).toString('hex'); }"
               "  catch (e) { out[k] = null; } }"
               "process.stdout.write(JSON.stringify(out));", paths)
    for name, path in paths.items():
        try:
            py = load_secret(path).hex()
        except InvalidArgument:
            py = None
        assert js[name] == py, name
    assert js["bom"] == js["plain"] == b"s3cret".hex() and js["utf8"] == "秘密".encode().hex()
    assert js["long"] is None and js["folder"] is None and js["missing"] is None


@needs_node
def test_shaped_records_are_signed_and_checked_the_same_in_javascript_and_python():
    """H2a D4 D5: a record with a shape line: the same text and MAC in both languages, a changed or
    removed shape line untrusted, moves that fall in a hole damage, a bad shape line damage."""
    from engine import Shape
    from peer.record import Record
    key = "s3cret"
    heart, x = Shape.named("Heart").code(), Shape.named("X").code()
    py_text = Record(id="g-1", size=8, shape=heart, black="A", white="B", date="2026-11-25T00:00:00Z",
                     moves="c4c3").text(key.encode())
    cases = {"same": py_text, "changed": py_text.replace(heart, x), "removed": py_text.replace(f"shape: {heart}\n", ""),
             "hole": py_text.replace(heart, x).split("mac:")[0],     # c4 is a hole of the X
             "bad": py_text.replace(heart, "..../.OX./.XO./....").split("mac:")[0]}
    js = _node("const p = require('./interop/js/peer.js');"
               "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
               "const k = Buffer.from(d.key);"
               "const check = (t, key) => { try { const r = p.parseRecord(t); if (key) p.checkRecordMac(r, key);"
               "  p.verifyRecord(r); return 'ok'; } catch (e) { return e.constructor.name + ': ' + e.message; } };"
               "const out = {text: p.recordText(p.parseRecord(d.cases.same), k)};"
               "for (const [n, t] of Object.entries(d.cases)) out[n] = check(t, n === 'hole' || n === 'bad' ? null : k);"
               "process.stdout.write(JSON.stringify(out));", {"key": key, "cases": cases})
    assert js["text"] == py_text
    assert js["same"] == "ok"
    assert js["changed"].startswith("Untrusted: its signature does not match")
    assert js["removed"].startswith("Untrusted: its signature does not match")
    assert js["hole"].startswith("Damaged: its moves do not replay: c4 is a hole")
    assert js["bad"].startswith("Damaged: damaged game record: the shape is 4x4, its size says 8")


@needs_node
@pytest.mark.parametrize("js_colour", ["white", "black"])
def test_a_shaped_game_between_javascript_and_python(tmp_path, js_colour):
    """H2a: the Torus between the two languages, whichever proposes it; both see the same end."""
    from engine import Shape
    from peer.record import Records
    from peertools import final_line, finish, player
    torus = Shape.named("Torus")
    board = tmp_path / "b"
    js_args = ["--shape", torus.code()] if js_colour == "black" else []
    js = subprocess.Popen(["node", str(ROOT / "interop" / "js" / "peer.js"), "play", "--board", str(board),
                           "--color", js_colour, *js_args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    py_args = ["--shape", "torus"] if js_colour == "white" else []
    py = player("black" if js_colour == "white" else "white", board, "--ai", "greedy", *py_args)
    rp, op = finish(py, timeout=180)
    oj, _ = js.communicate(timeout=180)
    assert rp == 0 and js.returncode == 0, (op[-500:], oj[-500:])
    rec = Records(board).current()
    assert rec.status == "over" and rec.board().same_board(torus)
    b, w = rec.game().position.discs()
    assert final_line(op).startswith(f"Game over: black {b} - white {w}") and f"game over: black {b} - white {w}" in oj


@needs_node
def test_javascript_leaves_an_untrusted_record_alone_until_the_secret_is_shared(tmp_path):
    """D6a in JS: a record signed with another secret is held (not set aside, not written over)
    until Python's first signed message arrives; then it is set aside (once, by either side) and
    the game is played."""
    from peer.record import Record, Records
    from peertools import board_folder, finish, player
    board = board_folder(tmp_path / "b")
    secret = tmp_path / "secret"
    secret.write_text("s3cret-shared\n")
    Records(board, b"someone-else").save(Record(id="g-forged", moves="f5d6"))
    js = subprocess.Popen(["node", str(ROOT / "interop" / "js" / "peer.js"), "play", "--board", str(board),
                           "--color", "black", "--secret-file", str(secret)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while "left alone until white" not in (js.stdout.readline() or ""):
            assert time.monotonic() < deadline and js.poll() is None
        assert (board / "records" / "g-forged.game").exists()      # held: not set aside yet
        assert not list((board / "records").glob("*.set-aside-*"))
        rw, ow = finish(player("white", board, "--ai", "random", "--secret-file", secret), timeout=180)
        oj, _ = js.communicate(timeout=60)
    finally:
        if js.poll() is None:
            js.kill()
    assert rw == 0 and js.returncode == 0, (ow[-400:], oj[-400:])
    # whichever side sets it aside first, the other judges the record again and finds it sound: set aside once
    assert "it was set aside" in oj or "was replaced since it was judged: it is sound now" in oj, oj
    assert len(list((board / "records").glob("g-forged.set-aside-*"))) == 1
    assert Records(board, b"s3cret-shared").load("g-forged").status == "over"
