"""Training work on a local pool or a Dask cluster (engine.fit.jobs): the same results for a
seed wherever they are computed, resumable from a journal after a crash."""
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from engine.fit import jobs, probcut, weights
from peertools import ROOT

np = pytest.importorskip("numpy")
SMALL = dict(depth=2, exact=8, batch=1)


def same(a, b):
    return a.keys() == b.keys() and all(a[k].shape == b[k].shape and (a[k] == b[k]).all() for k in a)


def test_self_play_is_the_same_on_one_process_two_and_a_two_worker_cluster(tmp_path):
    pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    one = weights.generate(6, seed=5, workers=1, **SMALL)
    two = weights.generate(6, seed=5, workers=2, **SMALL)
    cluster = weights.generate(6, seed=5, cluster="local:2", **SMALL)
    assert len(one["label"]) > 100 and same(one, two) and same(one, cluster)
    assert not same(one, weights.generate(6, seed=6, workers=1, **SMALL))


def test_self_play_with_the_hand_written_evaluation_ignores_weights_installed_before():
    from engine import patterns
    assert patterns.install()
    try:
        after_install = weights.generate(12, seed=7, depth=6, exact=12, workers=1)
        patterns.uninstall()
        assert same(after_install, weights.generate(12, seed=7, depth=6, exact=12, workers=1))
    finally:
        patterns.install()


def test_a_self_play_job_run_in_this_process_leaves_its_weights_as_it_found_them():
    from engine import Position, _core, patterns

    def searches_with_patterns():
        p = Position.start()
        try:
            _core.search(8, p.player, p.opponent, 2, 1e9, "patterns", 16)
        except RuntimeError:  # "no pattern weights installed"
            return False
        return True

    assert patterns.install() and searches_with_patterns()
    weights.generate(2, seed=3, workers=1, **SMALL)
    assert searches_with_patterns()
    patterns.uninstall()
    try:
        weights.generate(2, seed=3, workers=1, evaluation="patterns", **SMALL)
        assert not searches_with_patterns()
    finally:
        patterns.install()


def test_a_journal_of_self_play_is_refused_when_other_weights_lie_under_the_same_name(tmp_path):
    from engine import patterns
    w, journal = tmp_path / "w.bin.gz", tmp_path / "journal"
    patterns.save(patterns.load(), w)
    first = weights.generate(2, seed=3, workers=1, evaluation="patterns", weights=w, journal=journal, **SMALL)
    assert same(first, weights.generate(2, seed=3, workers=1, evaluation="patterns", weights=w, journal=journal,
                                        **SMALL))
    other = patterns.load()
    other[0] += 1
    patterns.save(other, w)
    with pytest.raises(jobs.JournalError, match="another run"):
        weights.generate(2, seed=3, workers=1, evaluation="patterns", weights=w, journal=journal, **SMALL)


def test_probcut_labels_on_a_cluster_match_the_local_ones():
    pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    positions = probcut.sample_positions(6, 3)
    args = [(p.player, p.opponent, 3) for p in positions]
    local = jobs.run(probcut._measure_job, args, workers=2, progress=None)
    assert local == jobs.run(probcut._measure_job, args, cluster="local:2", progress=None)
    assert all(v is None or len(v) == 4 for v in local)


