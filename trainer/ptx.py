"""An SFT term beside GRPO's loss: InstructGPT's "PPO-ptx", OpenRLHF's ``--ptx_coef``.

GRPO moves the policy only on the kinds of task it draws. On the learning benchmark the kinds it
drew rarely drifted while it taught the one it drew most: a reward for "set the stock" taught
"write", and the policy began writing on price questions and passing an extra argument to
``complete_item`` (docs/training.md). The KL anchor covers only the rollouts' own tokens, so it
cannot hold a kind with four rollouts in a run. The demonstrations can: each optimizer step
also takes the negative log-likelihood of a few SFT examples, weighted by ``coef``.

The examples are taken in a seeded shuffled order, a fresh shuffle on each pass. The NLL is
projected through the LM head at the labelled positions only (the assistant's replies), which
is what ``scored_positions.py`` does for GRPO's own log-probabilities and SFT does in
:func:`~agentworld.trainer.sft.labelled_nll`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["PtxStream"]


class PtxStream:
    """Encoded SFT examples ``(input_ids, labels)`` drawn in turn for the ptx term."""

    def __init__(self, examples: Sequence[tuple[list[int], list[int]]], *, coef: float,
                 per_step: int, seed: int = 0) -> None:
        examples = [(ids, lab) for ids, lab in examples if any(t != -100 for t in lab[1:])]
        if coef <= 0 or per_step < 1:
            raise ValueError(f"ptx needs coef > 0 and per_step >= 1 (got {coef}, {per_step})")
        if not examples:
            raise ValueError("ptx needs at least one example with a labelled reply")
        self.examples, self.coef, self.per_step = list(examples), coef, per_step
        self._rng = random.Random(seed)
        self._order: list[int] = []
        self.sequences = 0
        self.losses: list[float] = []

    def next_example(self) -> tuple[list[int], list[int]]:
        if not self._order:
            self._order = list(range(len(self.examples)))
            self._rng.shuffle(self._order)
        self.sequences += 1
        return self.examples[self._order.pop()]

    def nll(self, model, example: tuple[list[int], list[int]]):
        """Mean NLL of ``example``'s labelled tokens under ``model`` (a causal LM)."""
        import torch

        from .sft import labelled_nll

        ids, labels = example
        device = next(model.parameters()).device
        return labelled_nll(model, torch.tensor([ids], device=device), None,
                            torch.tensor([labels], device=device))

    def due(self, micro_step: int, micro_steps: int) -> int:
        """Examples to take at micro-step ``micro_step`` of ``micro_steps`` in an optimizer
        step: ``per_step`` in all, spread evenly."""
        def upto(k: int) -> int:
            return (k * self.per_step) // micro_steps
        return upto(micro_step + 1) - upto(micro_step)

    def backward(self, model, n: int, backward) -> float:
        """Take ``n`` examples, call ``backward`` on each one's weighted NLL (``coef / per_step``
        times it, so an optimizer step adds ``coef`` times the mean NLL); the NLLs' sum."""
        total = 0.0
        for _ in range(n):
            loss = self.nll(model, self.next_example())
            backward(loss * (self.coef / self.per_step))
            total += float(loss.detach())
            self.losses.append(round(float(loss.detach()), 4))
        return total
