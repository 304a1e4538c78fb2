"""A pool of warm sandboxed workers that run imported tool code out of the caller's process.

A worker is a separate Python process (``_worker.py``) that locks itself down at start and then
serves calls one at a time; a call names the session folder it may touch, so one warm worker
serves any session of any imported environment. The parent enforces what a worker cannot be
trusted to enforce on itself: the wall-clock limit (a worker past its deadline is killed and
replaced), the size of a reply, and a nonce on every reply so that a tool cannot forge one.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import secrets
import select
import signal
import subprocess
import sys
import sysconfig
import threading
import time
import weakref
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SandboxLimits", "WorkerPool", "WorkerReply"]

log = logging.getLogger(__name__)

_WORKER_SCRIPT = str(Path(__file__).with_name("_worker.py"))
# The worker's whole environment: nothing of the hub's (tokens, proxies) leaks into it; a fixed
# hash seed and time zone keep set order and local time the same in every worker.
_WORKER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC", "PYTHONHASHSEED": "0"}


@dataclass(frozen=True, kw_only=True)
class SandboxLimits:
    """Limits on one tool call and on the worker that runs it."""

    call_timeout: float = 5.0            # wall-clock seconds, enforced by killing the worker
    cpu_seconds: int = 10                # RLIMIT_CPU per call (SIGXCPU past it)
    memory_bytes: int = 1 << 30          # RLIMIT_AS of the worker
    max_file_bytes: int = 64 << 20       # RLIMIT_FSIZE: no file in the folder grows past this
    max_reply_bytes: int = 4 << 20       # a bigger reply is junk, and the worker is replaced
    max_calls_per_worker: int = 2000     # recycle a worker after this many calls
    network_namespace: bool = True       # try unshare(CLONE_NEWNET) in each worker
    start_timeout: float = 10.0


@dataclass(frozen=True)
class WorkerReply:
    """What came back from one call. ``status`` is ok, error-free of the tool's own making:
    ``ok``, ``crash``, ``junk``, ``limit`` (memory), ``timeout`` or ``died``."""

    status: str
    result: Any = None
    detail: str = ""
    touched: tuple[str, ...] = ()
    violations: tuple[str, ...] = ()
    worker_replaced: bool = False


class WorkerDied(Exception):
    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


class _Worker:
    def __init__(self, limits: SandboxLimits, python: str) -> None:
        config = {**asdict(limits), "stdlib": _stdlib_dirs()}
        started = time.perf_counter()
        self.proc = subprocess.Popen(
            [python, "-P", "-s", "-S", "-B", _WORKER_SCRIPT, json.dumps(config)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=_WORKER_ENV, cwd="/", close_fds=True, start_new_session=True)
        self.calls = 0
        self._buffer = b""
        self._max_reply = limits.max_reply_bytes
        try:
            hello = self._read_line(time.monotonic() + limits.start_timeout)
        except WorkerDied:
            self.kill()
            raise
        self.netns = bool(hello.get("netns"))
        self.spawn_seconds = time.perf_counter() - started

    def call(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.calls += 1
        nonce = secrets.token_hex(8)
        line = json.dumps({**request, "id": nonce}, ensure_ascii=False).encode() + b"\n"
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except OSError as exc:
            raise WorkerDied("died", "the worker was gone before the call") from exc
        reply = self._read_line(time.monotonic() + timeout)
        if reply.get("id") != nonce or self._buffer:
            raise WorkerDied("junk", "the worker's reply did not match the call")
        return reply

    def _read_line(self, deadline: float) -> dict[str, Any]:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerDied("timeout", "the call ran past its time limit")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise WorkerDied(*self._death())
            self._buffer += chunk
            if len(self._buffer) > self._max_reply:
                raise WorkerDied("junk", "the reply was larger than the limit")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError as exc:
            raise WorkerDied("junk", "the worker wrote something that is not JSON") from exc
        if not isinstance(reply, dict):
            raise WorkerDied("junk", "the worker wrote something that is not an object")
        return reply

    def _death(self) -> tuple[str, str]:
        code = self.proc.wait(timeout=5)
        if code == -signal.SIGXCPU:
            return "timeout", "the call ran past its CPU time limit"
        if code == -signal.SIGXFSZ:
            return "limit", "the call wrote a file past the size limit"
        return "died", f"the worker exited (status {code})"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            log.error("sandbox worker %d did not exit after SIGKILL", self.proc.pid)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


def _kill_all(workers) -> None:
    for worker in list(workers):
        worker.kill()


def _stdlib_dirs() -> list[str]:
    paths = sysconfig.get_paths()
    return sorted({paths["stdlib"], paths["platstdlib"]})


@dataclass
class PoolStats:
    spawned: int = 0
    killed: int = 0
    calls: int = 0
    spawn_seconds: list[float] = field(default_factory=list)
    netns: bool | None = None


class WorkerPool:
    """Up to ``size`` warm workers; ``call`` borrows one, and blocks while all are busy.

    Thread-safe. A worker that times out, dies or answers junk is killed and a fresh one is
    started in the background, so the next call finds a warm worker again.
    """

    def __init__(self, *, size: int = 4, limits: SandboxLimits | None = None,
                 python: str | None = None) -> None:
        if size < 1:
            raise ValueError("a pool needs at least one worker")
        self.size = size
        self.limits = limits or SandboxLimits()
        self.python = python or sys.executable
        self.stats = PoolStats()
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._all: set[_Worker] = set()
        self._closed = False
        # A pool dropped without close() still kills its workers (they would exit anyway when
        # their stdin closes, but their pipes would be left to the garbage collector).
        self._finalizer = weakref.finalize(self, _kill_all, self._all)

    def warm(self, count: int | None = None) -> WorkerPool:
        """Start workers now (``size`` by default) instead of on the first calls."""
        for _ in range(min(count or self.size, self.size) - self._idle.qsize()):
            self._idle.put(self._spawn())
        return self

    def call(self, request: dict[str, Any], *, timeout: float | None = None) -> WorkerReply:
        """Run one call: ``request`` holds dir, source, function, args, now, seed, call."""
        if self._closed:
            raise RuntimeError("the worker pool is closed")
        with self._slots:
            worker = self._borrow()
            try:
                raw = worker.call(request, timeout or self.limits.call_timeout)
            except WorkerDied as death:
                self._discard(worker, replace=True)
                return WorkerReply(status=death.status, detail=death.detail, worker_replaced=True)
            except BaseException:
                self._discard(worker, replace=True)
                raise
            self._return(worker)
        with self._lock:
            self.stats.calls += 1
        return WorkerReply(status=str(raw.get("status")), result=raw.get("result"),
                           detail=str(raw.get("detail", ""))[:300],
                           touched=tuple(raw.get("touched") or ()),
                           violations=tuple(raw.get("violations") or ()))

    def _borrow(self) -> _Worker:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            return self._spawn()

    def _return(self, worker: _Worker) -> None:
        if (worker.calls >= self.limits.max_calls_per_worker or self._closed
                or self._idle.qsize() >= self.size):
            self._discard(worker, replace=False)
        else:
            self._idle.put(worker)

    def _spawn(self) -> _Worker:
        worker = _Worker(self.limits, self.python)
        with self._lock:
            self._all.add(worker)
            self.stats.spawned += 1
            self.stats.spawn_seconds.append(worker.spawn_seconds)
            self.stats.netns = worker.netns
        return worker

    def _discard(self, worker: _Worker, *, replace: bool) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)
            self.stats.killed += 1
        if replace and not self._closed:
            threading.Thread(target=self._replenish, daemon=True,
                             name="agentworld-sandbox-spawn").start()

    def _replenish(self) -> None:
        try:
            worker = self._spawn()
        except Exception:
            log.exception("could not start a replacement sandbox worker")
            return
        if self._closed or self._idle.qsize() >= self.size:
            self._discard(worker, replace=False)
        else:
            self._idle.put(worker)

    def close(self) -> None:
        """Kill every worker. Calls in flight fail; later calls raise RuntimeError."""
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        _kill_all(workers)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