def test_a_journal_resumes_after_a_kill_and_refuses_another_run(tmp_path):
    journal = tmp_path / "j"
    argv = [sys.executable, "-m", "engine.fit.weights", "generate", "--games", "12", "--seed", "7", "--depth", "6",
            "--exact", "12", "--workers", "1", "--journal", str(journal), "--data", str(tmp_path / "a.npz")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list(journal.glob("job-*.json"))) < 1 and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert journal.is_dir()
    r = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-800:]
    assert "kept from the journal" in r.stderr
    whole = weights.generate(12, seed=7, depth=6, exact=12, workers=1)
    assert same(dict(np.load(tmp_path / "a.npz")), whole)
    other = argv[:argv.index("--seed") + 1] + ["8"] + argv[argv.index("--seed") + 2:]
    r = subprocess.run(other, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "journal of another run" in r.stderr and "Traceback" not in r.stderr


def test_a_damaged_job_file_is_computed_again(tmp_path):
    args = [(p.player, p.opponent, 2) for p in probcut.sample_positions(3, 1)]
    first = jobs.run(probcut._measure_job, args, workers=1, journal=tmp_path, progress=None)
    (tmp_path / "job-000001.json").write_text("{garbage")
    assert jobs.run(probcut._measure_job, args, workers=1, journal=tmp_path, progress=None) == first
    # valid JSON of other values (which gave tracebacks, or lost a batch of games), a job's file
    # under another job's name, a file of the format before the check: each computed again
    kept = json.loads((tmp_path / "job-000002.json").read_text())
    for name, content in (("job-000001.json", {"result": None}), ("job-000001.json", {"result": [[1, 2]]}),
                          ("job-000001.json", dict(kept, result=[])), ("job-000001.json", kept),
                          ("job-000002.json", {"result": kept["result"]})):
        (tmp_path / name).write_text(json.dumps(content))
        assert jobs.run(probcut._measure_job, args, workers=1, journal=tmp_path, progress=None) == first, content
    with pytest.raises(jobs.JournalError):
        jobs.run(probcut._measure_job, args[:2], workers=1, journal=tmp_path, progress=None)


def test_a_journal_whose_run_file_was_removed_is_refused(tmp_path):
    args = [(p.player, p.opponent, 2) for p in probcut.sample_positions(2, 1)]
    jobs.run(probcut._measure_job, args, workers=1, journal=tmp_path, progress=None)
    (tmp_path / "run.json").unlink()
    with pytest.raises(jobs.JournalError, match="no run.json"):
        jobs.run(probcut._measure_job, args, workers=1, journal=tmp_path, progress=None)


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes and /dev/zero are POSIX's")
def test_a_pipe_or_a_device_in_a_journal_is_never_read(tmp_path):
    """A FIFO named like a job's file or run.json hung the run; a link to /dev/zero ended in a
    MemoryError traceback.  A job's file that is not a plain file is computed again; a run.json
    that is not is refused in one line."""
    args = [(p.player, p.opponent, 2) for p in probcut.sample_positions(3, 1)]
    first = jobs.run(probcut._measure_job, args, workers=1, journal=tmp_path, progress=None)
    (tmp_path / "job-000001.json").unlink()
    os.mkfifo(tmp_path / "job-000001.json")
    (tmp_path / "job-000002.json").unlink()
    (tmp_path / "job-000002.json").symlink_to("/dev/zero")
    assert jobs.run(probcut._measure_job, args, workers=1, journal=tmp_path, progress=None) == first
    for make in (lambda p: os.mkfifo(p), lambda p: p.symlink_to("/dev/zero")):
        (tmp_path / "run.json").unlink()
        make(tmp_path / "run.json")
        with pytest.raises(jobs.JournalError, match="is not a journal's run file .it is not a regular file"):
            jobs.run(probcut._measure_job, args, workers=1, journal=tmp_path, progress=None)


def _a_cluster_elsewhere(tmp_path, workers=2):
    """A Dask scheduler and ``workers`` workers started as the docs say, each worker in a folder of
    its own (sharing none with the test's): (address, processes)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    info = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
                              cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    deadline = time.monotonic() + 60
    while not info.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    address = json.loads(info.read_text())["address"]
    for n in range(workers):
        home = tmp_path / f"worker{n}"
        home.mkdir()
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                       "--no-dashboard", "--host", "127.0.0.1", "--local-directory", str(home)],
                                      cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return address, procs


def test_all_steps_run_on_workers_that_share_no_folder_with_the_machine_that_starts_them(tmp_path):
    """The second round plays with the first fit, which only the starting machine has: it goes to
    the workers with each job (a relative --out failed on every worker, even on one host)."""
    pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    address, procs = _a_cluster_elsewhere(tmp_path)
    here = tmp_path / "here"
    here.mkdir()
    try:
        r = subprocess.run([sys.executable, "-m", "engine.fit.weights", "all", "--games", "4", "--games2", "4",
                            "--depth", "2", "--exact", "8", "--iterations", "5", "--cluster", address,
                            "--out", "fitted.bin.gz"], cwd=here, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                           capture_output=True, text=True, timeout=600)
    finally:
        for p in procs[::-1]:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
    assert r.returncode == 0, r.stderr[-1500:]
    assert "round 2: self-play with the first fit" in r.stderr and (here / "fitted.bin.gz").is_file()
    assert not any((tmp_path / f"worker{n}" / "fitted.bin.gz").exists() for n in range(2))


def _spanned_job(arg):
    """Half a second of work; when it ran (wall-clock seconds)."""
    began = time.time()
    time.sleep(0.5)
    return [began, time.time()]


def _fatal_job(arg):
    """Ends the process that runs it, as a crash or the kernel's out-of-memory killer would."""
    os._exit(9)


def test_workers_that_join_a_cluster_late_take_jobs(capsys):
    """One worker at the start, three more a second later: the run keeps as many jobs in flight as
    the cluster has workers now (it kept twice the threads it saw at the start: two idled)."""
    distributed = pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    import threading
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        threading.Timer(1.0, lambda: c.scale(4)).start()
        spans = jobs.run(_spanned_job, list(range(24)), cluster=c.scheduler_address, progress=None)
    at_once = max(sum(1 for began, ended in spans if began <= t < ended) for t, _ in spans)
    assert at_once >= 3, spans
    assert "a worker joined the cluster: " in capsys.readouterr().err


def test_a_job_that_ends_its_workers_and_a_lost_scheduler_are_said_in_one_line(tmp_path):
    pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    with pytest.raises(jobs.ClusterError) as e:
        jobs.run(_fatal_job, [1], cluster="local:2", journal=tmp_path / "j", progress=None)
    assert "a job ended each worker that ran it" in str(e.value) and jobs.RESUME in str(e.value), e.value
    assert "\n" not in str(e.value)


def test_a_cluster_without_workers_or_without_its_scheduler_is_said(capsys):
    distributed = pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    import threading
    c = distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None)
    try:
        threading.Timer(1.5, lambda: c.scale(1)).start()
        assert jobs.run(_spanned_job, [1, 2], cluster=c.scheduler_address, progress=None)
        err = capsys.readouterr().err
        assert f"the cluster at {c.scheduler_address} has no worker: the jobs wait for one" in err, err
        threading.Timer(1.0, c.close).start()
        with pytest.raises(jobs.ClusterError, match="was lost") as e:
            jobs.run(_spanned_job, list(range(40)), cluster=c.scheduler_address, progress=None)
        assert "with --journal the next run resumes" in str(e.value)
    finally:
        c.close()


