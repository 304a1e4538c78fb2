"""The self-evolution commands: ``agentworld evolve`` runs (or resumes) the arena's rounds into a
run directory; ``agentworld evolve report RUN_DIR`` prints its summary table and where the plots
and diagnoses are."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["add_evolve_commands"]


def _config(args: argparse.Namespace):
    from agentworld.trainer.arena import ArenaConfig

    return ArenaConfig(
        rounds=args.rounds, policy=args.policy, trainer=args.trainer, seed=args.seed,
        categories=tuple(args.categories or ()), envs=tuple(args.envs or ()),
        envs_per_category=args.envs_per_category, eval_tasks_per_env=args.eval_tasks,
        weak_envs=args.weak_envs, train_tasks_per_env=args.train_tasks,
        complexify=args.complexify, max_steps=args.max_steps, train_steps=args.train_steps,
        sft_epochs=args.sft_epochs, grpo_max_tokens=args.grpo_max_tokens or None,
        max_new_tokens=args.max_new_tokens,
        analyzer="llm" if args.analyzer_endpoint else "rules",
        analyzer_endpoint=args.analyzer_endpoint, analyzer_model=args.analyzer_model,
        hub_url=args.hub_url, in_process=args.in_process, tool_view=args.tool_view,
        panel_tasks_per_env=args.panel_tasks, panel_max_calls=args.panel_max_calls,
        recheck_tasks_per_env=args.recheck_tasks)


def cmd_evolve(args: argparse.Namespace) -> int:
    if args.evolve_command == "report":
        return cmd_report(args)
    if not args.out:
        print("error: --out RUN_DIR is required", file=sys.stderr)
        return 2
    from agentworld.servers.catalog import Catalog
    from agentworld.servers.paths import import_dir
    from agentworld.trainer.arena import Arena, ArenaWorld
    from agentworld.trainer.errors import TrainerError

    from .cli_world import default_cache_dir

    imports = [import_dir()] if import_dir().is_dir() else []  # what `agentworld import` wrote
    world = ArenaWorld(Catalog(world=True, cache_dir=default_cache_dir(), import_dirs=imports))
    try:
        arena = Arena(args.out, _config(args), world=world,
                      log=lambda m: print(m, file=sys.stderr, flush=True))
        rounds = arena.run()
    except (TrainerError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return _print_report(Path(args.out), rounds, as_json=False)


def _print_report(run_dir: Path, rounds, *, as_json: bool) -> int:
    from agentworld.trainer.arena.report import summary_table

    if as_json:
        print(json.dumps(rounds, indent=2))
        return 0
    if not rounds:
        print(f"{run_dir}: no finished round yet")
        return 1
    print(summary_table(rounds))
    last = rounds[-1]
    print("\nsuccess per top-level category:")
    for cat in sorted({c for m in rounds for c in m["by_l1"]}):
        cells = "  ".join(f"r{m['round']} {m['by_l1'].get(cat, {}).get('success', 0):>4.0%}"
                          if cat in m["by_l1"] else f"r{m['round']}    -" for m in rounds)
        print(f"  {cat:<38} {cells}")
    print("\nweak environments (held-out tasks, before -> after the round's training):")
    for m in rounds:
        for w in m["weak_env_recheck"]:
            before = "-" if w["before"] is None else f"{w['before']:.0%}"
            after = "-" if w["after"] is None else f"{w['after']:.0%}"
            print(f"  round {m['round']} #{w['rank']} {w['env_id']:<40} {before:>4} -> {after}")
    guidelines = run_dir / f"round-{last['round']:03d}" / "guidelines.json"
    if guidelines.exists():
        print(f"\nround {last['round']} guidelines:")
        for note in json.loads(guidelines.read_text(encoding="utf-8"))["notes"]:
            print(f"  - {note}")
    print(f"\nsummary: {run_dir / 'summary.md'}; plots: {run_dir / 'plots'}; "
          f"per round: {run_dir}/round-NNN/diagnosis.md")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from agentworld.trainer.arena import load_rounds
    from agentworld.trainer.arena.report import write_summary

    run_dir = Path(args.run_dir)
    if not (run_dir / "config.json").exists():
        print(f"error: {run_dir} is not an arena run directory", file=sys.stderr)
        return 2
    rounds = load_rounds(run_dir)
    if rounds:
        write_summary(run_dir, rounds)
    return _print_report(run_dir, rounds, as_json=args.json)


def add_evolve_commands(sub) -> None:
    p = sub.add_parser("evolve", help="the self-evolution arena: evaluate, diagnose, synthesize, "
                                      "train, round after round (resumable)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--policy", default="scripted-fail:cancel_,update_",
                   help="scripted-fail:PREFIXES, scripted-oracle, smollm2, hf:PATH, "
                        "openai:BASE_URL#MODEL, oracle, random, noop")
    p.add_argument("--trainer", default="scripted-practice",
                   choices=["scripted-practice", "sft", "trl-grpo", "none"])
    p.add_argument("--out", help="the run directory (resumed when it exists)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--categories", nargs="+", help="top-level categories (default: all 20)")
    p.add_argument("--envs", nargs="+", help="a fixed pool of environments instead")
    p.add_argument("--envs-per-category", type=int, default=1)
    p.add_argument("--eval-tasks", type=int, default=3, help="fresh evaluation tasks per env")
    p.add_argument("--weak-envs", type=int, default=4, help="weak envs that get training tasks")
    p.add_argument("--train-tasks", type=int, default=6, help="training tasks per weak env")
    p.add_argument("--complexify", type=int, default=2,
                   help="how many of the weakest get a richer database")
    p.add_argument("--max-steps", type=int, default=None, help="episode step limit")
    p.add_argument("--train-steps", type=int, default=4, help="optimizer steps (trl-grpo)")
    p.add_argument("--sft-epochs", type=int, default=1,
                   help="trl-grpo: SFT epochs on the round's reference solutions before GRPO "
                        "(a base model solves nothing, so GRPO alone gets no signal); 0: none")
    p.add_argument("--grpo-max-tokens", type=int, default=1024,
                   help="trl-grpo: cap on a rollout's tokens after the prompt (replies and tool "
                        "results; the budget measured from the tasks is used when smaller); "
                        "0: no cap")
    p.add_argument("--max-new-tokens", type=int, default=96)
    p.add_argument("--analyzer-endpoint", help="an OpenAI-compatible endpoint for the LLM "
                                               "analyzer (rule-based only when absent)")
    p.add_argument("--analyzer-model", default=None)
    p.add_argument("--hub-url", help="play evaluations on this hub (it must serve the arena's "
                                     "catalog); default: one served over HTTP on a free "
                                     "loopback port for each evaluation")
    p.add_argument("--in-process", action="store_true",
                   help="play without a hub (no HTTP), in this process")
    p.add_argument("--tool-view", default="compact:8",
                   help="how model policies see tools: full, compact, full:N, compact:N")
    p.add_argument("--panel-tasks", type=int, default=2,
                   help="fixed evaluation panel tasks per environment, played every round")
    p.add_argument("--panel-max-calls", type=int, default=None,
                   help="panel tasks solved in this many calls at most (a panel within a small "
                        "model's reach); default: any length")
    p.add_argument("--recheck-tasks", type=int, default=6,
                   help="tasks per weak environment played before and after training")
    p.set_defaults(func=cmd_evolve, evolve_command=None)
    inner = p.add_subparsers(dest="evolve_command")
    r = inner.add_parser("report", help="print a run directory's summary table")
    r.add_argument("run_dir")
    r.add_argument("--json", action="store_true", help="every round's metrics as JSON")
    r.set_defaults(func=cmd_evolve)
