"""The world's commands: ``build``, ``world synthesize`` and ``catalog stats``."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from agentworld.servers.paths import task_dir, template_dir

__all__ = ["add_world_commands", "default_cache_dir", "default_task_dir"]

default_cache_dir = template_dir
default_task_dir = task_dir


def cmd_build(args: argparse.Namespace) -> int:
    from agentworld.servers.world.build import build_templates
    from agentworld.servers.world.registry import pack_cards, world_ids

    ids = world_ids() if args.all else args.env_ids
    if not ids:
        print("error: name environments or pass --all")
        return 2
    unknown = sorted(set(ids) - set(world_ids()) - set(pack_cards()))
    if unknown:
        print(f"error: not synthesized environments: {', '.join(unknown[:5])}")
        return 2
    cache_dir = Path(args.cache_dir) if args.cache_dir else default_cache_dir()
    summary = build_templates(cache_dir, ids=ids, workers=args.workers,
                              progress=not args.quiet)
    summary["cache_dir"] = str(cache_dir)
    print(json.dumps(summary, indent=2))
    return 0


def cmd_synthesize(args: argparse.Namespace) -> int:
    from agentworld.servers.world.pipeline import synthesize_world

    report = synthesize_world(workers=args.workers, progress=not args.quiet, limit=args.limit)
    print(json.dumps({k: report[k] for k in ("candidates", "kept", "first_pass", "final_pass")},
                     indent=2))
    print(f"repaired: {len(report['repaired'])}, dropped: {len(report['dropped'])}")
    return 0


def cmd_mined(args: argparse.Namespace) -> int:
    from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS
    from agentworld.servers.world.cards import make_cards
    from agentworld.servers.world.mined.world import build_mined_world

    reserved = {c.id for c in make_cards()} | set(REFERENCE_ENVIRONMENTS)
    deadline = time.time() + args.minutes * 60 if args.minutes else None
    report = build_mined_world(workers=args.workers, limit=args.limit, progress=not args.quiet,
                               snapshot=args.snapshot, reserved_ids=reserved,
                               memo=Path(args.memo) if args.memo else None, deadline=deadline)
    print(json.dumps({k: v for k, v in report.items() if k not in ("environments", "failed")},
                     indent=2))
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from agentworld.servers.world.llm import synthesize_with_llm
    from agentworld.servers.world.spec_json import archetype_to_json

    try:
        result = synthesize_with_llm(endpoint=args.endpoint, model=args.model,
                                     l2=args.category, theme=args.theme,
                                     api_key=os.environ.get("OPENAI_API_KEY"))
    except (ValueError, OSError) as exc:
        print(f"error: {exc}")
        return 2
    report = result.report.to_dict()
    if args.out:
        card = {"archetype": archetype_to_json(result.archetype),
                "leaf": {"id": result.leaf.id, "title": result.leaf.title,
                         "description": result.leaf.description,
                         "archetype": result.leaf.archetype}, "filters": report}
        Path(args.out).write_text(json.dumps(card, indent=1))
    print(json.dumps(report, indent=2))
    return 0 if result.report.passed else 1


def reference_stats() -> dict[str, dict]:
    from agentworld.servers import Session, default_catalog
    from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS

    out = {}
    for env_id in REFERENCE_ENVIRONMENTS:
        env = default_catalog().load(env_id)
        db = Session(env).db
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        rows = sum(db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables)
        out[env_id] = {"tools": len(env.tools), "rows": rows, "l1": env.manifest.taxonomy.l1,
                       "l2": env.manifest.taxonomy.l2}
    return out


def cmd_stats(args: argparse.Namespace) -> int:
    from agentworld.servers.world.stats import catalog_stats, stats_markdown

    stats = catalog_stats(reference_stats())
    print(stats_markdown(stats) if args.markdown else json.dumps(stats, indent=2))
    return 0


def add_world_commands(sub) -> None:
    p = sub.add_parser("build", help="build world templates into the disk cache")
    p.add_argument("env_ids", nargs="*")
    p.add_argument("--all", action="store_true", help="every synthesized environment")
    p.add_argument("--workers", type=int, default=None, help="processes (default: CPU count)")
    p.add_argument("--cache-dir", help="default: $AGENTWORLD_CACHE_DIR or ~/.cache/agentworld")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_build)

    world = sub.add_parser("world", help="the synthesis pipeline")
    world_sub = world.add_subparsers(dest="world_command", required=True)
    p = world_sub.add_parser("synthesize", help="filter every leaf and write the world index")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--limit", type=int, default=None, help="only the first N leaves")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_synthesize)

    p = world_sub.add_parser("compile-mined", help="compile and filter every selected server "
                             "of the mined snapshot and write the mined world index")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--limit", type=int, default=None, help="only the first N candidates")
    p.add_argument("--snapshot", default=None, help="default: the pinned snapshot")
    p.add_argument("--memo", default=None, help="a JSONL file keeping every outcome, so a "
                   "rerun redoes only what is new")
    p.add_argument("--minutes", type=float, default=None, help="start no new candidate after "
                   "this many minutes; write the index from what is done")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_mined)

    p = world_sub.add_parser("generate", help="ask an OpenAI-compatible endpoint for a card")
    p.add_argument("--endpoint", required=True, help="API base, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", required=True)
    p.add_argument("--category", required=True, help="a second-level category, e.g. Lodging")
    p.add_argument("--theme", required=True, help="the service, e.g. 'a marina berth booking'")
    p.add_argument("--out", help="write the card and its filter report here (JSON)")
    p.set_defaults(func=cmd_generate)

    from agentworld.cli_mine import add_mine_commands
    add_mine_commands(world_sub)
    from agentworld.cli_audit import add_audit_command
    add_audit_command(world_sub)

    catalog = sub.add_parser("catalog", help="the catalog as a whole")
    catalog_sub = catalog.add_subparsers(dest="catalog_command", required=True)
    p = catalog_sub.add_parser("stats", help="counts, diversity and filter pass rates")
    p.add_argument("--markdown", action="store_true", help="markdown instead of JSON")
    p.set_defaults(func=cmd_stats)
