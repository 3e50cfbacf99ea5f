"""In-process stand-ins for a board and a player, to drive ``Session`` without processes."""
import io
import time
from types import SimpleNamespace

from peer.players import Player
from peer.session import Session
from peer.faces.plain import Screen

from peertools import board_folder


class Exhausted(Exception):
    """The scripted messages ran out."""


class FakeBoard:
    """What ``Session`` uses of ``comm.Board``; messages to read are scripted, sent ones kept."""

    def __init__(self, folder, runs=None):
        self.folder = folder
        board_folder(folder)
        self.inbox = []             # comm-Message-like objects still to deliver
        self.rejected = []          # comm.Rejected-like objects still to report
        self.set_aside = []         # comm.aside.SetAside objects still to report
        self.set_aside_more = 0     # and how many more (beyond what comm keeps)
        self.sent = []              # (to, body)
        self.runs = dict(runs or {"black": "b" * 16, "white": "w" * 16})
        # P2 state of each member's alive record: game peers show one (H9); None: no record
        self.states = {"black": "waiting", "white": "waiting"}
        self.last_error = ""
        self.problem = ""           # comm's code for the last failure (G7: "gone", "full", "replaced")
        self.failing = []           # (problem, reason) for each of the next sends, which fail
        self.attempts = []          # bodies of the sends that failed
        self.lock_timeout = 10.0
        self.empty_polls = 0
        self.idle = False           # True: an empty wait sleeps its timeout, as a quiet board does, and never runs out
        self.ended = set()          # members whose run is known to have ended (comm.Board.left)
        self.quieted = []           # what quiet discarded (comm.Message-like)

    def push(self, sender, body, run=None, signed=False, after=None):
        """Script a message; ``body`` may be a function of the board (the last hello sent, ...).

        ``after``: a function of the board; the message (and those behind it) waits until it is true.
        """
        self.inbox.append(SimpleNamespace(sender=sender, body=body, seq=0, to_run="",
                                          sender_run=self.runs.get(sender.lower(), "") if run is None else run,
                                          signed=signed, after=after))

    def moves_sent(self):
        return sum(1 for _, body in self.sent if not body.startswith("#"))

    def last_sent(self, prefix="#cardstand hello"):
        return next((b for _, b in reversed(self.sent) if b.startswith(prefix)), "")

    def wait(self, timeout=None):
        if self.inbox and (self.inbox[0].after is None or self.inbox[0].after(self)):
            m = self.inbox.pop(0)
            if callable(m.body):
                m.body = m.body(self)
            return m
        if self.idle:
            time.sleep(timeout or 0)
            return None
        self.empty_polls += 1
        if self.empty_polls > 3:
            raise Exhausted()
        return None

    receive = wait

    def take_rejected(self):
        out, self.rejected = self.rejected, []
        return out

    def take_set_aside(self):
        out, more = self.set_aside, self.set_aside_more
        self.set_aside, self.set_aside_more = [], 0
        return out, more

    def send(self, to, body):
        if self.failing:            # (problem, reason) of the next failed sends
            self.problem, self.last_error = self.failing.pop(0)
            self.attempts.append(body)
            return False
        self.problem = self.last_error = ""
        self.sent.append((to, body))
        return True

    def member_run(self, name):
        return self.runs.get(name.lower())

    def left(self, name):
        return name.lower() in self.ended

    def left_how(self, name):
        return "gone" if name.lower() in self.ended else ""

    def alive(self, name):
        state = self.states.get(name.lower())
        if state is None:
            return None
        return {"run": self.runs.get(name.lower(), ""), "beat": "1", "state": state}

    def beat(self, state=""):
        pass

    def join(self):
        return self

    def quiet(self):
        return 0

    def close(self):
        pass


class FirstLegal(Player):

    def choose(self, position):
        return position.legal_moves()[0], ""


def session(folder, colour, **kw):
    """(Session, FakeBoard, output stream) for ``colour`` (0 black, 1 white) on ``folder``."""
    out = io.StringIO()
    board = FakeBoard(folder)
    s = Session(folder, colour, FirstLegal(), Screen("en", colour=False, stream=out), board=board,
                classic_after=1e9, **kw)
    return s, board, out
