"""The trainer commands: ``train`` (GRPO with TRL or OpenRLHF), ``sft`` and ``eval``.

Tasks come from the catalog (the shipped, synthesized and imported environments, with the
generated task sets of ``--task-dir``); ``--envs`` also takes ``package.module:NAME`` for an
environment under development. Without ``--hub-url`` a hub process on a free loopback port
serves the same catalog for the run, over HTTP (``--in-process-hub``: from a thread instead).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = ["add_train_commands"]


def _catalog(args: argparse.Namespace):
    from agentworld.trainer.errors import LaunchError
    from agentworld.trainer.hub_process import build_catalog

    try:
        return build_catalog(args.envs, task_dir=args.task_dir)
    except LaunchError as exc:
        raise SystemExit(f"error: {exc}") from None


def _tasks(args: argparse.Namespace, catalog, ids):
    from agentworld.trainer.tasks import collect_tasks

    splits = None if args.split == "all" else args.split.split(",")
    return collect_tasks(catalog, ids, splits=splits, limit_per_env=args.limit_per_env,
                         tool_view=args.tool_view)


@contextlib.contextmanager
def _hub(args: argparse.Namespace, catalog) -> Iterator[str]:
    """The run's hub: ``--hub-url``, else a hub process started for the run (over HTTP), else
    (``--in-process-hub``) one served from a thread of this process."""
    if args.hub_url:
        yield args.hub_url
        return
    if args.in_process_hub:
        from agentworld.trainer.hub_runner import serve_hub

        with serve_hub(catalog) as url:
            yield url
        return
    from agentworld.trainer.hub_process import spawn_hub

    with spawn_hub(args.envs, task_dir=args.task_dir) as url:
        yield url


def _token(args: argparse.Namespace) -> str | None:
    return args.token or os.environ.get("AGENTWORLD_TOKEN") or None


def cmd_eval(args: argparse.Namespace) -> int:
    from agentworld.trainer.evaluate import evaluate_sync
    from agentworld.trainer.policies import make_policy

    catalog, ids = _catalog(args)
    tasks = _tasks(args, catalog, ids)
    policy = make_policy(args.policy, max_new_tokens=args.max_new_tokens, seed=args.seed,
                         api_key=os.environ.get("OPENAI_API_KEY"), tool_view=args.tool_view)
    with _hub(args, catalog) as url:
        report = evaluate_sync(policy, tasks, url, token=_token(args),
                               concurrency=args.concurrency)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.table())
    return 0


def cmd_sft(args: argparse.Namespace) -> int:
    from agentworld.trainer.models import load_policy
    from agentworld.trainer.sft import SFTConfig, reference_transcripts, train_sft

    catalog, ids = _catalog(args)
    transcripts = reference_transcripts(catalog, _tasks(args, catalog, ids))
    if not transcripts:
        print("error: no task has a reference solution the verifier accepts", file=sys.stderr)
        return 2
    model, tokenizer = load_policy(args.model)
    result = train_sft(model, tokenizer, transcripts,
                       SFTConfig(epochs=args.epochs, learning_rate=args.lr,
                                 batch_size=args.batch_size),
                       out_dir=args.output, log=lambda e: print(json.dumps(e), flush=True))
    print(json.dumps({"output": args.output, "examples": result.examples,
                      "steps": result.steps, "seconds": round(result.seconds, 1),
                      "final_loss": result.losses[-1] if result.losses else None}))
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    if not 0 <= args.ptx_coef < float("inf") or args.ptx_per_step < 1:
        print("error: --ptx-coef must be 0 or more and --ptx-per-step at least 1",
              file=sys.stderr)
        return 2
    if args.ptx_coef and args.backend == "openrlhf":
        print("error: --ptx-coef is the TRL backend's; OpenRLHF takes its own --pretrain_data "
              "and --ptx_coef", file=sys.stderr)
        return 2
    args.lr_set = args.lr is not None
    if not args.lr_set:
        args.lr = 1e-5
    return _train_openrlhf(args) if args.backend == "openrlhf" else _train_trl(args)


def _train_trl(args: argparse.Namespace) -> int:
    from agentworld.trainer.models import load_policy
    from agentworld.trainer.sft import reference_transcripts
    from agentworld.trainer.trl_backend import GRPORunConfig, train_grpo

    catalog, ids = _catalog(args)
    tasks = _tasks(args, catalog, ids)
    demonstrations = reference_transcripts(catalog, tasks) if args.ptx_coef else []
    if args.ptx_coef and not demonstrations:
        print("error: --ptx-coef needs tasks with a reference solution the verifier accepts",
              file=sys.stderr)
        return 2
    model, tokenizer = load_policy(args.model)
    cfg = GRPORunConfig(output_dir=args.output, steps=args.steps,
                        num_generations=args.num_generations,
                        prompts_per_step=args.prompts_per_step, learning_rate=args.lr,
                        lr_scheduler=args.lr_schedule, warmup_ratio=args.warmup_ratio,
                        beta=args.kl, max_completion_length=args.max_completion_length,
                        max_turns=args.max_turns, use_cpu=not args.gpu,
                        dynamic_filtering=not args.no_dynamic_filtering,
                        ptx_coef=args.ptx_coef, ptx_per_step=args.ptx_per_step)
    with _hub(args, catalog) as url:
        run = train_grpo(model, tokenizer, tasks, url, cfg, token=_token(args),
                         ptx_transcripts=demonstrations,
                         log=lambda p: print(json.dumps(p), flush=True))
    print(json.dumps({"output": run.model_dir, "seconds": round(run.seconds, 1),
                      "rollouts": len(run.history), "ptx_sequences": run.ptx_sequences,
                      "curve": run.curve,
                      "max_completion_length": run.max_completion_length}))
    return 0


def _train_openrlhf(args: argparse.Namespace) -> int:
    from agentworld.trainer.openrlhf_backend import (
        OpenRLHFConfig,
        build_command,
        launch,
        write_dataset,
    )

    catalog, ids = _catalog(args)
    dataset = Path(args.dataset_dir or Path(args.output) / "dataset")
    tasks = _tasks(args, catalog, ids)
    counts = write_dataset(tasks, dataset)
    model = args.model
    if model == "smollm2":
        from agentworld.trainer.models import smollm2_dir

        model = str(smollm2_dir())
    # OpenRLHF's own defaults where ours are for the CPU (lr) or absent (the reply budget).
    cfg = OpenRLHFConfig(model=model, dataset=str(dataset), output_dir=args.output,
                         n_samples_per_prompt=args.num_generations,
                         learning_rate=args.lr if args.lr_set else 1e-6,
                         kl_coef=args.kl, gpus=args.gpus, vllm_engines=args.vllm_engines,
                         max_new_tokens=args.max_completion_length or 512,
                         max_len=args.max_len, episodes=args.episodes,
                         attn_implementation=args.attn_implementation,
                         dynamic_filtering=not args.no_dynamic_filtering)
    cmd = build_command(cfg, rows=len([t for t in tasks if t.split == "train"]) or len(tasks))
    if args.hub_replicas:
        # The hub's replicas go on the Ray cluster OpenRLHF runs on (docs/cluster.md).
        from agentworld.trainer.ray_hub import with_ray_hub

        try:
            cmd = with_ray_hub(cmd, replicas=args.hub_replicas)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    hub_url = args.hub_url or "http://127.0.0.1:8000"
    print(json.dumps({"dataset": str(dataset), "rows": counts}), file=sys.stderr)
    print(f"AGENTWORLD_HUB_URL={shlex.quote(hub_url)} "
          f"AGENTWORLD_TOOL_VIEW={shlex.quote(args.tool_view)} {shlex.join(cmd)}")
    if not args.launch:
        return 0
    if not args.hub_url and not args.hub_replicas:
        print("error: --launch needs --hub-url (a hub the Ray workers can reach)",
              file=sys.stderr)
        return 2
    return launch(cmd, hub_url=hub_url, token=_token(args), tool_view=args.tool_view)


def _common(p: argparse.ArgumentParser, *, split: str) -> None:
    p.add_argument("--envs", nargs="+", required=True,
                   help="environment ids, or package.module:NAME definitions")
    p.add_argument("--split", default=split, help="train, eval, test, long_horizon, "
                                                  "comma-separated, or all")
    p.add_argument("--limit-per-env", type=int, default=None)
    p.add_argument("--task-dir", help="generated task sets (default: the cache's tasks/)")
    p.add_argument("--hub-url", help="a running hub (default: a hub process started for this "
                                     "run)")
    p.add_argument("--in-process-hub", action="store_true",
                   help="serve the hub from a thread of this process instead")
    p.add_argument("--token", help="the hub's bearer token (default: $AGENTWORLD_TOKEN)")
    p.add_argument("--tool-view", default="full",
                   help="how tools are shown: full, compact (types only), full:N or compact:N "
                        "(the N tools most relevant to the task)")


def add_train_commands(sub) -> None:
    p = sub.add_parser("train", help="GRPO on the hub's tasks (TRL on CPU/GPU, OpenRLHF on GPU)")
    _common(p, split="train")
    p.add_argument("--backend", choices=["trl", "openrlhf"], default="trl")
    p.add_argument("--model", default="smollm2", help="smollm2 or a model directory")
    p.add_argument("--output", default="runs/grpo")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--num-generations", type=int, default=4, help="samples per prompt")
    p.add_argument("--prompts-per-step", type=int, default=2)
    p.add_argument("--lr", type=float, default=None,
                   help="learning rate (default: 1e-5 for TRL, 1e-6 for OpenRLHF)")
    p.add_argument("--lr-schedule", default="constant_with_warmup",
                   help="TRL: a transformers scheduler name (constant_with_warmup, linear, "
                        "cosine, ...)")
    p.add_argument("--warmup-ratio", type=float, default=0.0)
    p.add_argument("--kl", type=float, default=0.0,
                   help="KL coefficient (0: no KL term and no reference model)")
    p.add_argument("--max-completion-length", type=int, default=None,
                   help="TRL: tokens after the prompt, tool results included (default: measured "
                        "from the tasks' reference solutions); OpenRLHF: one reply's budget "
                        "(default 512)")
    p.add_argument("--max-turns", type=int, default=None,
                   help="TRL: tool-calling rounds (default: the tasks' step limit)")
    p.add_argument("--no-dynamic-filtering", action="store_true",
                   help="keep drawing prompts whose rollouts all score the same")
    p.add_argument("--ptx-coef", type=float, default=0.0,
                   help="TRL: weight of an SFT term on the tasks' reference solutions in each "
                        "step's loss (0: none); keeps the kinds of task GRPO draws rarely "
                        "(docs/training.md)")
    p.add_argument("--ptx-per-step", type=int, default=2,
                   help="TRL: demonstrations in the SFT term of each step")
    p.add_argument("--max-len", type=int, default=8192,
                   help="OpenRLHF: prompt plus response tokens (longer prompts are cut)")
    p.add_argument("--episodes", type=int, default=None,
                   help="OpenRLHF: passes over the data (default: enough for 20 optimizer "
                        "steps)")
    p.add_argument("--attn-implementation", default="sdpa",
                   help="OpenRLHF: sdpa, or flash_attention_2 when flash-attn is installed")
    p.add_argument("--gpu", action="store_true", help="TRL: train on the GPU")
    p.add_argument("--gpus", type=int, default=1, help="OpenRLHF: GPUs per node")
    p.add_argument("--vllm-engines", type=int, default=1, help="OpenRLHF: vLLM engines")
    p.add_argument("--dataset-dir", help="OpenRLHF: where to write the dataset")
    p.add_argument("--launch", action="store_true", help="OpenRLHF: run the printed command")
    p.add_argument("--hub-replicas", type=int, default=0,
                   help="OpenRLHF: start this many hub replicas on the trainer's Ray cluster "
                        "(instead of --hub-url; docs/cluster.md)")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("sft", help="SFT warm start on the tasks' reference solutions")
    _common(p, split="train")
    p.add_argument("--model", default="smollm2")
    p.add_argument("--output", default="runs/sft")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--batch-size", type=int, default=4)
    p.set_defaults(func=cmd_sft)

    p = sub.add_parser("eval", help="a policy on a task split: success and partial credit")
    _common(p, split="eval")
    p.add_argument("--policy", default="oracle",
                   help="oracle, random, noop, smollm2, hf:PATH, openai:BASE_URL#MODEL "
                        "(key: $OPENAI_API_KEY)")
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--concurrency", type=int, default=None,
                   help="episodes at a time (default: 8; a local model batches them)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_eval)
