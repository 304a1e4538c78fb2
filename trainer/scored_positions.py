"""GRPO's log-probabilities computed over the completion tokens only, on every device.

TRL's fused LM head (``trl.trainer.utils.add_fused_lm_head``) projects hidden states onto the
vocabulary in tiles and folds each tile into per-token log-probabilities. On a device with
Triton it projects only the positions that carry a label, the completion; anywhere else it
projects every position, the prompt included, and zeroes the prompt's afterwards, because fixed
tile shapes spare a compiling backend a recompilation per batch. On a CPU in eager mode nothing
recompiles, and the prompt (system prompt, tool schemas, the request) is most of a rollout's
tokens. In a GRPO step of SmolLM2-135M on 2 cores (8 rollouts, py-spy), the projection onto its
49,152 tokens and that projection's backward took 39% of the step, the policy's forward and the
reference model's forward both included.

:func:`completion_positions_only` makes TRL take its compact path on every device while it is
active. The log-probabilities are the same: each position's row of the projection does not
depend on which other rows are projected.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["completion_positions_only"]


@contextmanager
def completion_positions_only() -> Iterator[bool]:
    """While active, TRL's fused LM head scores only labelled positions on any device. Yields
    whether it could: ``False`` on a TRL without the switch, which then runs unchanged."""
    try:
        from trl.trainer import utils
    except ImportError:
        yield False
        return
    original = getattr(utils, "_use_triton", None)
    if original is None:
        yield False
        return
    # In trl.trainer.utils this name only picks the compact path; the kernel module keeps its
    # own binding, so the tiles are still folded in torch where Triton cannot run.
    utils._use_triton = lambda device: True
    try:
        yield True
    finally:
        utils._use_triton = original