def _slow_job(arg):
    """Job k returns k at once, except the last, which waits, then leaves a file."""
    k, last, marker = arg
    if k == last:
        time.sleep(3)
        with open(marker, "w") as f:
            f.write("finished")
    return k


def test_a_stream_reads_its_arguments_as_jobs_start_and_stops_its_running_jobs_when_left(tmp_path):
    marker = tmp_path / "marker"
    taken = []

    def endless():
        for k in range(10 ** 9):
            taken.append(k)
            yield (k, 1, str(marker))

    results = jobs.stream(_slow_job, endless(), workers=2)
    first = next(results)
    assert first == (0, 0)
    assert len(taken) <= 3          # two running, one more started as the first finished
    results.close()                 # job 1 still running: its process is ended
    # ... and every process of the pool has gone when close returns: one still waiting for a job
    # as the program ended read the pool's closed pipe and printed a traceback (EOFError)
    import multiprocessing
    assert multiprocessing.active_children() == []
    time.sleep(4)
    assert not marker.exists()
    assert sorted(jobs.stream(_slow_job, [(k, -1, "") for k in range(5)], workers=2)) == [(k, k) for k in range(5)]


def test_labels_by_search_are_the_same_on_one_process_two_and_a_cluster_and_keep_the_results(tmp_path):
    pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    from engine import _core, patterns
    data = weights.generate(4, seed=9, workers=1, **SMALL)
    one = weights.label(data, depth=3, exact=12, every=2, workers=1, batch=7, mix=0)
    assert same(one, weights.label(data, depth=3, exact=12, every=2, workers=2, batch=7, mix=0))
    assert same(one, weights.label(data, depth=3, exact=12, every=2, cluster="local:2", batch=7, mix=0))
    mixed = weights.label(data, depth=3, exact=12, every=2, workers=2, batch=7)      # half and half
    assert (mixed["label"] == (one["label"] + one["result"]) / 2).all() and (mixed["result"] == one["result"]).all()
    assert (weights.label(data, depth=3, exact=12, every=2, workers=1, mix=1)["label"] == one["result"]).all()
    assert len(one["label"]) == (len(data["label"]) + 1) // 2
    assert (one["result"] == data["label"][::2]).all() and (one["P"] == data["P"][::2]).all()
    with patterns.installed_only(patterns.WEIGHTS):
        for P, O, value in zip(one["P"], one["O"], one["label"]):
            P, O = int(P), int(O)
            if 64 - bin(P | O).count("1") <= 12:
                assert value == _core.solve(8, P, O)[0]
            else:
                score = _core.search(8, P, O, 3, 0.0, "patterns", 16)[0]
                assert value == max(-64, min(64, score / patterns.EVAL_UNIT))
    assert not same(one, weights.label(data, depth=4, exact=12, every=2, workers=1, batch=7, mix=0))


