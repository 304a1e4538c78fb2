"""Whether a call may run on the event loop, decided by what it has cost so far.

A worker-thread hop costs more than most tool calls: the step of a key lookup spent about a third
of the hub's CPU handing the call to a thread and back (bench/profile_step.py). So a call runs
inline once its kind (an environment's tool, or an environment's reset) has proven cheap: the
first ``warmup`` runs go to a thread and are measured, and only if every one stayed cheap do
later runs go inline, still measured. One costly run sends the kind back to threads and doubles
the runs it must prove again (up to a cap), so a tool that is slow now and then stays off the
loop. A lone CPU outlier is forgiven: a garbage-collector pause can land in any call.

Cheap means two things. Its CPU time (the thread's own clock) stays under ``budget_s``: wall
time alone would count the time a loaded machine, or the GIL, kept the call waiting, and demote
every tool under load. And its wall time stays under ``wall_limit_s``: a call that sleeps or
waits on I/O uses no CPU, but it would hold the loop all the same.

Never inline: environments whose tools run elsewhere (sandboxed worker processes, recognised by
session hooks), calls whose locks another thread holds (the caller then uses a thread), and
anything while the guard is disabled.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from agentworld.servers.runtime import WouldBlock

__all__ = ["InlineGuard", "Busy"]

T = TypeVar("T")
_NEVER = 1 << 62


# Raised by a non-blocking call whose lock another thread holds (or that would do slow work,
# such as verifying): nothing ran, so the caller runs it again in a thread.
Busy = WouldBlock


# A run over the CPU budget is a strike; strikes fade by this much per cheap run. Two strikes
# close together demote the kind; a lone one (a garbage-collector pause inside an otherwise cheap
# call) does not.
_STRIKE_FADE = 1 / 16
_STRIKES_TO_DEMOTE = 2.0


@dataclass
class _Record:
    proven: int = 0  # cheap runs since the last demotion
    needed: int = 0  # runs to prove before going inline
    strikes: float = 0.0


class InlineGuard:
    """Per-kind timing that admits cheap calls to the event loop.

    ``budget_s`` bounds the CPU time of a kind's calls (once admitted, one run over it is
    forgiven, two close together demote the kind), ``wall_limit_s`` the wall time of any one
    call (default: 20 times the budget, at least 20 ms, so that a loaded machine's scheduling
    and a worker thread's waits for the GIL pass while a call that sleeps does not);
    ``warmup`` is how many measured runs in a thread a kind needs first; ``max_needed`` caps the
    doubling.
    ``budget_s=0`` disables inlining.
    """

    def __init__(self, *, budget_s: float = 0.001, wall_limit_s: float | None = None,
                 warmup: int = 8, max_needed: int = 1024) -> None:
        self.budget_s, self.warmup, self.max_needed = budget_s, warmup, max_needed
        self.wall_limit_s = wall_limit_s if wall_limit_s is not None else max(20 * budget_s,
                                                                             0.02)
        self._records: dict[Any, _Record] = {}
        self.inline_runs = 0
        self.thread_runs = 0
        self.demotions = 0
        self.over_cpu = 0  # runs over the CPU budget
        self.over_wall = 0  # runs over the wall-time limit

    def admits(self, key: Any) -> bool:
        """True when ``key`` has proven cheap often enough to run on the loop."""
        if self.budget_s <= 0:
            return False
        record = self._records.get(key)
        return record is not None and record.proven >= record.needed

    def observe(self, key: Any, cpu_s: float, wall_s: float | None = None) -> None:
        """Count one run of ``key``, wherever it ran: its CPU time and its wall time."""
        record = self._records.get(key)
        if record is None:
            record = self._records[key] = _Record(needed=self.warmup)
        over_cpu = cpu_s > self.budget_s
        over_wall = wall_s is not None and wall_s > self.wall_limit_s
        if not (over_cpu or over_wall):
            record.proven += 1
            record.strikes = max(0.0, record.strikes - _STRIKE_FADE)
            return
        self.over_cpu += over_cpu
        self.over_wall += over_wall
        if record.proven < record.needed or over_wall:
            # Not admitted yet: the proof starts over. Or it held its caller too long (it sleeps,
            # or waits on I/O): never forgiven.
            self._demote(record)
            return
        record.strikes += 1.0
        if record.strikes >= _STRIKES_TO_DEMOTE:
            self._demote(record)

    def _demote(self, record: _Record) -> None:
        if record.proven >= record.needed:
            self.demotions += 1  # it was admitted: the loop paid for this run
        record.proven, record.strikes = 0, 0.0
        if record.needed != _NEVER:
            record.needed = min(self.max_needed, max(self.warmup, record.needed * 2))

    def exclude(self, key: Any) -> None:
        """Never admit ``key`` (its calls reach outside the process)."""
        self._records[key] = _Record(needed=_NEVER)

    def run_inline(self, key: Any, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` now, on the caller's thread, and time it. ``Busy`` passes through."""
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            result = fn(*args)
        except Busy:
            raise  # it did not run
        except BaseException:
            self._inline_done(key, wall, cpu)
            raise
        self._inline_done(key, wall, cpu)
        return result

    def _inline_done(self, key: Any, wall: float, cpu: float) -> None:
        self.inline_runs += 1
        self._measured(key, wall, cpu)

    def _measured(self, key: Any, wall: float, cpu: float) -> None:
        wall_s = time.perf_counter() - wall
        # CPU time never exceeds wall time: the (costlier) thread clock is read only when the
        # wall time alone cannot clear the call.
        cpu_s = wall_s if wall_s <= self.budget_s else time.thread_time() - cpu
        self.observe(key, cpu_s, wall_s)

    def timed(self, key: Any, fn: Callable[..., T]) -> Callable[..., T]:
        """``fn`` wrapped to time itself, for a run in a worker thread."""
        def run(*args: Any) -> T:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return fn(*args)
            finally:
                self.thread_runs += 1
                self._measured(key, wall, cpu)
        return run

    def stats(self) -> dict[str, int]:
        return {"inline_runs": self.inline_runs, "thread_runs": self.thread_runs,
                "demotions": self.demotions, "over_cpu": self.over_cpu,
                "over_wall": self.over_wall,
                "kinds_admitted": sum(r.proven >= r.needed for r in self._records.values())}
