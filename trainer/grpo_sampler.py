"""Dynamic filtering for TRL's GRPO: draw prompts whose rollouts still disagree.

A group of rollouts that all score the same (all 0 or all 1) has zero advantage and gives no
gradient; on two CPU cores such a step costs about 90 s for nothing. DAPO's remedy is to
resample until the batch holds mixed groups. This sampler does the cheap form of it: it yields
TRL's layout (each prompt ``mini_repeat_count`` times in a row, ``batch_size`` prompts per
chunk, each chunk ``repeat_count`` times) but skips a prompt whose last group was flat until
``cooldown`` reward calls have passed, so it comes back once the policy may have moved. When
every prompt is cooling down it draws from all of them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence

__all__ = ["FilteredSampler"]


class FilteredSampler:
    """A ``torch.utils.data.Sampler`` over dataset indices, reading which labels are flat from
    ``flat`` (label -> reward calls since its group was flat; see ``VerifierReward``)."""

    def __init__(self, labels: Sequence[str], *, mini_repeat_count: int, batch_size: int,
                 repeat_count: int, flat: Mapping[str, int] | Callable[[], Mapping[str, int]],
                 cooldown: int = 4, seed: int = 0) -> None:
        self.labels = list(labels)
        self.mini_repeat_count, self.batch_size = mini_repeat_count, batch_size
        self.repeat_count, self.cooldown = repeat_count, cooldown
        self._flat = flat if callable(flat) else (lambda: flat)
        self.rng = random.Random(seed)
        self.skipped = 0                 # draws that passed over a cooling prompt

    def _open(self) -> list[int]:
        flat = self._flat()
        return [i for i, label in enumerate(self.labels)
                if label not in flat or flat[label] >= self.cooldown]

    def _chunk(self) -> list[int]:
        pool = self._open()
        self.skipped += len(self.labels) - len(pool)
        if len(pool) < self.batch_size:
            pool = list(range(len(self.labels)))
        if len(pool) < self.batch_size:
            return [self.rng.choice(pool) for _ in range(self.batch_size)]
        return self.rng.sample(pool, self.batch_size)

    def __iter__(self) -> Iterator[int]:
        for _ in range(len(self.labels) // self.batch_size or 1):
            chunk = self._chunk()
            for _ in range(self.repeat_count):
                for index in chunk:
                    yield from [index] * self.mini_repeat_count

    def __len__(self) -> int:
        chunks = len(self.labels) // self.batch_size or 1
        return chunks * self.batch_size * self.mini_repeat_count * self.repeat_count
