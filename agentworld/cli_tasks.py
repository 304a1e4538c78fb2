"""The task commands: ``tasks generate``, ``tasks stats`` and ``tasks export``."""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from pathlib import Path

from .cli_world import default_cache_dir, default_task_dir

__all__ = ["add_task_commands"]


def _catalog():
    from agentworld.servers.catalog import Catalog
    from agentworld.servers.paths import import_dir

    imports = [import_dir()] if import_dir().is_dir() else []
    return Catalog(world=True, cache_dir=default_cache_dir(), import_dirs=imports)


def _imported_ids(ids: list[str]) -> list[str]:
    from agentworld.servers.paths import import_dir

    return [i for i in ids if (import_dir() / i / "environment.json").is_file()]


def cmd_generate(args: argparse.Namespace) -> int:
    from agentworld.servers.taskgen.run import generate_all

    catalog = _catalog()
    ids = catalog.ids() if args.all else args.env_ids
    unknown = [i for i in ids if i not in catalog]
    catalog.close()
    if not ids or unknown:
        print(f"error: name environments or pass --all (unknown: {', '.join(unknown[:5])})")
        return 2
    task_dir = Path(args.task_dir) if args.task_dir else default_task_dir()
    llm = ({"endpoint": args.llm_endpoint, "model": args.llm_model}
           if args.llm_endpoint and args.llm_model else None)
    imported = _imported_ids(ids)
    summary = generate_all([i for i in ids if i not in imported], task_dir,
                           cache_dir=default_cache_dir(), workers=args.workers,
                           progress=not args.quiet, llm=llm)
    if imported:
        # Imported tools run in this process's sandbox pool, one environment at a time.
        from agentworld.servers.imported.graph import generate_imported_tasks
        from agentworld.servers.paths import import_dir

        counts = generate_imported_tasks(import_dir(), imported, task_dir)
        summary = {**summary, "imported": counts,
                   "tasks": summary.get("tasks", 0) + sum(counts.values())}
    print(json.dumps({**summary, "task_dir": str(task_dir)}, indent=2))
    return 0


def task_stats(task_dir: Path) -> dict:
    from agentworld.servers.taskgen.store import TaskStore

    store = TaskStore(task_dir)
    per_env, splits, kinds, levels, dropped = {}, Counter(), Counter(), Counter(), Counter()
    shapes, audit_dropped = Counter(), Counter()
    long_lengths, long_tools, candidates = [], [], 0
    for env_id in store.env_ids():
        records = store.load(env_id) or []
        report = store.report(env_id) or {}
        per_env[env_id] = len(records)
        candidates += report.get("candidates", 0)
        dropped.update(report.get("dropped", {}))
        audit_dropped.update(report.get("audit_dropped", {}))
        for record in records:
            splits[record.split] += 1
            kinds[record.kind] += 1
            levels[record.difficulty] += 1
            if record.kind == "programmatic":
                shapes[record.metadata.get("template") or "unnamed"] += 1
            if record.split == "long_horizon":
                long_lengths.append(len(record.reference_calls))
                long_tools.append(len({name for name, _ in record.reference_calls}))
    counts = list(per_env.values())
    return {
        "environments": len(per_env), "tasks": sum(counts),
        "min_per_env": min(counts) if counts else 0,
        "envs_under_10": sorted(e for e, n in per_env.items() if n < 10),
        "splits": dict(splits), "kinds": dict(kinds), "difficulty": dict(levels),
        "programmatic_shapes": dict(shapes.most_common()),
        "long_horizon": {"tasks": len(long_lengths),
                         "mean_reference_calls": round(statistics.mean(long_lengths), 1)
                         if long_lengths else 0,
                         "mean_distinct_tools": round(statistics.mean(long_tools), 2)
                         if long_tools else 0},
        "gates": {"candidates": candidates, "kept": sum(counts), "dropped": dict(dropped),
                  "audit_dropped": dict(audit_dropped)},
    }


