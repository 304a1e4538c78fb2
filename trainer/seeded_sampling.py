"""Sampling that does not depend on how concurrent episodes were batched.

``generate(do_sample=True)`` draws every row of a batch from torch's one global generator, so a
row's tokens depend on which other rows shared its batch and in what order: the same evaluation
run twice on the same weights sampled different episodes (seed 0 of the learning benchmark found
9 tasks with mixed results in one run and 2 in the next). Here each request draws from its own
generator, seeded by the run's seed, the request's tokens and how many identical requests came
before it. Requests with the same tokens come from episodes that are so far identical, so which
of them gets which stream does not change the set of episodes a run plays.

What is left: a row's logits can differ in the last bits between batch shapes (padding, matrix
sizes), which flips a draw only when it lands within that much of a boundary between tokens.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

__all__ = ["RequestStreams", "SeededSampler"]


class RequestStreams:
    """Gives each generation request a seed of its own: a hash of ``seed``, the request's
    tokens and the number of identical requests seen before it."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._seen: Counter[bytes] = Counter()

    def next_seed(self, ids: Sequence[int]) -> int:
        key = hashlib.blake2b(b",".join(str(t).encode() for t in ids), digest_size=16).digest()
        occurrence = self._seen[key]
        self._seen[key] += 1
        digest = hashlib.blake2b(key + f"|{self.seed}|{occurrence}".encode(),
                                 digest_size=8).digest()
        return int.from_bytes(digest, "big") >> 1       # torch seeds are signed 64-bit


class SeededSampler:
    """A logits processor (``generate(logits_processor=[...])``) that samples each row at
    ``temperature`` with the row's own generator and leaves only the drawn token possible, so
    greedy decoding (``do_sample=False``) emits it.

    Raises:
        ValueError: ``temperature`` is not positive, or the batch has more or fewer rows than
            there are seeds.
    """

    def __init__(self, seeds: Sequence[int], temperature: float) -> None:
        import torch

        if temperature <= 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        self.temperature = temperature
        self.generators = [torch.Generator().manual_seed(s) for s in seeds]

    def __call__(self, input_ids, scores):
        import torch

        if scores.shape[0] != len(self.generators):
            raise ValueError(f"{scores.shape[0]} rows for {len(self.generators)} seeds")
        probs = torch.softmax(scores.float() / self.temperature, dim=-1).cpu()
        drawn = [int(torch.multinomial(row, 1, generator=g)) for row, g in
                 zip(probs, self.generators, strict=True)]
        out = torch.full_like(scores, float("-inf"))
        out[torch.arange(len(drawn)), torch.tensor(drawn, device=scores.device)] = 0.0
        return out
