"""A one-line progress bar on stderr (no dependency): count, rate, and time left."""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    def __init__(self, total: int, label: str, *, enabled: bool = True, stream=None) -> None:
        self.total, self.label, self.enabled = total, label, enabled
        self.stream = stream or sys.stderr
        self.done = 0
        self.started = time.monotonic()
        self._last = 0.0

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.2 or self.done == self.total):
            self._last = now
            elapsed = now - self.started
            rate = self.done / elapsed if elapsed else 0.0
            left = (self.total - self.done) / rate if rate else 0.0
            filled = int(30 * self.done / max(self.total, 1))
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                              f"{self.done}/{self.total} {rate:.1f}/s {left:.0f}s left ")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()
