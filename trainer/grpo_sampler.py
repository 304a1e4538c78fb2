"""Dynamic filtering for TRL's GRPO: draw prompts whose rollouts still disagree.

A group of rollouts that all score the same (all 0 or all 1) has zero advantage and gives no
gradient; on two CPU cores such a step costs about 90 s for nothing. DAPO's remedy is to
resample until the batch holds mixed groups. This sampler does the cheap form of it: it yields
TRL's layout (each prompt ``mini_repeat_count`` times in a row, ``batch_size`` prompts per
chunk, each chunk ``repeat_count`` times) but skips a prompt whose last group was flat until
``cooldown`` reward calls have passed, so it comes back once the policy may have moved. When
every prompt is cooling down it draws from all of them.

With ``groups`` (a group per prompt, such as its kind of task) and ``group_floor``, every group
gets at least that share of the draws so far, cooling down or not. Without it the cooldown
starves a group the policy is starting to fail: a benchmark run gave "complete" 18% of its
draw list, GRPO drew it twice in 24 and unlearnt it (docs/training.md).
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
                 cooldown: int = 4, seed: int = 0, groups: Sequence[str] | None = None,
                 group_floor: float = 0.0) -> None:
        self.labels = list(labels)
        self.mini_repeat_count, self.batch_size = mini_repeat_count, batch_size
        self.repeat_count, self.cooldown = repeat_count, cooldown
        self._flat = flat if callable(flat) else (lambda: flat)
        self.rng = random.Random(seed)
        self.skipped = 0                 # draws that passed over a cooling prompt
        if groups is not None and len(groups) != len(self.labels):
            raise ValueError(f"{len(groups)} groups for {len(self.labels)} prompts")
        if not 0 <= group_floor <= 1:
            raise ValueError(f"group_floor must be a share from 0 to 1, not {group_floor}")
        self.groups = list(groups) if groups is not None else None
        self.group_floor = group_floor
        self.drawn = dict.fromkeys(sorted(set(self.groups or ())), 0)
        self.chunks = 0

    def _open(self) -> list[int]:
        flat = self._flat()
        return [i for i, label in enumerate(self.labels)
                if label not in flat or flat[label] >= self.cooldown]

    def _chunk(self) -> list[int]:
        pool = self._open()
        self.skipped += len(self.labels) - len(pool)
        if len(pool) < self.batch_size:
            pool = list(range(len(self.labels)))
        owed = self._owed(pool)
        rest = [i for i in pool if i not in owed]
        if len(rest) < self.batch_size - len(owed):
            chunk = owed + [self.rng.choice(pool) for _ in range(self.batch_size - len(owed))]
        else:
            chunk = owed + self.rng.sample(rest, self.batch_size - len(owed))
        for i in chunk:
            if self.groups is not None:
                self.drawn[self.groups[i]] += 1
        return chunk

    def _owed(self, pool: list[int]) -> list[int]:
        """One prompt of each group behind its floor (the furthest behind first), taken from
        the open prompts where it has some, else from all of its own."""
        if self.groups is None or not self.group_floor:
            return []
        self.chunks += 1
        due = self.group_floor * self.chunks * self.batch_size
        owed: list[int] = []
        for group in sorted(self.drawn, key=lambda g: (self.drawn[g], g)):
            if len(owed) == self.batch_size or self.drawn[group] >= due:
                break
            members = [i for i in pool if self.groups[i] == group] or [
                i for i, g in enumerate(self.groups) if g == group]
            owed.append(self.rng.choice(members))
        return owed

    def __iter__(self) -> Iterator[int]:
        for _ in range(len(self.labels) // self.batch_size or 1):
            chunk = self._chunk()
            for _ in range(self.repeat_count):
                for index in chunk:
                    yield from [index] * self.mini_repeat_count

    def __len__(self) -> int:
        chunks = len(self.labels) // self.batch_size or 1
        return chunks * self.batch_size * self.mini_repeat_count * self.repeat_count
