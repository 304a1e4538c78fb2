"""Our hub serving the shared SQLite workload (run: python _agentworld_hub.py --port P).

The same app and server options as ``agentworld hub``; only the catalog differs: it holds the
benchmark environment, whose two tools are the workload's SELECT and UPDATE, with schemas, so
every call pays our full path (validation, savepoint, trajectory).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _workload  # noqa: E402
import uvicorn  # noqa: E402

from agentworld.hub.app import create_app  # noqa: E402
from agentworld.hub.memory import limit_malloc_arenas  # noqa: E402
from agentworld.hub.settings import HubSettings  # noqa: E402
from agentworld.servers import (  # noqa: E402
    Catalog,
    DataSource,
    EnvironmentDefinition,
    Manifest,
    Taxonomy,
    Toolset,
)
from agentworld.servers import schema as s  # noqa: E402

ENV_ID = "sqlbench"
ITEM = s.obj({"id": s.integer(), "name": s.string(), "value": s.integer(), "note": s.string()})
tools = Toolset()


@tools.tool(description="Read one item by id.", read_only=True,
            input=s.obj({"id": s.integer(minimum=1)}), output=s.obj({"item": ITEM}))
def get_item(ctx, id):
    return _workload.select(ctx.db, id)


@tools.tool(description="Set an item's value.", idempotent=True,
            input=s.obj({"id": s.integer(minimum=1), "value": s.integer()}),
            output=s.obj({"id": s.integer(), "value": s.integer()}))
def set_value(ctx, id, value):
    return _workload.update(ctx.db, id, value)


DEFINITION = EnvironmentDefinition(
    manifest=Manifest(
        id=ENV_ID, version="1.0.0", title="SQL benchmark", rules=(),
        description="The peer benchmark's 1,000-row table.",
        taxonomy=Taxonomy("Data Storage & Databases", "Relational", "Benchmark table"),
        data_sources=(DataSource("generated", "CC0-1.0", "Generated rows."),)),
    schema_sql=_workload.SCHEMA, seed=_workload.seed, tools=tools, tasks=())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-sessions", type=int, default=4096)
    args = parser.parse_args()
    catalog = Catalog(modules={})
    catalog.add(DEFINITION)
    settings = HubSettings(port=args.port, max_sessions=args.max_sessions)
    limit_malloc_arenas()  # as `agentworld hub` does
    uvicorn.run(create_app(catalog, settings=settings), host="127.0.0.1", port=args.port,
                ws_max_size=settings.max_request_bytes, ws_per_message_deflate=False,
                log_level="warning")


if __name__ == "__main__":
    main()
