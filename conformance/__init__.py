"""The conformance kit: checks any implementation of docs/PROTOCOL.md from the outside.

``python -m conformance --peer CMD`` (docs/CONFORMANCE.md).  It judges other programs,
so it sits beside the packages it uses (``comm``, ``engine``, ``peer``) and none of them
knows it.  Its parts: ``board`` and ``hostile`` (board scenarios), ``games`` and
``restarts`` (game scenarios), ``minimal`` (the minimal profile's own) with ``play`` (the kit's side of a game), ``decoder`` (its
own reading of the files), ``process`` (starting and stopping the programs under test),
``runner`` (running the scenarios, the report) and ``cli`` (the command line).
"""
from .cli import main
from .common import Fail, Skip
from .process import Served
from .runner import BOARD_SCENARIOS, GAME_SCENARIOS, MINIMAL_CLAUSES, MINIMAL_SCENARIOS, PROFILES, run

__all__ = ["main", "run", "BOARD_SCENARIOS", "GAME_SCENARIOS", "MINIMAL_CLAUSES", "MINIMAL_SCENARIOS", "PROFILES", "Fail", "Skip",
           "Served"]
