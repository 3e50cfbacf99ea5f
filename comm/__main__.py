"""Command line: ``python -m comm {status,echo,serve,bench}``."""
import argparse
import logging
import sys
import time
from pathlib import Path

from .board import Board, InvalidArgument, check_name, load_secret
from .cliargs import number, program, seconds, whole
from .text import visible


def _no_board(folder: str) -> str:
    """Why ``folder`` is not a board to look at (missing, unreachable, no marker), or ''."""
    b = Board(folder, "status")
    if b.is_gone():
        return f"no board at {folder}: the folder or its marker cardstand.board is missing or unreachable"
    return ""


def cmd_status(args: argparse.Namespace) -> int:
    """Print the board's lock holder and members with their unread counts."""
    why = _no_board(args.board)
    if why:
        print(f"python -m comm status: {why}", file=sys.stderr)
        return 1
    b = Board(args.board, "status")
    holder = b.lease.holder()
    print(f"board   : {b.folder}")
    if holder is None:
        print("lock    : free")
    else:
        who = {k: visible(holder.get(k, "?"), 64) for k in ("name", "pid", "host")}
        print(f"lock    : held by {who['name']} (pid {who['pid']} on {who['host']})")
    for name in b.members():
        try:
            box = f"box/{check_name(name).lower()}"
        except InvalidArgument:
            print(f"member  : {visible(name, 40)} (not a valid name: ignored)")
            continue
        head, tail = b.root.read_int(f"{box}/head"), b.root.read_int(f"{box}/tail")
        print(f"member  : {name:20s} unread {max(0, head - tail)}")
    return 0


def cmd_echo(args: argparse.Namespace) -> int:
    """Answer every message with the same body (used by the benchmark and tests)."""
    with Board(args.board, args.name, secret=args.secret, stale_after=args.stale_after) as me:
        print("ready", flush=True)
        n = 0
        while args.count == 0 or n < args.count:
            m = me.wait()
            if m is None:       # the board is gone, or this name was taken over
                print(f"python -m comm echo: {me.last_error}", file=sys.stderr)
                return 1
            if m.body == "__stop__":
                break
            pause = 0.001
            while not me.send(m.sender, m.body):
                if me.problem in Board.LASTING:
                    print(f"python -m comm echo: {me.last_error}", file=sys.stderr)
                    return 1
                time.sleep(pause)
                pause = min(2 * pause, 2.0)
            n += 1
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """The conformance contract: JSON requests on stdin, one JSON answer per line on stdout."""
    import json
    try:
        me = Board(args.board, args.name, secret=args.secret, stale_after=args.stale_after,
                   lock_timeout=args.lock_timeout)
    except InvalidArgument as e:
        print(json.dumps({"ok": False, "error": str(e)}), flush=True)
        return 2
    try:
        for line in sys.stdin:
            ans: dict[str, object]
            try:
                req = json.loads(line)
                if not isinstance(req, dict):
                    raise ValueError("a request is a JSON object, like {\"op\": \"init\"}")
                op = req.get("op")
                if op == "init":
                    me.join(take_over=bool(req.get("take_over")))
                    ans = {"ok": True}
                elif op == "quiet":
                    ans = {"ok": True, "result": me.quiet(), "error": me.last_error}
                elif op == "talk":
                    r = me.talk(req.get("to", ""), req.get("body", ""))
                    ans = {"ok": True, "result": r.result, "sender": r.sender, "body": r.body, "error": me.last_error}
                elif op == "send":
                    ans = {"ok": True, "result": 1 if me.send(req["to"], req.get("body", "")) else 0,
                           "error": me.last_error}
                elif op == "recv":
                    m = me.receive()
                    ans = {"ok": True, "result": 2 if m else (0 if me.last_error else -1),
                           "sender": m.sender if m else "", "body": m.body if m else "", "error": me.last_error}
                elif op == "wipe":
                    ans = {"ok": True, "result": me.wipe(), "error": me.last_error}
                elif op == "quit":
                    print(json.dumps({"ok": True}), flush=True)
                    return 0
                else:
                    ans = {"ok": False, "error": f"unknown op {op!r}"}
            except (InvalidArgument, OSError, ValueError, KeyError, RuntimeError) as e:
                ans = {"ok": False, "error": str(e)}
            print(json.dumps(ans, ensure_ascii=False), flush=True)
        return 0
    finally:
        me.close()    # acknowledges the message last returned (M5)


