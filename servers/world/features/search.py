"""Search: one read-only tool that finds rows of every entity by the text of their label."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ToolContext
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import free_names, page, paging_props, rows

__all__ = ["Search"]

_TOOLS = ("search_everything",)


def _union(entities, tables: dict[str, str]) -> str:
    parts = [f"SELECT {i} AS rank, '{e.name}' AS entity, id, CAST({e.label} AS TEXT) AS label, "
             f"{'status' if e.lifecycle else 'NULL'} AS status FROM {tables[e.name]}"
             for i, e in enumerate(entities)]
    return "(" + " UNION ALL ".join(parts) + ")"


class Search:
    name = "search"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        return len(archetype.entities) > 1 and free_names(archetype, _TOOLS, ())

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        """Search reads the entities' own tables and adds none."""

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        entities = b.archetype.entities
        union = _union(entities, tables)
        names = [e.name for e in entities]
        labels = ", ".join(f"{e.plural.replace('_', ' ')} by {e.label.replace('_', ' ')}"
                           for e in entities)

        def search_everything(ctx: ToolContext, query: str, entity: str | None = None,
                              limit: int = 20, cursor: str | None = None) -> dict[str, Any]:
            escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where, params = ["label LIKE ? ESCAPE '\\'"], [f"%{escaped}%"]
            if entity is not None:
                where.append("entity = ?")
                params.append(entity)
            return page(ctx, select=union, where=where, params=params, order="rank, label, id",
                        limit=limit, cursor=cursor, key="hits",
                        out=lambda r: {k: r[k] for k in ("entity", "id", "label", "status")})

        b.tools.tool(
            name="search_everything", read_only=True,
            description=f"Find records of any kind whose name contains the text ({labels}), "
                        "ignoring case; grouped by kind, paged. Use the get_ tool of a hit's "
                        "kind for its details.",
            input=s.obj({"query": s.string("Text to find, at least 2 characters.",
                                           max_length=100, min_length=2),
                         "entity": s.enum(names, "Only records of this kind."),
                         **paging_props()}, required=["query"]),
            output=s.page_of(s.obj({"entity": s.enum(names), "id": s.string(),
                                    "label": s.nullable(s.string(max_length=500)),
                                    "status": s.nullable(s.string())}), "hits"))(
            search_everything)

        def queries(db) -> list[dict[str, Any]]:
            found = rows(db, f"SELECT label FROM {union} WHERE length(label) >= 3 "
                             "ORDER BY rank, id LIMIT 3")
            return [{"query": r["label"][:3].lower()} for r in found]

        b.probes["search_everything"] = Probe(
            queries, lambda db: [{**q, "cursor": "page-two"} for q in queries(db)],
            "VALIDATION_ERROR")
        b.add_rule(Rule("search-query-length", "A search needs at least 2 characters of text.",
                        ("search_everything",), "VALIDATION_ERROR"),
                   lambda db: [("search_everything", {"query": "a"})])
