"""The learning benchmark's GRPO arm alone, for pilots of GRPO settings in a third of the time.

It starts from the benchmark's SFT model for the seed (trained as ``train_learning.py`` trains
it and saved under ``--sft-dir`` on first use; its losses matched the run's to the four
decimals the JSON keeps), takes the prompts a finished run's filter chose (``grpo_tasks`` in
its JSON, so no filter is run), weights them as that run's flags say, runs GRPO with any of the
benchmark's flags, and evaluates on the two bench held-out groups (not the catalog, where every
arm scores 0). Compare its figures with the SFT arm of the run it started from.

    python bench/learning_pilot.py bench/results/train_learning_chance_seed1.json --seed 1 \\
        --generations 8 --prompts-per-step 1 --out bench/results/learning_pilot_g8_seed1.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import train_learning as tl  # noqa: E402

DEFAULT_SFT_DIR = Path(tempfile.gettempdir()) / "agentworld-learning-sft"


def _args(argv: list[str] | None) -> tuple[argparse.Namespace, argparse.Namespace]:
    p = argparse.ArgumentParser(description=__doc__, add_help=False,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", type=Path, help="a train_learning JSON whose chosen prompts to use")
    p.add_argument("--sft-dir", type=Path, default=DEFAULT_SFT_DIR,
                   help="where the SFT model of each seed is kept (a folder per seed)")
    own, rest = p.parse_known_args(argv)
    if "--out" not in rest:
        rest += ["--out", str(tl.RESULTS / "learning_pilot.json")]
    return own, tl._args(rest)


def chosen_prompts(run: dict, grpo_prompts: list, args: argparse.Namespace) -> list:
    """The run's chosen prompts (less its never-solved ones with ``--no-grpo-unsolved``), as
    GRPO's draw list: weighted by kind failure over the run's filter tries, or uniform."""
    picked = run["grpo_tasks"]
    by_label = {tl._label(t): t for t in grpo_prompts}
    missing = [label for label in picked["tries"] if label not in by_label]
    if missing:
        raise SystemExit(f"the run's prompts are not this benchmark's: {missing[:3]}")
    dropped = set() if args.grpo_unsolved else set(picked["unsolved_kept"])
    chosen = [by_label[label] for label in picked["chosen"] if label not in dropped]
    if args.grpo_weight != "kind-failure":
        return chosen
    pool = [by_label[label] for label in picked["tries"]]
    return tl.weight_by_kind_failure(chosen, pool, picked["successes"], picked["tries"],
                                     floor=args.grpo_kind_floor)


def sft_model(args: argparse.Namespace, sft_dir: Path, transcripts) -> Path:
    """The seed's SFT model, trained and saved on first use."""
    from agentworld.trainer.models import smollm2_dir

    out = sft_dir / f"seed{args.seed}-epochs{args.sft_epochs}-lr{args.sft_lr}"
    if not (out / "config.json").exists():
        model, tokenizer = tl._load(smollm2_dir(), args.device)
        tl.run_sft(model, tokenizer, transcripts, args, out)
    return out


def main(argv: list[str] | None = None) -> int:
    import torch

    from agentworld.trainer.hub_process import spawn_hub
    from agentworld.trainer.sft import reference_transcripts

    own, args = _args(argv)
    run = json.loads(own.run.read_text(encoding="utf-8"))
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.perf_counter()
    catalog, train, grpo_prompts, held_out = tl.task_sets(args)
    held_out.pop("catalog")
    transcripts = reference_transcripts(catalog, train)
    tasks = chosen_prompts(run, grpo_prompts, args)
    sft_dir = sft_model(args, own.sft_dir, transcripts)
    figures: dict = {"from_run": str(own.run), "seed": args.seed,
                     "argv": list(argv if argv is not None else sys.argv[1:]),
                     "draw_list": len(tasks), "sft_of_run": {
                         g: run["results"]["sft"][g] for g in held_out}}
    with spawn_hub(tl.HUB_REFS) as url, tempfile.TemporaryDirectory() as tmp:
        model, tokenizer, figures["grpo"] = tl.run_grpo(sft_dir, tasks, url, args, Path(tmp),
                                                        transcripts, run["grpo_tasks"])
        figures["sft+grpo"] = tl._evaluate(model, tokenizer, held_out, url, args, "sft+grpo")
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    args.out.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    print(f"wall {figures['wall_s']} s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
