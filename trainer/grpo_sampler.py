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

With ``groups`` and ``group_every``, every group is drawn at least once in any ``group_every``
chunks in a row. Unlike the floor, which at a small share and one prompt a chunk draws each
group in the first chunks and then seldom, this draws a group the policy has not seen for a
while, when its rollouts may have started to fail and a group of them can teach it again (a
learning-benchmark pilot at seed 1 lost the one kind it never drew; with a 5% floor, at seed 0,
it drew that kind at the first step, passed all 8 rollouts, learnt nothing from them, and lost
it by the end). Every 10 chunks kept every kind at both seeds in those pilots (docs/training.md,
"Draws by learnability").

With ``learnability`` (a :class:`Learnability`), the prompts of each group are drawn in
proportion to how much their next rollouts can teach, ``p (1 - p)`` at their estimated success
rate, instead of uniformly; each group keeps the share of draws it had. The estimate follows
GRPO's own recent rollouts, so a prompt that starts to pass is drawn again while it is still
learnable (prioritising prompts by ``p (1 - p)`` is a known curriculum heuristic for RL on
verifiable rewards).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence

__all__ = ["FilteredSampler", "Learnability"]


class Learnability:
    """A heuristic estimate of how much a prompt's next group of rollouts can teach: ``p (1 -
    p)``, the variance of its reward at success rate ``p``, which is largest for prompts solved
    half the time and small for those always or never solved.

    ``p`` is a smoothed rate, ``(wins + 0.5) / (tries + 1)``, over two kinds of evidence: the
    ``prior`` (label -> ``(wins, tries)``, such as the benchmark filter's tries of the SFT
    model), scaled down to at most ``prior_tries`` tries because the policy moves away from
    the model it measured; and the rewards of the prompt's last ``window`` rollouts in GRPO.

    Why: at seed 0 a pilot of the learning benchmark drew the rarely solved "set" prompt
    SKU-110-rw2 once in 16 steps, its group passed 3 times in 8, and the prompt was never drawn
    again; the kind's other draws went to prompts that failed every rollout, and the held-out
    "set" wording was not learnt. Here such a group makes the prompt about six times as likely
    to be drawn as a prompt of the kind whose group failed every rollout. In the benchmark's
    pilots it made such prompts' successes compound at seeds 0 and 1. With groups of four it
    taught the held-out wording at seed 0 only; with one prompt × 8 at both seeds, and at seed
    1 a kind it never drew was lost (docs/training.md, "Draws by learnability"). So it is an
    option, not a default."""

    def __init__(self, prior: Mapping[str, tuple[int, int]] | None = None, *,
                 prior_tries: float = 4, window: int = 8) -> None:
        if prior_tries < 0 or window < 1:
            raise ValueError(f"prior_tries ({prior_tries}) must be >= 0 and window ({window}) "
                             ">= 1")
        self.prior: dict[str, tuple[float, float]] = {}
        for label, (wins, tries) in (prior or {}).items():
            if not 0 <= wins <= tries:
                raise ValueError(f"{label}: {wins} wins in {tries} tries")
            scale = min(1.0, prior_tries / tries) if tries else 0.0
            self.prior[label] = (wins * scale, tries * scale)
        self.window = window
        self.recent: dict[str, deque[float]] = {}

    def observe(self, label: str, rewards: Sequence[float]) -> None:
        """A group of the prompt's rollouts was scored (rewards from 0 to 1)."""
        self.recent.setdefault(label, deque(maxlen=self.window)).extend(
            min(1.0, max(0.0, float(r))) for r in rewards)

    def rate(self, label: str) -> float:
        wins, tries = self.prior.get(label, (0.0, 0.0))
        recent = self.recent.get(label, ())
        return (wins + sum(recent) + 0.5) / (tries + len(recent) + 1)

    def weight(self, label: str) -> float:
        p = self.rate(label)
        return p * (1 - p)


class FilteredSampler:
    """A ``torch.utils.data.Sampler`` over dataset indices, reading which labels are flat from
    ``flat`` (label -> reward calls since its group was flat; see ``VerifierReward``)."""

    def __init__(self, labels: Sequence[str], *, mini_repeat_count: int, batch_size: int,
                 repeat_count: int, flat: Mapping[str, int] | Callable[[], Mapping[str, int]],
                 cooldown: int = 4, seed: int = 0, groups: Sequence[str] | None = None,
                 group_floor: float = 0.0, group_every: int = 0,
                 learnability: Learnability | None = None) -> None:
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
        if group_every < 0:
            raise ValueError(f"group_every must be 0 (off) or a number of chunks, not "
                             f"{group_every}")
        self.groups = list(groups) if groups is not None else None
        self.group_floor, self.group_every = group_floor, group_every
        self.learnability = learnability
        self.drawn = dict.fromkeys(sorted(set(self.groups or ())), 0)
        self.last_drawn = dict.fromkeys(self.drawn, 0)    # chunk of each group's last draw
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
            chunk = owed + self._sample(rest, self.batch_size - len(owed))
        for i in chunk:
            if self.groups is not None:
                self.drawn[self.groups[i]] += 1
                self.last_drawn[self.groups[i]] = self.chunks
        return chunk

    def _sample(self, candidates: list[int], k: int) -> list[int]:
        """``k`` distinct indices of ``candidates``: uniformly, or by learnability within each
        group, each index weighted by its prompt's learnability over the mean of its group's
        (every index of the group, open or not), so a group's share is what it was."""
        if self.learnability is None:
            return self.rng.sample(candidates, k)
        weight = {label: self.learnability.weight(label) for label in set(self.labels)}
        group_of = self.groups or [""] * len(self.labels)
        totals: dict[str, list[float]] = {}
        for i, label in enumerate(self.labels):
            totals.setdefault(group_of[i], []).append(weight[label])
        mean = {g: sum(ws) / len(ws) for g, ws in totals.items()}
        left = list(candidates)
        weights = [weight[self.labels[i]] / mean[group_of[i]] for i in left]
        chosen: list[int] = []
        for _ in range(k):
            j = self.rng.choices(range(len(left)), weights=weights)[0]
            chosen.append(left.pop(j))
            weights.pop(j)
        return chosen

    def _owed(self, pool: list[int]) -> list[int]:
        """One prompt of each group behind its floor or not drawn in the last ``group_every``
        chunks (the fewest draws first), taken from the open prompts where it has some, else
        from all of its own."""
        if self.groups is None or not (self.group_floor or self.group_every):
            return []
        self.chunks += 1
        due = self.group_floor * self.chunks * self.batch_size
        behind = [g for g in self.drawn if self.drawn[g] < due or (
            self.group_every and self.chunks - self.last_drawn[g] >= self.group_every)]
        owed: list[int] = []
        for group in sorted(behind, key=lambda g: (self.drawn[g], g)):
            if len(owed) == self.batch_size:
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
