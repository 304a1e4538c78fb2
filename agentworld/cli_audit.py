"""``agentworld world audit --data``: would a domain expert believe the world's data?"""

from __future__ import annotations

import argparse
import json
import random

__all__ = ["add_audit_command", "cmd_audit"]


def _ids(args: argparse.Namespace) -> list[str] | str:
    """The environment ids to audit, or an error message."""
    from agentworld.servers.world.registry import pack_cards, world_ids

    known = world_ids()
    if args.all or args.sample:
        ids = list(known)
        if args.sample:
            ids = sorted(random.Random(args.seed).sample(ids, min(args.sample, len(ids))))
        return ids
    if not args.env_ids:
        return "name environments, or pass --all or --sample N"
    # Domain-pack environments the world does not list still build, so they can be audited.
    unknown = sorted(set(args.env_ids) - set(known) - set(pack_cards()))
    if unknown:
        return f"not synthesized environments: {', '.join(unknown[:5])}"
    return list(dict.fromkeys(args.env_ids))


def _table(run, limit: int) -> str:
    from agentworld.servers.world.data_audit import RULES

    envs_with: dict[str, int] = {}
    for env in run.envs:
        for rule in env.counts:
            envs_with[rule] = envs_with.get(rule, 0) + 1
    lines = [f"{'rule':<20} {'findings':>9} {'envs':>6}  meaning", "-" * 78]
    for rule, count in run.counts.items():
        lines.append(f"{rule:<20} {count:>9} {envs_with[rule]:>6}  {RULES[rule]}")
    lines.append("-" * 78)
    lines.append(f"{'total':<20} {run.total:>9} "
                 f"{sum(1 for e in run.envs if e.counts):>6}  of {len(run.envs)} environments, "
                 f"{run.seconds:.1f} s")
    shown = run.findings[:limit]
    if shown:
        lines += ["", f"first {len(shown)} findings:"]
        lines += [f"  {f.env_id}  {f.table}  {f.row}  [{f.rule}]  {f.message}" for f in shown]
    return "\n".join(lines)


def cmd_audit(args: argparse.Namespace) -> int:
    from agentworld.servers.world.data_audit import audit_envs

    if not args.data:
        print("error: say what to audit: --data")
        return 2
    ids = _ids(args)
    if isinstance(ids, str):
        print(f"error: {ids}")
        return 2
    run = audit_envs(ids, workers=args.workers, progress=not args.quiet,
                     keep=max(args.limit, 1))
    if args.json:
        print(json.dumps(run.to_dict(limit=args.limit), indent=1, ensure_ascii=False))
    else:
        print(_table(run, args.limit))
    return 1 if run.total else 0


def add_audit_command(world_sub) -> None:
    p = world_sub.add_parser("audit", help="audit the world's seeded data and text "
                                           "(exit status 1 when anything is found)")
    p.add_argument("env_ids", nargs="*", help="synthesized environment ids")
    p.add_argument("--data", action="store_true",
                   help="the data audit: dates, states, people, ids, ranges, codes, labels, "
                        "grammar")
    p.add_argument("--all", action="store_true", help="every synthesized environment")
    p.add_argument("--sample", type=int, default=0, metavar="N",
                   help="N environments drawn at random (see --seed)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="JSON instead of a table")
    p.add_argument("--limit", type=int, default=20, metavar="N",
                   help="findings listed (default 20)")
    p.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_audit)
