import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest

# The modules whose tests play whole games between processes, run the conformance kit, kill
# programs at random or go through network shares: nine tenths of the full run's time.  They
# carry the marker ``games``; ``python -m pytest -m "not games"`` is the quick loop of README.
GAMES = {"test_interop", "test_comm_hostile", "test_comm_procs", "test_comm_netfs", "test_comm_trouble",
         "test_peer_restart", "test_peer_records", "test_peer_trouble", "test_peer_protocol",
         "test_peer_attacks", "test_peer_games", "test_peer_window", "test_peer_chaos", "test_trouble_kinds",
         "test_peer_screen", "test_peer_hostile", "test_peer_clocks", "test_wheel", "test_interop_c",
         "test_peer_shapes", "test_interop_java", "test_lobby", "test_league_games", "test_windows"}


def _keep_group(item: pytest.Item) -> None:
    """What pytest-xdist's --dist loadgroup does to a test marked ``xdist_group``: its id ends in
    ``@group``, and the tests of a group run on one worker.  xdist 3.8 writes ``Node._nodeid``, which
    pytest 9 no longer reads (it keeps the id in ``Node._id``): there every group was spread over
    both workers, silently.  Done here too, whichever the versions."""
    groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                     for m in item.iter_markers("xdist_group")})
    grouped = f"{item.nodeid.partition('@')[0]}@{'_'.join(groups)}"
    if not groups or item.nodeid == grouped:
        return
    node_id = getattr(item, "_id", None)
    if node_id is not None and hasattr(node_id, "parse"):
        setattr(item, "_id", type(node_id).parse(grouped))
    else:
        setattr(item, "_nodeid", grouped)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.module is not None and item.module.__name__ in GAMES:
            item.add_marker(pytest.mark.games)
        if getattr(config.option, "loadgroup", False):      # (set in the workers of --dist loadgroup)
            _keep_group(item)
    # The longest first, so that the two workers finish together: the network shares' group (one
    # worker runs it all, several minutes), then the games, then the many short tests that fill in.
    def rank(item: pytest.Item) -> int:
        if any(m.args == ("netfs",) for m in item.iter_markers("xdist_group")):
            return 0
        return 1 if item.get_closest_marker("games") else 2
    items.sort(key=rank)


@pytest.fixture(autouse=True)
def _no_heartbeat_outlives_its_test(monkeypatch: pytest.MonkeyPatch):
    """A board a test leaves joined would beat once a second in this worker for the rest of the
    run (hundreds of threads by the end, each writing its record): its heartbeat stops with the test."""
    from comm import heartbeat
    started: list[heartbeat.Heartbeat] = []
    start = heartbeat.Heartbeat.start

    def tracked(self: heartbeat.Heartbeat, every: float, beat) -> None:
        started.append(self)
        start(self, every, beat)

    monkeypatch.setattr(heartbeat.Heartbeat, "start", tracked)
    yield
    for h in started:
        h.stop()
