"""The learning benchmark on a CUDA device: the same four arms, held-out groups, evaluation and
JSON as ``bench/train_learning.py``, with TRL's GRPO trainer on the GPU and a larger budget
(more GRPO steps, every held-out task, 8 samples). Prints the JSON on stdout as well.

    python bench/train_learning_gpu.py                   # writes train_learning.gpu.json
    python bench/train_learning_gpu.py --grpo-steps 60   # any train_learning.py option
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_learning import RESULTS, main  # noqa: E402

GPU_DEFAULTS = ["--device", "cuda", "--threads", "8", "--train-stride", "1", "--held-out", "0",
                "--catalog-per-env", "4", "--samples", "8", "--grpo-steps", "40",
                "--grpo-pool", "0", "--generations", "8", "--sft-epochs", "3",
                # The recipe as run on the H200: two prompts a step, uniform draws, no floor.
                "--prompts-per-step", "2", "--grpo-draw-floor", "0", "--no-grpo-learnability",
                "--grpo-kind-every", "0",
                "--out", str(RESULTS / "train_learning.gpu.json"), "--print-json"]


def _require_cuda() -> None:
    import torch

    if not torch.cuda.is_available():
        print("error: no CUDA device (this script is the GPU recipe; use "
              "bench/train_learning.py on a CPU)", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    _require_cuda()
    # Later options win: the caller's override these defaults.
    sys.exit(main([*GPU_DEFAULTS, *sys.argv[1:]]))