def cmd_stats(args: argparse.Namespace) -> int:
    task_dir = Path(args.task_dir) if args.task_dir else default_task_dir()
    stats = task_stats(task_dir)
    if args.json:
        print(json.dumps(stats, indent=2))
        return 0
    print(f"{stats['tasks']} tasks in {stats['environments']} environments "
          f"(at least {stats['min_per_env']} each; under 10: {len(stats['envs_under_10'])})")
    print("splits:", ", ".join(f"{k} {v}" for k, v in sorted(stats["splits"].items())))
    print("kinds:", ", ".join(f"{k} {v}" for k, v in sorted(stats["kinds"].items())))
    print("difficulty:", ", ".join(f"{k} {v}" for k, v in sorted(stats["difficulty"].items())))
    shapes = stats["programmatic_shapes"]
    print(f"programmatic shapes ({len(shapes)}):",
          ", ".join(f"{k} {v}" for k, v in shapes.items()))
    lh = stats["long_horizon"]
    print(f"long-horizon: {lh['tasks']} tasks, mean reference length "
          f"{lh['mean_reference_calls']} calls, mean distinct tools "
          f"{lh['mean_distinct_tools']}")
    g = stats["gates"]
    print(f"gates: {g['candidates']} candidates, {g['kept']} kept, dropped by gate: "
          f"{g['dropped'] or 'none'}")
    print(f"dropped by the verifier audit: {g['audit_dropped'] or 'none'}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from agentworld.servers.taskgen.audit_run import audit_environments, print_table
    from agentworld.servers.taskgen.store import TaskStore

    catalog = _catalog()
    ids = catalog.ids() if args.all else args.env_ids
    unknown = [i for i in ids if i not in catalog]
    if not ids or unknown:
        print(f"error: name environments or pass --all (unknown: {', '.join(unknown[:5])})")
        return 2
    store = TaskStore(Path(args.task_dir) if args.task_dir else default_task_dir())
    report = audit_environments(catalog, ids, store=store, progress=not args.json,
                                seed=args.seed)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from agentworld.servers.taskgen.export import export_tasks, task_row
    from agentworld.servers.taskgen.store import TaskStore

    store = TaskStore(Path(args.task_dir) if args.task_dir else default_task_dir())
    catalog = _catalog()
    rows: dict[str, list] = {}
    for env_id in store.env_ids():
        if env_id not in catalog:
            continue
        env = catalog.load(env_id)
        for record in store.load(env_id) or []:
            rows.setdefault(record.split, []).append(task_row(
                record, env_title=env.manifest.title, tool_names=env.tools.names()))
    try:
        counts = export_tasks(rows, Path(args.out), fmt=args.format)
    except ImportError as exc:
        print(f"error: {args.format} export needs pyarrow (pip install 'agentworld[train]'): "
              f"{exc}")
        return 2
    print(json.dumps({"out": args.out, "rows": counts}, indent=2))
    return 0


def add_task_commands(sub) -> None:
    tasks = sub.add_parser("tasks", help="verifiable tasks: generate, stats, audit, export")
    tasks_sub = tasks.add_subparsers(dest="tasks_command", required=True)
    p = tasks_sub.add_parser("generate", help="generate task sets (resumable)")
    p.add_argument("env_ids", nargs="*")
    p.add_argument("--all", action="store_true")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--task-dir", help="default: $AGENTWORLD_CACHE_DIR/tasks")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--llm-endpoint", help="word graph tasks with an OpenAI-compatible model")
    p.add_argument("--llm-model")
    p.set_defaults(func=cmd_generate)

    p = tasks_sub.add_parser("stats", help="tasks per environment, splits, gate report")
    p.add_argument("--task-dir")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = tasks_sub.add_parser("audit", help="mutation-test every task's verifier")
    p.add_argument("env_ids", nargs="*")
    p.add_argument("--all", action="store_true")
    p.add_argument("--task-dir")
    p.add_argument("--json", action="store_true")
    p.add_argument("--seed", type=int, default=1,
                   help="which variants to draw (generation gates with seed 0)")
    p.set_defaults(func=cmd_audit)

    p = tasks_sub.add_parser("export", help="write a dataset for verl, OpenRLHF or datasets")
    p.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    p.add_argument("--out", required=True)
    p.add_argument("--task-dir")
    p.set_defaults(func=cmd_export)
