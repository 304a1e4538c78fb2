"""The ``agentworld`` command: list environments, inspect one, serve one, call a tool once,
import a release."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from agentworld.servers import (
    Catalog,
    Environment,
    EnvironmentDefinition,
    Session,
    UnknownEnvironmentError,
)
from agentworld.servers.catalog import configured_catalog
from agentworld.servers.errors import RuntimeFault
from agentworld.servers.paths import import_dir, task_dir

from .cli_evolve import add_evolve_commands
from .cli_tasks import add_task_commands
from .cli_train import add_train_commands
from .cli_world import add_world_commands

__all__ = ["main"]

DEFAULT_IMPORT_DIR = "~/.agentworld/imported"


def _catalog() -> Catalog:
    """The shipped environments, plus the imported ones when the import directory exists."""
    return configured_catalog()


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def cmd_envs(args: argparse.Namespace) -> int:
    rows = []
    for summary in _catalog().summaries():
        tax = summary["taxonomy"]
        if args.category and args.category.lower() not in (tax["l1"].lower(), tax["l2"].lower()):
            continue
        rows.append({"id": summary["id"], "title": summary["title"], "category": tax["l1"],
                     "subcategory": tax["l2"], "theme": tax["l3"]})
    if args.json:
        _print_json(rows)
        return 0
    for row in rows:
        print(f"{row['id']:<40} {row['title']:<44} {row['category']} > {row['subcategory']}")
    print(f"{len(rows)} environments")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    env = _load(args.env_id)
    if args.json:
        _print_json(env.describe())
        return 0
    m = env.manifest
    print(f"{m.title} ({m.id} {m.version})\n{m.description}\n")
    print(f"Taxonomy: {m.taxonomy.l1} > {m.taxonomy.l2} > {m.taxonomy.l3}\n\nTools:")
    for spec in env.tools:
        flag = "read-only" if spec.annotations.read_only else (
            "destructive" if spec.annotations.destructive else "writes")
        print(f"  {spec.name:<32} [{flag}] {spec.description.splitlines()[0]}")
    print("\nBusiness rules:")
    for rule in m.rules:
        print(f"  {rule.id}: {rule.text} ({rule.code})")
    print("\nData sources:")
    for src in m.data_sources:
        print(f"  {src.name} ({src.licence}): {src.description}")
    return 0


def _load(env_ref: str, catalog: Catalog | None = None) -> Environment:
    """A catalog id, or ``package.module:NAME`` for an environment under development.

    Only the CLI accepts module references: the hub never imports what a request names.
    """
    if ":" not in env_ref:
        return (catalog or _catalog()).load(env_ref)
    module_name, _, attr = env_ref.partition(":")
    try:
        definition = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownEnvironmentError(env_ref) from exc
    if not isinstance(definition, EnvironmentDefinition):
        raise UnknownEnvironmentError(env_ref)
    return Environment(definition)


def cmd_serve(args: argparse.Namespace) -> int:
    from agentworld.servers.serve import serve_http, serve_stdio

    env = _load(args.env_id)
    if args.transport == "stdio":
        serve_stdio(env, seed=args.seed)
    else:
        serve_http(env, host=args.host, port=args.port, seed=args.seed)
    return 0


def _positive_float(text: str) -> float:
    value = _non_negative_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (value >= 0 and value != float("inf")):
        raise argparse.ArgumentTypeError("must be a finite number >= 0")
    return value


def cmd_hub(args: argparse.Namespace) -> int:
    import uvicorn

    from agentworld.hub.app import create_app
    from agentworld.hub.memory import limit_malloc_arenas
    from agentworld.hub.settings import HubSettings

    token = args.token or os.environ.get("AGENTWORLD_TOKEN") or None
    if args.host not in ("127.0.0.1", "localhost", "::1") and token is None:
        print("warning: the hub listens beyond loopback without a token", file=sys.stderr)
    settings = HubSettings(host=args.host, port=args.port, max_sessions=args.max_sessions,
                           idle_timeout=args.idle_timeout, reap_interval=args.reap_interval,
                           inline_budget_s=args.inline_budget_ms / 1e3, token=token)
    if args.ray is not None:
        return _hub_on_ray(args, settings)
    limit_malloc_arenas()
    # WebSocket frames are bounded like request bodies. No per-message deflate: compressing
    # every frame cost more CPU than the step it carried, and rollout traffic stays inside a
    # cluster.
    uvicorn.run(create_app(_catalog(), settings=settings), host=args.host, port=args.port,
                ws_max_size=settings.max_request_bytes, ws_per_message_deflate=False,
                log_level=args.log_level)
    return 0


def _hub_on_ray(args: argparse.Namespace, settings) -> int:
    """``hub --ray``: replicas on a Ray cluster behind one entry URL (docs/cluster.md)."""
    try:
        from agentworld.hub.ray_cluster import RayHubConfig, run_ray_hub

        config = RayHubConfig(replicas=args.replicas, num_cpus=args.replica_cpus,
                              settings=settings, router_host=args.host, router_port=args.port)
        run_ray_hub(args.ray, config, catalog_factory=configured_catalog)
    except (ImportError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def cmd_call(args: argparse.Namespace) -> int:
    catalog = _catalog()
    try:
        return _call_once(args, catalog)
    finally:
        catalog.close()


def _call_once(args: argparse.Namespace, catalog: Catalog) -> int:
    env = _load(args.env_id, catalog)
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        print(f"error: arguments are not valid JSON: {exc}", file=sys.stderr)
        return 2
    session = Session(env, seed=args.seed)
    try:
        result = session.call(args.tool, arguments)
    finally:
        session.close()
    _print_json(result.payload())
    return 0 if result.ok else 1


def cmd_import(args: argparse.Namespace) -> int:
    from agentworld.servers.imported import ReleaseError, import_release

    out = Path(args.out).expanduser() if args.out else import_dir()
    try:
        report = import_release(Path(args.path), out)
    except ReleaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    ids = [e.env_id for e in report.imported]
    extra = {}
    if args.verify and ids:
        from agentworld.servers.imported.verify import verify_imported

        extra["verify"] = verify_imported(out, ids)
    if args.tasks and ids:
        from agentworld.servers.imported.graph import generate_imported_tasks

        extra["tasks"] = generate_imported_tasks(out, ids, task_dir())
    if args.json:
        _print_json({**report.to_dict(), **{k: (v.to_dict() if hasattr(v, "to_dict") else v)
                                            for k, v in extra.items()}})
    else:
        print(report.table())
        if "verify" in extra:
            print("\nFidelity against the release's harness:\n" + extra["verify"].table())
        if "tasks" in extra:
            print("\nGraph tasks: " + json.dumps(extra["tasks"]))
    if not report.environments:
        return 2
    return 0 if not report.failed else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentworld", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("envs", help="list environments")
    p.add_argument("--category", help="only this top-level or second-level category")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_envs)

    p = sub.add_parser("show", help="show an environment's manifest, tools and rules")
    p.add_argument("env_id")
    p.add_argument("--json", action="store_true", help="the manifest and tool schemas as JSON")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("serve", help="serve one environment as an MCP server")
    p.add_argument("env_id")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--seed", type=int, default=0, help="seed of every session's ids")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("hub", help="serve every environment from one process (REST, WS, MCP)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--max-sessions", type=int, default=1024)
    p.add_argument("--idle-timeout", type=float, default=600.0, help="seconds")
    p.add_argument("--reap-interval", type=_positive_float, default=5.0,
                   help="seconds between sweeps for idle sessions")
    p.add_argument("--inline-budget-ms", type=_non_negative_float, default=1.0,
                   help="calls proven faster than this run on the event loop; 0: always a thread")
    p.add_argument("--token", help="require this bearer token (default: $AGENTWORLD_TOKEN)")
    p.add_argument("--log-level", default="info")
    p.add_argument("--ray", nargs="?", const="auto", metavar="ADDRESS",
                   help="run replicas on the Ray cluster at ADDRESS ('auto': the one this "
                        "machine joined; 'local': a new single-node Ray); --host/--port are "
                        "the entry router's, --max-sessions is per replica")
    p.add_argument("--replicas", type=int, default=2, help="hub replicas (with --ray)")
    p.add_argument("--replica-cpus", type=float, default=1.0,
                   help="CPUs Ray reserves for each replica (with --ray)")
    p.set_defaults(func=cmd_hub)

    p = sub.add_parser("call", help="call one tool once on a fresh session and print the result")
    p.add_argument("env_id")
    p.add_argument("tool")
    p.add_argument("arguments", nargs="?", default="{}", help="a JSON object")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_call)

    add_world_commands(sub)
    add_task_commands(sub)
    add_train_commands(sub)
    add_evolve_commands(sub)

    p = sub.add_parser("import", help="import environments from another format")
    formats = p.add_subparsers(dest="format", required=True)
    p = formats.add_parser("agent-world", help="the Agent-World release (environment_mix/)")
    p.add_argument("path", help="the release folder, or its environment_mix/ folder")
    p.add_argument("--out", help=f"where to write them (default: $AGENTWORLD_IMPORT_DIR or "
                                 f"{DEFAULT_IMPORT_DIR})")
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.add_argument("--verify", action="store_true",
                   help="call every tool through agentworld and through the release's harness "
                        "semantics (a throwaway sandboxed process) and report the differences")
    p.add_argument("--tasks", action="store_true",
                   help="also synthesize graph tasks now (into the task store), as "
                        "'agentworld tasks generate' would")
    p.set_defaults(func=cmd_import)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except RuntimeFault as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
