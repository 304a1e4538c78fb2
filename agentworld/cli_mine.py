"""``agentworld world mine`` and ``world mine-stats``: mine real MCP servers into pinned facts."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path

__all__ = ["add_mine_commands", "default_mine_cache"]


def default_mine_cache() -> Path:
    """$AGENTWORLD_MINE_CACHE, else ~/.cache/agentworld/mine (never inside the repository)."""
    env = os.environ.get("AGENTWORLD_MINE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "agentworld" / "mine"


def _deadline(stop_at: str | None, minutes: float | None) -> float | None:
    if minutes is not None:
        return dt.datetime.now().timestamp() + minutes * 60
    if not stop_at:
        return None
    try:
        hour, minute = (int(x) for x in stop_at.split(":"))
        moment = dt.datetime.now().replace(hour=hour, minute=minute, second=0, microsecond=0)
    except ValueError as exc:
        raise SystemExit(f"--stop-at wants HH:MM, got {stop_at!r}") from exc
    return moment.timestamp()


def _names(args: argparse.Namespace) -> list[str] | None:
    from agentworld.servers.world.mine import ListingError, read_candidates

    if args.names:
        return list(args.names)
    listing = args.listing or os.environ.get("AGENTWORLD_MINE_LISTING")
    if not listing:
        return None            # mine whatever the cache already holds
    try:
        found = read_candidates(listing, contains=args.contains, since=args.since, limit=args.limit)
    except ListingError as exc:
        raise SystemExit(f"error: {exc}") from exc
    return [c.name for c in found]


def cmd_mine(args: argparse.Namespace) -> int:
    from agentworld.servers.world.mine import (
        DownloadCache,
        derive,
        mine_entries,
        mine_stats,
        stats_markdown,
        write_snapshot,
    )

    if args.workers < 1 or args.extract_workers < 1:
        raise SystemExit("error: --workers and --extract-workers must be at least 1")
    names = _names(args)
    cache = DownloadCache(args.cache_dir or default_mine_cache(),
                          index_url=args.index_url or os.environ.get("PIP_INDEX_URL")
                          or "https://pypi.org/simple")
    if names is not None and not args.no_download:
        cache.download_all(names, workers=args.workers, retry_failed=args.retry_failed,
                           deadline=_deadline(args.stop_at, args.minutes),
                           progress=not args.quiet)
    entries = cache.entries()
    chosen = [entries[n.lower()] for n in names if n.lower() in entries] if names is not None \
        else list(entries.values())
    records = derive(mine_entries(chosen, cache.files, workers=args.extract_workers,
                                  progress=not args.quiet, memo=cache.root / "mined.jsonl"))
    path = write_snapshot(records, args.snapshot) if args.snapshot else None
    stats = mine_stats(records)
    print(stats_markdown(stats) if args.markdown else json.dumps(stats, indent=2))
    if path:
        print(f"snapshot: {path} ({len(records)} packages)", file=sys.stderr)
    return 0


def cmd_mine_stats(args: argparse.Namespace) -> int:
    from agentworld.servers.world.mine import (
        DEFAULT_SNAPSHOT,
        SnapshotError,
        load_snapshot,
        mine_stats,
        stats_markdown,
    )

    try:
        records = load_snapshot(args.snapshot or DEFAULT_SNAPSHOT)
    except SnapshotError as exc:
        raise SystemExit(f"error: {exc}") from exc
    if args.list:
        _print_list(records, args.category)
        return 0
    stats = mine_stats(records)
    print(stats_markdown(stats) if args.markdown else json.dumps(stats, indent=2))
    return 0


def _print_list(records, category: str | None) -> None:
    """One line per selected server: what the next stage compiles."""
    print("name\tversion\tl2\ttools\tverb_ratio\tentities")
    for r in records:
        if r.selected and (category is None or category in (r.l1, r.l2)):
            entities = ",".join(r.fit.get("entities", [])[:8])
            print(f"{r.name}\t{r.version}\t{r.l2}\t{len(r.tools)}\t{r.fit.get('verb_ratio')}\t"
                  f"{entities}")


def add_mine_commands(world_sub) -> None:
    """Register ``mine`` and ``mine-stats`` under ``agentworld world``."""
    p = world_sub.add_parser("mine", help="download MCP server packages and read their tools")
    p.add_argument("names", nargs="*", help="package names (default: from --listing)")
    p.add_argument("--listing", help="registry listing TSV (default: $AGENTWORLD_MINE_LISTING); "
                   "without names or listing, mine what the cache holds")
    p.add_argument("--contains", default="mcp", help="substring a candidate's name must contain")
    p.add_argument("--since", default="", help="latest release in or after YYYY-MM")
    p.add_argument("--limit", type=int, default=None, help="first N candidates in sample order")
    p.add_argument("--cache-dir",
                   help="default: $AGENTWORLD_MINE_CACHE or ~/.cache/agentworld/mine")
    p.add_argument("--index-url", help="simple index for source distributions")
    p.add_argument("--workers", type=int, default=8, help="downloads in parallel")
    p.add_argument("--extract-workers", type=int, default=1, help="processes reading archives")
    p.add_argument("--stop-at", help="start no download after HH:MM (local time)")
    p.add_argument("--minutes", type=float, help="start no download after this many minutes")
    p.add_argument("--retry-failed", action="store_true")
    p.add_argument("--no-download", action="store_true", help="only mine what is cached")
    p.add_argument("--snapshot", help="write the pinned snapshot here (.jsonl or .jsonl.gz)")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_mine)

    p = world_sub.add_parser("mine-stats", help="the numbers of a pinned mining snapshot")
    p.add_argument("--snapshot", help="default: the snapshot shipped with the package")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--list", action="store_true", help="the selected servers, one per line")
    p.add_argument("--category", help="with --list: only this top- or second-level category")
    p.set_defaults(func=cmd_mine_stats)
