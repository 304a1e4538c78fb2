"""The world build's progress bar: tqdm on stderr, behind the small interface the build uses."""

from __future__ import annotations

import sys

from tqdm import tqdm

__all__ = ["Progress"]


class Progress:
    """Count, rate and time left for ``total`` steps; ``enabled=False`` prints nothing."""

    def __init__(self, total: int, label: str, *, enabled: bool = True, stream=None) -> None:
        self.total = total
        self.done = 0
        self._bar = tqdm(total=total, desc=label, disable=not enabled,
                         file=stream or sys.stderr, mininterval=0.2, dynamic_ncols=True)

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._bar.update(n)
        if self.done >= self.total:
            self._bar.close()
