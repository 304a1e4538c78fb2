"""Whether a call may run on the event loop, decided by how long it has taken so far.

A worker-thread hop costs more than most tool calls: the step of a key lookup spends about a third
of the hub's CPU handing the call to a thread and back (bench/profile_step.py). So a call runs
inline once its kind (an environment's tool, or an environment's reset) has proven cheap: the
first ``warmup`` runs go to a thread and are timed, and only if every one stayed under the budget
do later runs go inline, still timed. One run over the budget sends the kind back to threads and
doubles the runs it must prove again, so a tool that is slow now and then soon stays off the
loop for good.

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


@dataclass
class _Record:
    proven: int = 0  # consecutive runs under the budget
    needed: int = 0  # runs to prove before going inline
    slow_runs: int = 0


class InlineGuard:
    """Per-kind timing that admits cheap calls to the event loop.

    ``budget_s`` bounds how long one inline call may hold the loop before its kind is demoted;
    ``warmup`` is how many timed runs in a thread a kind needs first; ``max_needed`` caps the
    doubling. ``budget_s=0`` disables inlining.
    """

    def __init__(self, *, budget_s: float = 0.0005, warmup: int = 8,
                 max_needed: int = 1 << 16) -> None:
        self.budget_s, self.warmup, self.max_needed = budget_s, warmup, max_needed
        self._records: dict[Any, _Record] = {}
        self.inline_runs = 0
        self.thread_runs = 0
        self.demotions = 0

    def admits(self, key: Any) -> bool:
        """True when ``key`` has proven cheap often enough to run on the loop."""
        if self.budget_s <= 0:
            return False
        record = self._records.get(key)
        return record is not None and record.proven >= record.needed

    def observe(self, key: Any, seconds: float) -> None:
        """Time one run of ``key``, wherever it ran."""
        record = self._records.get(key)
        if record is None:
            record = self._records[key] = _Record(needed=self.warmup)
        if seconds <= self.budget_s:
            record.proven += 1
            return
        if record.proven >= record.needed:
            self.demotions += 1  # it was admitted: the loop paid for this run
        record.slow_runs += 1
        record.proven = 0
        if record.needed != _NEVER:
            record.needed = min(self.max_needed, max(self.warmup, record.needed * 2))

    def exclude(self, key: Any) -> None:
        """Never admit ``key`` (its calls reach outside the process)."""
        self._records[key] = _Record(needed=_NEVER)

    def run_inline(self, key: Any, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` now, on the caller's thread, and time it. ``Busy`` passes through."""
        started = time.perf_counter()
        try:
            result = fn(*args)
        except Busy:
            raise  # it did not run
        except BaseException:
            self._inline_done(key, started)
            raise
        self._inline_done(key, started)
        return result

    def _inline_done(self, key: Any, started: float) -> None:
        self.inline_runs += 1
        self.observe(key, time.perf_counter() - started)

    def timed(self, key: Any, fn: Callable[..., T]) -> Callable[..., T]:
        """``fn`` wrapped to time itself, for a run in a worker thread."""
        def run(*args: Any) -> T:
            started = time.perf_counter()
            try:
                return fn(*args)
            finally:
                self.thread_runs += 1
                self.observe(key, time.perf_counter() - started)
        return run

    def stats(self) -> dict[str, int]:
        return {"inline_runs": self.inline_runs, "thread_runs": self.thread_runs,
                "demotions": self.demotions,
                "kinds_admitted": sum(r.proven >= r.needed for r in self._records.values())}