def test_the_label_step_writes_a_file_that_fits_and_refuses_bad_options(tmp_path, capsys):
    data = weights.generate(3, seed=11, workers=1, **SMALL)
    games = tmp_path / "games.npz"
    np.savez(games, **data)
    out = tmp_path / "labelled.npz"
    rest = tmp_path / "rest.npz"
    assert weights.main(["label", "--data", str(games), "--labels", str(out), "--depth", "2",
                         "--every", "3", "--workers", "1", "--rest", str(rest)]) == 0
    labelled = dict(np.load(out))
    assert set(labelled) == set(data) | {"result"} and len(labelled["label"]) == (len(data["label"]) + 2) // 3
    others = dict(np.load(rest))      # the positions not relabelled, as they were
    assert set(others) == set(data) and len(others["label"]) + len(labelled["label"]) == len(data["label"])
    for k in data:
        assert (others[k] == np.delete(data[k], np.s_[::3])).all()
    fitted = tmp_path / "w.bin.gz"
    # a labelled file and a plain one fit together (on the columns both have)
    assert weights.main(["fit", "--data", str(out), "--data", str(games), "--iterations", "2",
                         "--out", str(fitted)]) == 0 and fitted.exists()
    capsys.readouterr()
    for bad in (["--depth", "0"], ["--every", "0"], ["--exact", "61"], ["--exact", "x"], ["--mix", "1.5"], ["--mix", "nan"],
                ["--rest", str(tmp_path)], ["--rest", str(tmp_path / "no.npz")]):
        with pytest.raises(SystemExit) as e:
            weights.main(["label", "--data", str(games), "--labels", str(tmp_path / "no.npz")] + bad)
        assert e.value.code == 2
    with pytest.raises(SystemExit):
        weights.main(["label", "--data", str(games)])        # where to write is not guessed
    assert "--labels" in capsys.readouterr().err
    assert not (tmp_path / "no.npz").exists()
    before = games.read_bytes()
    for outs in (["--labels", str(tmp_path / "." / "games.npz")], ["--labels", str(out), "--rest", str(games)]):
        with pytest.raises(SystemExit) as e:                 # the input is never the output
            weights.main(["label", "--data", str(games), "--every", "2", *outs])
        assert e.value.code == 2 and "is one of the --data" in capsys.readouterr().err
    assert games.read_bytes() == before
    broken = tmp_path / "broken.bin.gz"
    broken.write_bytes(weights.patterns.WEIGHTS.read_bytes()[:1000])
    assert weights.main(["check", "--data", str(games), "--weights", str(weights.patterns.WEIGHTS),
                         "--weights", str(broken), "--solve", "5"]) == 2   # every file is read before the work
    out = capsys.readouterr()
    assert out.out == "" and "broken.bin.gz: refused" in out.err


