"""Training work spread over processes, or over machines: the same jobs on a local pool (the
default, nothing to set up) or on a Dask cluster when given its address.

A *job* is a top-level function and one argument; its result must depend on that argument only
(every seed is derived from the run's seed and the job's index), so a run gives the same results
whoever computes them and in whatever order.  With a *journal* (a folder) each result is kept
as it arrives, one file a job written whole (scratch file and rename), and a run started again
with the same journal takes what is there and computes only the rest: a crash, a Ctrl+C or a
lost machine costs the jobs that were running, never the finished ones.  A journal remembers
what run it belongs to and refuses another's.

Where the jobs run (``cluster``):

- ``None``: a pool of ``workers`` processes on this machine;
- ``"local:N"``: a Dask cluster of N worker processes started here for the run (needs
  ``pip install 'cardstand-othello[cluster]'``; what the tests use);
- ``"tcp://HOST:8786"``: the Dask scheduler of a cluster of several machines, each worker with
  this project installed (docs/training.md says how to start one).

Dask rather than Ray: pure Python wheels on every platform this project runs on, a scheduler and
workers started with one command each and joined over plain TCP, and futures that map onto these
jobs as they are; Ray brings a large native runtime and object store that these jobs do not need.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import itertools
import json
import multiprocessing
import logging
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, TextIO

from .. import files, gzipped

MAX_JOB_FILE = 256 << 20    # bytes of one job's result file read back at most
MAX_RUN_FILE = 1 << 20      # bytes of a journal's run.json read at most


class JournalError(ValueError):
    """A journal folder that cannot be used for this run (another run's, or unreadable)."""


class Journal:
    """The results of one run's jobs, kept in ``folder`` (made if missing): ``run.json`` names
    the run (``fingerprint``), ``job-NNNNNN.json`` holds job N's result as JSON with a check
    (SHA-256 of the run, N and the result): a file changed since, damaged or not JSON, is
    computed again (a valid JSON of other values gave tracebacks or lost games)."""

    def __init__(self, folder: str | os.PathLike[str], fingerprint: str) -> None:
        self.fingerprint = fingerprint
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise JournalError(f"{self.folder} is a file, not a journal folder")
        self.folder.mkdir(parents=True, exist_ok=True)
        head = self.folder / "run.json"
        if head.exists():
            try:
                known = json.loads(gzipped.read_file(head, MAX_RUN_FILE).decode("utf-8"))["fingerprint"]
            except (OSError, ValueError, KeyError, TypeError) as e:
                why = f" ({e})" if isinstance(e, ValueError) and str(e).startswith("it is") else ""
                raise JournalError(f"{head} is not a journal's run file{why}") from None
            if known != fingerprint:
                raise JournalError(f"{self.folder} is the journal of another run (other jobs or options): "
                                   f"give a new folder, or the options of that run")
        elif any(self.folder.glob("job-*.json")):   # (run.json is written before any job's result)
            raise JournalError(f"{self.folder} holds job results but no run.json: whose run they are "
                               f"cannot be told; give a new folder")
        else:
            self._write(head, {"fingerprint": fingerprint})

    def done(self) -> dict[int, Any]:
        """The results kept so far, by job index (a file that is damaged is computed again)."""
        out: dict[int, Any] = {}
        for p in self.folder.glob("job-*.json"):
            try:
                index = int(p.stem[4:])
                # (a regular file only, read to a bound: a pipe or a device there is computed again)
                kept = json.loads(gzipped.read_file(p, MAX_JOB_FILE).decode("utf-8"))
                if p.name == f"job-{index:06d}.json" and kept["check"] == self._check(index, kept["result"]):
                    out[index] = kept["result"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return out

    def put(self, index: int, result: Any) -> None:
        self._write(self.folder / f"job-{index:06d}.json", {"result": result, "check": self._check(index, result)})

    def _check(self, index: int, result: Any) -> str:
        text = json.dumps([self.fingerprint, index, result], sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _write(self, path: Path, value: Any) -> None:
        files.write_whole(path, json.dumps(value).encode("utf-8"))


def fingerprint(label: str, fn: Callable[[Any], Any], args: Sequence[Any]) -> str:
    """What identifies a run: its label, its function and every job's argument."""
    h = hashlib.sha256(f"{label}\n{fn.__module__}.{fn.__qualname__}\n".encode())
    for a in args:
        h.update(repr(a).encode())
        h.update(b"\n")
    return h.hexdigest()


RESUME = ": the journal keeps the jobs done, and the same command again resumes"
LOOK_AT_WORKERS = 1.0   # seconds between looks at a cluster's workers (jobs in flight follow them)
ALLOWED_FAILURES = 3    # Dask's ``distributed.scheduler.allowed-failures``: a job tried on 4 workers


class Carried:
    """A file's bytes in a job's argument, for a job that may run on a machine without the file (a
    cluster's worker shares no folder with the machine that starts the run, and resolves a
    relative name in its own): ``with carried.file() as path`` gives it there, as a file of its
    own.  Shown, and so fingerprinted in a journal, by its name and ``key`` (a digest of what it
    holds), never by its bytes."""

    LIMIT = 256 << 20       # bytes of a file carried at most

    def __init__(self, path: str | os.PathLike[str], key: str) -> None:
        self.name = Path(path).name
        self.key = key
        self.data = gzipped.read_file(path, self.LIMIT)

    def __repr__(self) -> str:
        return f"Carried({self.name!r}, {self.key})"

    @contextlib.contextmanager
    def file(self) -> Iterator[Path]:
        """The bytes as a file of this machine's, for the block (removed after it)."""
        fd, name = tempfile.mkstemp(prefix="cardstand-", suffix=f"-{self.name[-80:]}")
        try:
            with open(fd, "wb") as f:
                f.write(self.data)
            yield Path(name)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(name)


class ClusterError(RuntimeError):
    """The cluster cannot go on with the run: what happened, in one line."""


def run(fn: Callable[[Any], Any], args: Sequence[Any], *, cluster: Optional[str] = None, workers: int = 2,
        journal: Optional[str | os.PathLike[str]] = None, label: str = "jobs",
        progress: Optional[TextIO] = sys.stderr, on: Optional["Workers"] = None) -> list[Any]:
    """``[fn(a) for a in args]``, computed as the module's docstring says; results in the order
    of ``args`` (JSON values: what a journal keeps is what is returned, kept or not).  Progress
    lines go to ``progress`` (None: nowhere).  An exception in a job stops the run (the results
    already in the journal stay).  ``on``: ``Workers`` kept open by the caller (then ``cluster``
    and ``workers`` are theirs)."""
    if on is not None:
        cluster, workers = on.cluster, on.workers
    if workers < 1:
        raise ValueError("workers must be 1 or more")
    book = Journal(journal, fingerprint(label, fn, args)) if journal is not None else None
    results: dict[int, Any] = book.done() if book is not None else {}
    results = {i: r for i, r in results.items() if 0 <= i < len(args)}
    todo = [i for i in range(len(args)) if i not in results]
    start = time.monotonic()
    where = cluster or f"{workers} local process(es)"
    if progress is not None:
        kept = f", {len(results)} kept from the journal" if results else ""
        progress.write(f"{label}: {len(args)} jobs on {where}{kept}\n")
        progress.flush()
    pending = (args[i] for i in todo)
    computed = on.stream(fn, pending) if on is not None else stream(fn, pending, cluster=cluster, workers=workers)
    try:
        _keep(computed, todo, results, book, progress, label, len(args), start)
    except ClusterError as e:
        raise ClusterError(f"{e}{RESUME if book is not None else ' (with --journal the next run resumes)'}") from None
    return [results[i] for i in range(len(args))]


def _keep(computed: Iterator[tuple[int, Any]], todo: list[int], results: dict[int, Any], book: Optional[Journal],
          progress: Optional[TextIO], label: str, total: int, start: float) -> None:
    """Each result as it comes: kept, in the journal too, and the progress said."""
    finished = 0
    for k, result in computed:
        index = todo[k]
        result = json.loads(json.dumps(result))     # the same values whether kept or not
        results[index] = result
        if book is not None:
            book.put(index, result)
        finished += 1
        if progress is not None and (finished == len(todo) or finished % max(1, len(todo) // 20) == 0):
            took = time.monotonic() - start
            left = took / finished * (len(todo) - finished)
            progress.write(f"{label}: {len(results)}/{total} done, {took:.0f} s, about {left:.0f} s left\n")
            progress.flush()


_STEADY = False


def steady_memory() -> None:
    """Keep this process's freed memory for the next search (glibc: allocations under 64 MB from
    the heap, no trimming).  Dask's workers start with ``MALLOC_TRIM_THRESHOLD_`` set, which makes
    every hash table the searches allocate a fresh mapping: twice as slow, measured.  Elsewhere
    nothing to do."""
    global _STEADY
    if _STEADY or not sys.platform.startswith("linux"):
        return
    _STEADY = True
    import ctypes
    import ctypes.util
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):      # not glibc (musl...): its own ways
        return
    mallopt(-3, 64 << 20)       # M_MMAP_THRESHOLD
    mallopt(-1, 256 << 20)      # M_TRIM_THRESHOLD


_TERMINATED = False     # a pool process: SIGTERM came (``_end_with``)


def _call(job: tuple[Callable[[Any], Any], Any]) -> Any:
    """One job, in the process that computes it."""
    steady_memory()
    fn, arg = job
    if _TERMINATED:     # SIGTERM came as the job was being received, and its SystemExit was dropped
        os._exit(143)   # by a callback Python ran itself (an import lock's, seen once): not run
    try:
        return fn(arg)
    except SystemExit:
        if _TERMINATED:     # the job's clean-up has run; the pool would catch SystemExit and
            os._exit(143)   # wait for another job, to read the pool's closed pipe at the end
        raise


@contextlib.contextmanager
def _deaf_children() -> Iterator[None]:
    """Processes this thread starts in the block never see Ctrl+C: this process stops them itself
    (a worker that got it while importing printed a traceback).  Ctrl+C is blocked for the block
    (POSIX; one that comes meanwhile reaches this process as the block ends) and stays blocked
    in what the block starts.  (Not for a Dask ``local:N``: its processes are started by
    threads of its own: ``_ignoring_ctrl_c``.)"""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    before = mask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, before)


@contextlib.contextmanager
def _ignoring_ctrl_c() -> Iterator[None]:
    """Ctrl+C ignored while a ``local:N`` cluster starts (a second or two; from the main thread),
    and so for good in the processes it starts then, which inherit an ignored signal: the
    terminal sends it to every process of the program, and the workers, interrupted while they
    started, printed tracebacks and the cluster's half-made parts errors.  Dask starts them from
    threads of its own, where ``_deaf_children`` cannot reach.  A Ctrl+C in the block is lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@contextlib.contextmanager
def one_ctrl_c() -> Iterator[None]:
    """The first Ctrl+C in the block raises KeyboardInterrupt as usual; the ones after it are
    ignored until the block ends, so the clean-up it starts (the workers ended, a file saved) is
    not cut short: a second Ctrl+C inside a pool's shutdown left a worker waiting on its pipe
    and the program waiting for it at exit.  (Main thread with Python's own handler only.)"""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return

    def first(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run_main(main: Callable[[], int]) -> None:
    """``sys.exit(main())`` for a command: a Ctrl+C before ``main`` handles its own (while numpy
    loads) says ``interrupted`` and exits 130; one while Python ends (a local cluster's threads
    are joined then) changes nothing: the run is over (it used to end the program by the signal)."""
    try:
        code = main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        code = 130
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


def dask_setup(worker: Any) -> None:
    """Run by each worker process of a ``local:N`` cluster as it starts (Dask's preload): Ctrl+C
    is ignored there, also in a worker Dask starts again later (the program closes its cluster
    itself)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _end_with(parent: int) -> None:
    """A pool process's start: it ends when the process that started the pool is gone (it does
    not see Ctrl+C, and a parent ended by a signal cannot end it), and ``terminate`` (SIGTERM)
    ends its job as Ctrl+C would, running its cleanup (an SPRT pair stops its engines)."""
    def stop(signum: int, frame: object) -> None:
        global _TERMINATED
        if _TERMINATED:
            # a second SIGTERM (the pool ends every process once one has ended) would cut short
            # the clean-up the first one started: an engine that does not quit outlived its pair
            return
        _TERMINATED = True
        raise SystemExit(128 + signum)

    try:
        signal.signal(signal.SIGTERM, stop)
    except (ValueError, OSError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)
    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def stream(fn: Callable[[Any], Any], args: Iterable[Any], *, cluster: Optional[str] = None,
           workers: int = 2) -> Iterator[tuple[int, Any]]:
    """``(k, fn(a))`` for the k-th argument of ``args``, as each job finishes (in the order they
    finish), where ``run`` would compute them; ``args`` is read as jobs are started, no more
    jobs running at once than there are workers (a cluster: twice its threads), so it may be
    endless.  Leaving the loop early (a decision reached, an exception) starts no more: the
    local pool's running jobs are stopped at once (their processes ended); a cluster forgets
    its queued jobs, and a job already running there ends on its worker, its result dropped."""
    with Workers(cluster, workers) as on:
        yield from on.stream(fn, args)


class Workers:
    """Where jobs run, ``workers`` local processes or the Dask ``cluster`` (see the module
    docstring), kept from one ``stream`` (or ``run(on=...)``) to the next until ``close`` or the
    end of a ``with`` block: for work that runs a few jobs at a time, many times over (a book)."""

    def __init__(self, cluster: Optional[str] = None, workers: int = 2) -> None:
        if workers < 1:
            raise ValueError("workers must be 1 or more")
        if cluster is not None and not cluster.strip():
            raise ValueError("--cluster needs an address: tcp://HOST:8786 or local:N")
        if cluster is not None and cluster.startswith("local:"):
            n = cluster[len("local:"):]
            if not n.isdigit() or not 1 <= int(n) <= 256:
                raise ValueError(f"--cluster local:N takes N from 1 to 256 (not {n!r})")
        self.cluster, self.workers = cluster, workers
        self._pool: Optional[concurrent.futures.ProcessPoolExecutor] = None
        self._client: Any = None
        self._local: Any = None
        self._seen_workers: Optional[int] = None    # the cluster's workers when last looked at

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pool, self._pool = self._pool, None
        client, self._client = self._client, None
        local, self._local = self._local, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if client is not None:
            client.close()
        if local is not None:
            local.close()

    def threads(self) -> int:
        """How many jobs run at once: the local processes, or the cluster's threads now."""
        if self.cluster is None:
            return self.workers
        return max(1, self._workers_now(self._connect()))

    def stream(self, fn: Callable[[Any], Any], args: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        """As the module's ``stream``, on these workers."""
        given = enumerate(args)
        if self.cluster is None and self.workers == 1:
            for k, a in given:
                yield k, fn(a)
        elif self.cluster is None:
            yield from self._pooled(fn, given)
        else:
            yield from self._dasked(fn, given)

    def _pooled(self, fn: Callable[[Any], Any], given: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(self.workers,
                                                                mp_context=multiprocessing.get_context("spawn"),
                                                                initializer=_end_with, initargs=(os.getpid(),))
        pool = self._pool
        running: dict[concurrent.futures.Future[Any], int] = {}
        finished = False
        try:
            with _deaf_children():     # (the pool starts its processes as jobs are submitted)
                for k, a in itertools.islice(given, self.workers):
                    running[pool.submit(_call, (fn, a))] = k
            while running:
                done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for f in done:
                    k = running.pop(f)
                    for k2, a in itertools.islice(given, 1):    # (the worker busy while this is handled)
                        with _deaf_children():
                            running[pool.submit(_call, (fn, a))] = k2
                    yield k, f.result()
            finished = True
        finally:
            if not finished:    # left early: its processes end now, a later stream starts others
                self._pool = None
                processes = list((getattr(pool, "_processes", None) or {}).values())
                for process in processes:
                    process.terminate()
                # gone before the pool's pipes close: a worker still waiting for a job when this
                # program ended read the closed pipe and printed a traceback (EOFError) after an
                # SPRT's decision; one that does not end on SIGTERM is killed.  (join returns
                # as the process closes its files, a moment before it can be reaped: exitcode)
                ended = time.monotonic() + 5
                for process in processes:
                    while process.exitcode is None and time.monotonic() < ended:
                        process.join(0.05)
                    if process.exitcode is None:
                        process.kill()
                        process.join(1)
                pool.shutdown(wait=False, cancel_futures=True)

    def _connect(self) -> Any:
        if self._client is not None:
            return self._client
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RuntimeError("a Dask cluster needs dask's distributed package: "
                               "pip install 'cardstand-othello[cluster]' (or pip install distributed)") from None
        cluster = self.cluster or ""
        if cluster.startswith("local:"):
            # (silent but for critical logs: a worker's heartbeat cut by the cluster's own end is
            # logged as an error; a job's exception still comes back through its future)
            with _ignoring_ctrl_c():
                self._local = LocalCluster(n_workers=int(cluster[len("local:"):]), threads_per_worker=1,
                                           processes=True, dashboard_address=None,
                                           silence_logs=logging.CRITICAL, preload=[__name__])
                self._client = Client(self._local)
        else:
            try:
                self._client = Client(cluster, timeout=30)
            except Exception as e:      # (an address Dask cannot use raises anything, e.g. TypeError)
                raise RuntimeError(f"cannot reach the Dask scheduler at {cluster}: {e}") from None
        return self._client

    def _dasked(self, fn: Callable[[Any], Any], given: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
        from concurrent.futures import CancelledError
        from distributed import wait
        from distributed.scheduler import KilledWorker
        client = self._connect()
        tag = f"cardstand-{fn.__name__}-{os.getpid()}-{time.time_ns()}"
        running: dict[str, tuple[Any, int]] = {}     # key -> (future, k)
        exhausted = False
        threads, looked = 0, -1.0
        try:
            while True:
                now = time.monotonic()
                if now - looked >= LOOK_AT_WORKERS:
                    # as many jobs in flight as the cluster has threads now, and as many again
                    # queued (a worker that finishes, or joins, finds its next job waiting)
                    threads, looked = self._workers_now(client), now
                while not exhausted and len(running) < 2 * max(threads, 1):
                    nxt = next(given, None)
                    if nxt is None:
                        exhausted = True
                        break
                    k, a = nxt
                    f = client.submit(_call, (fn, a), key=f"{tag}-{k}", pure=False)
                    running[f.key] = (f, k)
                if not running:
                    return
                try:
                    done, _ = wait([f for f, _ in running.values()], timeout=LOOK_AT_WORKERS,
                                   return_when="FIRST_COMPLETED")
                except TimeoutError:    # (none finished within the look: the workers are looked at again)
                    continue
                for f in done:
                    _, k = running.pop(f.key)
                    try:
                        result = f.result()
                    except KilledWorker:
                        raise ClusterError(f"a job ended each worker that ran it ({ALLOWED_FAILURES} of them: "
                                           f"a crash, or a machine out of memory): the run stops") from None
                    f.release()     # its result not kept on the cluster; here, not in its finalizer,
                    #                 where a Ctrl+C would be "ignored" (printed and lost)
                    yield k, result
        except CancelledError:      # (all the futures, when the client lost its scheduler)
            raise ClusterError(f"the Dask scheduler at {self.cluster} was lost: the run stops") from None
        except (OSError, TimeoutError) as e:     # (CommClosedError is an OSError)
            raise ClusterError(f"the Dask scheduler at {self.cluster} was lost ({e}): the run stops") from None
        finally:
            left = [f for f, _ in running.values() if not f.done()]
            running.clear()
            if left:
                with contextlib.suppress(Exception):
                    client.cancel(left)

    def _workers_now(self, client: Any) -> int:
        """The cluster's threads now; a change in its workers is said in one line (none at all: the
        jobs wait for one)."""
        try:
            nthreads = client.nthreads()
        except (OSError, TimeoutError) as e:
            raise ClusterError(f"the Dask scheduler at {self.cluster} was lost ({e}): the run stops") from None
        count, threads = len(nthreads), sum(nthreads.values())
        if count != self._seen_workers:
            if count == 0:
                say = (f"the cluster at {self.cluster} has no worker: the jobs wait for one "
                       f"(dask worker {self.cluster})")
            elif self._seen_workers is not None and count < self._seen_workers:
                say = f"the cluster lost a worker: {count} left (its running jobs are computed again)"
            elif self._seen_workers is not None:
                say = f"a worker joined the cluster: {count} now, {threads} threads"
            else:
                say = ""
            if say:
                print(say, file=sys.stderr, flush=True)
            self._seen_workers = count
        return threads
