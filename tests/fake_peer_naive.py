"""A broken implementation for the conformance kit's own test: it works, but naively.

It serves the contract through ``comm.Board`` after doing what a careless
implementation would do first:

- it ignores ``CARDSTAND_SECRET`` (no MAC sent, none checked);
- its clean-up of old scratch walks into symbolic links and deletes what it finds
  there, and it writes a note into its mailbox folder through whatever is there;
- it peeks at its next message with a plain blocking ``open`` (a FIFO blocks it);
- it trusts ``head`` and looks at every number up to it;
- it consumes a message as soon as it takes it (closing its board after every ``recv``):
  killed before its next call, it has lost the message (M5);

and its ``play`` is our Python player with the secret taken away.
The kit must fail it on the mac, links, fifo, pointers, redeliver and game_secret scenarios.
"""
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from comm import Board, fsops  # noqa: E402
from comm.board import msg_name  # noqa: E402


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def naive_clean(board):
    tmp = board / "tmp"
    if not tmp.is_dir():
        return
    for e in os.listdir(tmp):
        p = tmp / e
        if time.time() - os.lstat(p).st_mtime > 600:
            for root, dirs, files in os.walk(p, followlinks=True):   # follows links: the bug
                for f in files:
                    try:
                        os.unlink(os.path.join(root, f))
                    except OSError:
                        pass


def naive_peek(board, key):
    box = board / "box" / key
    tail = fsops.read_int(box / "tail")
    head = fsops.read_int(box / "head")
    waiting = 0
    for k in range(tail + 1, head + 1):                              # trusts head: loops for ages
        try:
            with open(box / msg_name(k), "rb"):                      # blocks on a FIFO
                waiting += 1
        except OSError:
            pass
    return waiting


def serve():
    board, name = Path(arg("--board")), arg("--name")
    me = Board(board, name, stale_after=float(arg("--stale-after", "10")),
               lock_timeout=float(arg("--lock-timeout", "10")))      # no secret: the bug
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get("op")
        try:
            if op == "init":
                naive_clean(board)
                box = board / "box" / name.lower()
                if box.exists():                                     # follows a link at box/<key>
                    (box / "notes").write_text("naive was here\n")
                me.join()
                ans = {"ok": True}
            elif op == "send":
                ans = {"ok": True, "result": 1 if me.send(req["to"], req.get("body", "")) else 0}
            elif op == "recv":
                naive_peek(board, name.lower())
                m = me.receive()
                me.close()                                           # consumed at once: the bug
                ans = {"ok": True, "result": 2 if m else -1, "sender": m.sender if m else "", "body": m.body if m else ""}
            elif op == "talk":
                r = me.talk(req.get("to", ""), req.get("body", ""))
                ans = {"ok": True, "result": r.result, "sender": r.sender, "body": r.body}
            elif op in ("quiet", "wipe"):
                ans = {"ok": True, "result": me.quiet() if op == "quiet" else me.wipe()}
            else:
                ans = {"ok": False, "error": f"unknown op {op}"}
        except Exception as e:
            ans = {"ok": False, "error": str(e)}
        print(json.dumps(ans), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        env = {k: v for k, v in os.environ.items() if k != "CARDSTAND_SECRET"}
        env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
        os.execve(sys.executable, [sys.executable, "-m", "peer", "play", "--ai", "random", *sys.argv[2:]], env)