def _bad_data_files(tmp_path):
    """Files that are no data file of ours, each of another kind."""
    import io
    import zipfile
    data = weights.generate(1, seed=3, workers=1, **SMALL)
    bad = {}
    bad["junk"] = b"not a zip"
    for name, columns in {
        "other": {"a": np.arange(3)},
        "pickled": {k: np.array([object()] * 2) for k in weights.COLUMNS},
        "short": dict(data, label=data["label"][:-1]),
        "twod": dict(data, label=data["label"].reshape(1, -1)),
        "emptyboard": dict(data, P=np.zeros_like(data["P"]), O=np.zeros_like(data["O"])),
        "overlap": dict(data, O=data["O"] | data["P"]),
        "nan": dict(data, label=np.full_like(data["label"], np.nan)),
        "far": dict(data, label=data["label"] + 100),
        "mobility": dict(data, mp=np.full_like(data["mp"], 32000)),
    }.items():
        buf = io.BytesIO()
        np.savez(buf, **columns)
        bad[name] = buf.getvalue()
    buf = io.BytesIO()
    np.save(buf, data["label"])
    bad["npy"] = buf.getvalue()                       # one array, not an archive
    good = io.BytesIO()
    np.savez_compressed(good, **data)
    raw = bytearray(good.getvalue())
    raw[60:68] = b"\xff" * 8                         # the compressed stream damaged
    bad["deflate"] = bytes(raw)
    huge = io.BytesIO()                               # a header that claims 10**12 labels
    with zipfile.ZipFile(huge, "w") as z:
        for k, v in data.items():
            if k != "label":
                with z.open(f"{k}.npy", "w") as f:
                    np.lib.format.write_array(f, v)
        with z.open("label.npy", "w") as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 12,)})
            f.write(b"\0" * 64)
    bad["huge"] = huge.getvalue()
    lz = io.BytesIO()                                 # another compression, damaged
    with zipfile.ZipFile(lz, "w", compression=zipfile.ZIP_LZMA) as z:
        for k, v in data.items():
            with z.open(f"{k}.npy", "w") as f:
                np.lib.format.write_array(f, v)
    raw = bytearray(lz.getvalue())
    raw[120:128] = b"\x5a\xa5" * 4
    bad["lzma"] = bytes(raw)
    twice = io.BytesIO()                              # a column stored twice: which one is meant?
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (zipfile: "Duplicate name")
        with zipfile.ZipFile(twice, "w") as z:
            for k, v in [*data.items(), ("label", -data["label"])]:
                with z.open(f"{k}.npy", "w") as f:
                    np.lib.format.write_array(f, v)
    bad["twice"] = twice.getvalue()
    paths = []
    for name, content in bad.items():
        (tmp_path / f"{name}.npz").write_bytes(content)
        paths.append(tmp_path / f"{name}.npz")
    return paths + [tmp_path, tmp_path / "missing.npz"]