STALE_HELP = "seconds after which a silent holder of the lock counts as gone (default 10)"


def _name(text: str) -> str:
    """A ``type=`` for a member name (``check_name``)."""
    try:
        return check_name(text)
    except InvalidArgument as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _share(text: str) -> str:
    """A ``type=`` for ``--share LABEL=DIR_A,DIR_B``."""
    label, eq, dirs = text.partition("=")
    a, comma, b = dirs.partition(",")
    if not (label and eq and a and comma and b):
        raise argparse.ArgumentTypeError(f"expected LABEL=DIR_A,DIR_B, not {text[:60]!r}")
    for where in (a, b):
        if not Path(where).is_dir():
            raise argparse.ArgumentTypeError(f"{visible(where, 200)} is not a folder (is the share mounted?)")
    return text


def parser() -> argparse.ArgumentParser:
    """The parser of ``python -m comm`` and its subcommands."""
    ap = argparse.ArgumentParser(prog=program("cardstand-comm", "python -m comm"), description="The message board (伝言台).",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="examples:\n  python -m comm status --board cardstand\n"
                                        "  python -m comm bench\n"
                                        "  python -m comm bench --share sshfs=/mnt/a/board,/mnt/b/board")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("status", help="show the members, unread counts and the lock of a board")
    s.add_argument("--board", default="cardstand", help="board folder (default ./cardstand)")
    e = sub.add_parser("echo", help="answer every message with its own body")
    e.add_argument("--board", required=True)
    e.add_argument("--name", type=_name, default="echo", help="its name on the board (default echo)")
    e.add_argument("--count", type=whole(0, 10 ** 9), default=0, help="stop after N answers (0: until '__stop__')")
    e.add_argument("--stale-after", type=seconds, default=10.0, help=STALE_HELP)
    sv = sub.add_parser("serve", help="answer JSON requests on stdin (the conformance kit's contract)")
    sv.add_argument("--board", required=True)
    sv.add_argument("--name", type=_name, required=True, help="its name on the board")
    sv.add_argument("--stale-after", type=seconds, default=10.0, help=STALE_HELP)
    sv.add_argument("--lock-timeout", type=seconds, default=10.0,
                    help="seconds to wait for the board's lock (default 10)")
    for p in (e, sv):
        p.add_argument("--secret-file", metavar="FILE",
                       help="sign and check every message with the shared secret in FILE "
                            "(default: the CARDSTAND_SECRET environment variable, if set)")
    b = sub.add_parser("bench", help="round-trip latency and idle CPU, local disk and network shares")
    b.add_argument("--rounds", type=whole(1, 10 ** 6), default=500, help="round trips per folder (default 500)")
    b.add_argument("--share", action="append", type=_share, default=[], metavar="LABEL=DIR_A,DIR_B",
                   help="also measure through a share mounted twice (the same folder seen as A and B)")
    b.add_argument("--idle", type=number(0, 3600, above=True), default=5.0,
                   help="seconds to measure an idle waiter, at most 3600 (default 5)")
    b.add_argument("--no-auto-shares", action="store_true",
                   help="do not look for the loopback mounts of ../shared/netfs")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    if args.cmd in ("echo", "serve"):
        try:
            args.secret = load_secret(args.secret_file)
        except InvalidArgument as err:
            print(f"python -m comm {args.cmd}: {err}", file=sys.stderr)
            return 2
    if args.cmd == "bench":
        from .bench import run
        return run(args)
    return {"status": cmd_status, "echo": cmd_echo, "serve": cmd_serve}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
