"""Runs of the conformance kit that one test file checks, started side by side.

A run of the kit spends its time waiting on the protocol's clocks (a lock held 12 s, a classic
program's 10 s for a greeting), so a file's runs one after another took the sum of those waits;
side by side they take about the longest.  The file's kit tests go to one worker (give them one
``xdist_group``); the first of them to run starts the runs of all of them that this session
selected, and each test then reads its own outcome."""
import concurrent.futures
import re
from pathlib import Path
from typing import Any, Callable

import pytest


def _skipped(item: pytest.Item) -> bool:
    """Whether a mark skips the test for sure (a condition that is not a plain value is left to pytest)."""
    if any(True for _ in item.iter_markers("skip")):
        return True
    for m in item.iter_markers("skipif"):
        conditions = [*m.args, *([m.kwargs["condition"]] if "condition" in m.kwargs else [])]
        if any(not isinstance(c, str) and bool(c) for c in conditions):
            return True
    return False


def side_by_side(plans: Callable[[str], Callable[[Path], Any] | None]) -> Any:
    """A module fixture.  ``plans(test_name)`` (a test's ``item.name``, parameters included) gives the
    function that makes that test's run in a fresh folder, or None for a test without one.  The
    fixture gives a function of ``request`` that returns the calling test's run, or raises what
    making it raised (a skip, a failed build)."""
    @pytest.fixture(scope="module")
    def kit_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
        chosen = {item.name: plan for item in request.session.items
                  if getattr(item, "module", None) is request.module and not _skipped(item)
                  for plan in [plans(item.name)] if plan is not None}
        folders = {name: tmp_path_factory.mktemp(re.sub(r"\W+", "-", name)[-40:]) for name in chosen}
        with concurrent.futures.ThreadPoolExecutor(max(1, len(chosen))) as pool:
            done = {name: pool.submit(plan, folders[name]) for name, plan in chosen.items()}
            concurrent.futures.wait(done.values())

        def outcome(req: pytest.FixtureRequest) -> Any:
            name = req.node.name
            assert name in done, f"{name} has no kit run planned (kitruns.side_by_side)"
            return done[name].result()
        return outcome
    return kit_runs