def test_a_file_that_is_not_positions_is_refused_by_every_step_that_reads_one(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    before = None
    for path in _bad_data_files(tmp_path / "in"):
        before = before or sorted((tmp_path / "in").iterdir())
        for step in (["label", "--labels", str(tmp_path / "out.npz")], ["fit", "--out", str(tmp_path / "w.bin.gz")],
                     ["check", "--weights", str(tmp_path / "w.bin.gz")]):
            assert weights.main(step + ["--data", str(path)]) == 2, (path, step)
            err = capsys.readouterr().err
            assert err.startswith("error: ") and "Traceback" not in err, (path, step, err)
    assert sorted((tmp_path / "in").iterdir()) == before and sorted(p.name for p in tmp_path.iterdir()) == ["in"]


@pytest.mark.skipif(sys.platform == "win32", reason="a FIFO is POSIX")
def test_a_fifo_given_as_data_is_refused_without_being_read(tmp_path, capsys):
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    assert weights.main(["fit", "--data", str(fifo), "--out", str(tmp_path / "w.bin.gz")]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_labels_are_written_where_asked_checked_before_the_work_and_keep_the_games_results(tmp_path, capsys):
    data = weights.generate(2, seed=13, workers=1, **SMALL)
    games = tmp_path / "games.npz"
    weights.save_data(data, games)
    for where in (str(tmp_path), str(tmp_path / "nowhere" / "x.npz"), ""):
        with pytest.raises(SystemExit) as e:
            weights.main(["label", "--data", str(games), "--labels", where, "--depth", "2", "--workers", "1"])
        out = capsys.readouterr()
        assert e.value.code == 2 and "--labels" in out.err and "jobs on" not in out.err, out   # before any search
    plain = tmp_path / "plain"                        # no .npz added
    assert weights.main(["label", "--data", str(games), "--labels", str(plain), "--depth", "2",
                         "--workers", "1"]) == 0
    assert plain.is_file() and not (tmp_path / "plain.npz").exists() and f"wrote {plain}:" in capsys.readouterr().out
    once = weights.load_data(plain)
    assert weights.main(["label", "--data", str(plain), "--labels", str(plain), "--depth", "3",
                         "--workers", "1"]) == 0    # relabelled in place
    twice = weights.load_data(plain)
    assert (twice["result"] == data["label"]).all() and (once["result"] == data["label"]).all()
    assert not (twice["label"] == once["label"]).all()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.npz", "plain"]     # no scratch left


def test_check_without_positions_to_solve_and_fit_without_positions_say_so(tmp_path, capsys):
    data = weights.generate(1, seed=3, workers=1, **SMALL)
    one = tmp_path / "one.npz"
    weights.save_data({k: v[:1] for k, v in data.items()}, one)
    assert weights.main(["check", "--data", str(one), "--weights", str(weights.patterns.WEIGHTS),
                         "--solve", "5"]) == 0
    assert "no held-out position with 16-20 empties" in capsys.readouterr().out
    none = tmp_path / "none.npz"
    weights.save_data({k: v[:0] for k, v in data.items()}, none)
    assert weights.main(["fit", "--data", str(none), "--out", str(tmp_path / "w.bin.gz")]) == 2
    assert "no positions to fit" in capsys.readouterr().err and not (tmp_path / "w.bin.gz").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="a Ctrl+C to a process group is POSIX")
def test_a_ctrl_c_stops_a_run_on_a_local_cluster_quietly_and_leaves_no_process(tmp_path):
    """The terminal sends Ctrl+C to every process of the program: the Dask workers printed their
    own tracebacks, and the training commands one of theirs."""
    pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    p = subprocess.Popen([sys.executable, "-m", "engine.fit.weights", "generate", "--games", "400", "--depth", "4",
                          "--cluster", "local:2", "--data", str(tmp_path / "games.npz"),
                          "--journal", str(tmp_path / "journal")],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = []
        for line in p.stdout:
            seen.append(line)
            if " done, " in line:        # the cluster is up and jobs come back
                break
        os.killpg(p.pid, signal.SIGINT)
        out = "".join(seen) + p.communicate(timeout=60)[0]
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130 and "Traceback" not in out, out
    assert out.rstrip().endswith("interrupted: the journal keeps the jobs done, and the same command again resumes")
    assert not (tmp_path / "games.npz").exists()
    deadline = time.monotonic() + 20
    while True:
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            break                       # the workers are gone too
        assert time.monotonic() < deadline, "the cluster's processes outlived the program by 20 s"
        time.sleep(0.2)


@pytest.mark.skipif(sys.platform == "win32", reason="a Ctrl+C to a process group is POSIX")
@pytest.mark.parametrize("delay", [0.4, 0.9, 1.4])
def test_a_ctrl_c_while_a_local_cluster_starts_prints_no_traceback(tmp_path, delay):
    """Workers interrupted while they imported printed tracebacks, and the cluster's half-made
    parts errors.  While it starts, Ctrl+C is ignored (lost: the run goes on; a short one ends)."""
    pytest.importorskip("distributed", reason="the cluster extra (pip install -e '.[cluster]')")
    p = subprocess.Popen([sys.executable, "-m", "engine.fit.weights", "generate", "--games", "30", "--depth", "3",
                          "--cluster", "local:2", "--data", str(tmp_path / "games.npz")],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGINT)
        out = p.communicate(timeout=60)[0]
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode in (0, 130) and "Traceback" not in out and "Error" not in out, out


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and links as a user makes them on POSIX")
def test_an_output_that_is_no_plain_file_is_refused_before_the_work(tmp_path, capsys):
    """Written whole through a rename, an output took the place of what was there: as root,
    --labels /dev/null replaced the system's /dev/null with a file."""
    from engine.fit import probcut
    data = weights.generate(1, seed=3, workers=1, **SMALL)
    games = tmp_path / "games.npz"
    weights.save_data(data, games)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.npz"
    link.symlink_to(games)
    dangling = tmp_path / "dangling.npz"
    dangling.symlink_to(tmp_path / "nothing")
    for target in (fifo, link, dangling):
        for argv in (["fit", "--data", str(games), "--out", str(target)],
                     ["label", "--data", str(games), "--labels", str(target)],
                     ["generate", "--games", "1", "--data", str(target)]):
            with pytest.raises(SystemExit) as e:
                weights.main(argv)
            assert e.value.code == 2 and "not a plain file" in capsys.readouterr().err
        with pytest.raises(SystemExit) as e:
            probcut.main(["fit", "--out", str(target)])
        assert e.value.code == 2 and "not a plain file" in capsys.readouterr().err
    assert fifo.is_fifo() and link.is_symlink() and dangling.is_symlink() and not (tmp_path / "nothing").exists()


def test_a_fit_with_nothing_to_learn_or_to_hold_out_says_so_without_warnings(tmp_path, capsys, recwarn):
    data = weights.generate(2, seed=3, workers=1, **SMALL)
    zero = tmp_path / "zero.npz"
    weights.save_data(dict(data, label=np.zeros_like(data["label"]), game=data["game"] * 0 + 1), zero)
    out = tmp_path / "w.bin.gz"
    assert weights.main(["fit", "--data", str(zero), "--stages", "2", "--iterations", "3", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "nan" not in err and not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], err
    assert not any(weights.patterns.load(out))           # all labels 0: all weights 0
    assert weights.main(["check", "--data", str(zero), "--weights", str(out)]) == 0
    assert "no positions of held-out games" in capsys.readouterr().out


HUNG_ENGINE = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\\n")
for line in sys.stdin:          # NBoard's handshake, then a 'go' never answered
    w = line.split()
    if w and w[0] == "ping":
        print("pong", w[1], flush=True)
    elif w and w[0] == "go":
        break
for line in sys.stdin:          # deaf to quit...
    pass
while True:                     # ... and to its input's end
    time.sleep(1)
"""


@pytest.mark.skipif(os.name == "nt", reason="SIGTERM as POSIX sends it")
def test_a_match_left_early_leaves_no_engine_running_even_one_that_will_not_quit(tmp_path):
    """Leaving a stream of pairs while a pair plays engines that ignore quit, their input's end
    and SIGTERM: the pair's process ends its engines within its grace (both at once), though
    the pool sends it SIGTERM twice, before it is killed itself."""
    from engine.fit import match
    script, pids = tmp_path / "hung.py", tmp_path / "pids"
    script.write_text(HUNG_ENGINE)
    hung = f"{sys.executable} {script} {pids}"
    broken = ("false", None, "false", None, "f5", 1.0, 60.0, None, 1)
    waiting = (hung, None, hung, None, "f5", 1.0, 60.0, None, 1)
    for k, r in jobs.stream(match.play_pair, [broken, waiting], workers=2):
        assert r["error"], r
        deadline = time.monotonic() + 30
        while len(pids.read_text().split() if pids.exists() else []) < 2:    # both engines started
            assert time.monotonic() < deadline, "the waiting pair never started its engines"
            time.sleep(0.05)
        break

    def running(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return not Path(f"/proc/{pid}/stat").exists() or \
            Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[:1] != ["Z"]

    left = [int(p) for p in pids.read_text().split()]
    deadline = time.monotonic() + 30
    while any(running(p) for p in left):
        if time.monotonic() > deadline:
            for p in left:
                if running(p):
                    os.kill(p, signal.SIGKILL)
            pytest.fail("an engine outlived its pair")
        time.sleep(0.1)


def test_a_job_received_after_sigterm_is_not_run():
    """SIGTERM landing while a pool process is still receiving its job (importing what the job
    needs) can have its SystemExit dropped by an import lock's callback: the job must not run."""
    code = ("from engine.fit import jobs; jobs._TERMINATED = True; "
            "jobs._call((print, 'the job ran'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 143 and "the job ran" not in proc.stdout, (proc.returncode, proc.stdout, proc.stderr)
