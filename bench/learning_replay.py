"""Does the learning benchmark replay? Trains its SFT arm once, then runs the GRPO task filter
(sampled episodes at T=1, which decide the prompts GRPO trains on) three times on the same
weights: twice as the benchmark batches episodes and once in smaller batches.

Before sampling was seeded per request (``trainer/seeded_sampling.py``), two runs of seed 0 with
identical SFT losses found 9 and 2 mixed prompts of 16. Each run here should find the same ones
with the same successes.

    python bench/learning_replay.py          # about 10 minutes on two cores

Writes ``bench/results/learning_replay.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import train_learning as bench  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def run(args: argparse.Namespace) -> dict:
    import torch

    from agentworld.trainer.hub_process import spawn_hub
    from agentworld.trainer.models import smollm2_dir
    from agentworld.trainer.sft import SFTConfig, reference_transcripts, train_sft

    settings = bench._args(["--seed", str(args.seed)])
    torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    catalog, train, grpo_prompts, _ = bench.task_sets(settings)
    transcripts = reference_transcripts(catalog, train)
    out: dict = {"seed": settings.seed, "filter_samples": settings.filter_samples, "runs": {}}
    with spawn_hub(bench.HUB_REFS) as url:
        model, tokenizer = bench._load(smollm2_dir(), settings.device)
        sft = train_sft(model, tokenizer, transcripts,
                        SFTConfig(epochs=settings.sft_epochs, learning_rate=settings.sft_lr,
                                  batch_size=4, seed=settings.seed))
        out["sft_loss"] = [round(x, 4) for x in sft.losses]
        for name, batch in (("first", settings.eval_batch), ("again", settings.eval_batch),
                            ("smaller batches", max(1, settings.eval_batch // 2))):
            settings.eval_batch = batch
            started = time.perf_counter()
            _, info = bench.pick_grpo_tasks(model, tokenizer, grpo_prompts, url, settings)
            info.update(batch=batch, seconds=round(time.perf_counter() - started, 1))
            out["runs"][name] = info
            print(f"{name:<16} batch {batch:>2}: {info['mixed']} mixed of {info['pool']} "
                  f"({info['seconds']} s)", flush=True)
    first = out["runs"]["first"]["successes"]
    out["identical"] = all(r["successes"] == first for r in out["runs"].values())
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(RESULTS / "learning_replay.json"))
    args = p.parse_args(argv)
    figures = run(args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(figures, indent=1))
    print(f"identical successes in every run: {figures['identical']} -> {args.out}")
    return 0 if figures["identical"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
