"""Compile one mined server (a snapshot record) into an ordinary environment definition.

The real surface is kept: tool names, parameter names and types, required fields and enums.
Behind it sits the entity model the surface implies (``model.py``), seeded tables
(``seed.py``) and one honest operation per tool (``ops.py``). Where fewer than ``MIN_TOOLS``
tools can be kept, completion tools for the server's own entities are added and counted apart.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers.environment import EnvironmentDefinition
from agentworld.servers.manifest import Manifest, Taxonomy
from agentworld.servers.tools import RESERVED_TOOL_NAMES, Toolset
from agentworld.servers.words import singular, words
from agentworld.servers.world.compile import CompiledEnvironment
from agentworld.servers.world.data import SOURCES, region, regions
from agentworld.servers.world.spec import Archetype, Entity, Field, Lifecycle, ThemeCard, Transition

from .model import Binding, Drop, MinedModel, build_model
from .ops import Table, add_tool
from .packs import borrow
from .probes import probe_for, rules_for
from .seed import seed_tables, table_ddl

__all__ = ["compile_mined", "env_id_for", "MIN_TOOLS", "MinedCompiled"]

MIN_TOOLS = 10
MIN_KEPT_FOR_TOP_UP = 6      # a smaller kept surface is not a service worth completing
_NAME_NOISE = frozenset("mcp server servers py python fastmcp tool tools sdk api plugin "
                        "integration client".split())
_REPUBLISHERS = ("iflow-mcp-", "mseep-", "mcp-server-", "mcparmory-")
_TITLE_NOISE = frozenset("get list create update delete set add remove search the and for "
                         "with".split())
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class MinedCompiled(CompiledEnvironment):
    """A compiled environment that knows what each tool does (its binding) and the tables
    behind them: task synthesis writes requests from them."""

    bindings: tuple[Binding, ...] = ()
    tables: dict[str, Table] = field(default_factory=dict)     # entity name -> table


def env_id_for(package: str) -> str:
    name = package.lower()
    for prefix in _REPUBLISHERS:
        if name.startswith(prefix) and len(name) > len(prefix) + 2:
            name = name[len(prefix):]
    parts = [p for p in re.split(r"[^a-z0-9]+", name) if p and p not in _NAME_NOISE]
    return "-".join(parts) or re.sub(r"[^a-z0-9]+", "-", package.lower()).strip("-")


def _title(env_id: str) -> str:
    return " ".join(w.upper() if len(w) <= 3 and w.isalpha() and w not in ("the", "and", "for")
                    else w.capitalize() for w in env_id.split("-"))


def _prefixes(model: MinedModel) -> dict[str, str]:
    """Id prefixes unique per table: pro_ for projects, prf_ for profiles."""
    out: dict[str, str] = {}
    for name in sorted(model.entities):
        letters = re.sub(r"[^a-z]", "", name) or "row"
        candidates = [letters[:3], letters[0] + letters[-2:], letters[:2] + letters[-1],
                      letters[:4], letters[:5], letters]
        out[name] = next((c for c in candidates if c not in out.values()),
                         f"{letters[:3]}{len(out)}")
    return out


def _legal(b: Binding) -> bool:
    return (b.tool not in RESERVED_TOOL_NAMES and _IDENT.match(b.tool.replace("-", "_").replace(
        ".", "_")) is not None and all(_IDENT.match(p["name"]) for p in b.params)
        and len({p["name"].lower() for p in b.params}) == len(b.params))


def _top_up(model: MinedModel, kept: list[Binding], barred: set[str]) -> list[Binding]:
    """Completion tools for the server's own entities, until it has MIN_TOOLS tools."""
    have = {b.tool for b in kept} | {t for t in barred}
    added: list[Binding] = []
    if len(kept) < MIN_KEPT_FOR_TOP_UP:
        return added
    uses = Counter(b.entity for b in kept)
    # Only the server's real business objects: nouns at least two of its own tools work on.
    ranked = sorted((e for e in model.entities.values() if uses[e.name] >= 2),
                    key=lambda e: (-uses[e.name], e.name))
    for e in ranked:
        key = [{"name": f"{e.name}_id", "type": "integer" if e.integer_ids else "string",
                "required": True}]
        labels = [{"name": e.label, "type": "string", "required": True}]
        for tool, op, params, columns in (
                (f"list_{e.plural}", "list", [{"name": "limit", "type": "integer",
                                               "required": False}], {}),
                (f"get_{e.name}", "get", key, {}),
                (f"create_{e.name}", "create", labels, {e.label: e.label}),
                (f"update_{e.name}", "update", key + [{**labels[0], "required": False}],
                 {e.label: e.label}),
                (f"count_{e.plural}", "count", [], {})):
            if len(kept) + len(added) >= MIN_TOOLS:
                return added
            if tool in have or e.columns.get(e.label) is None or \
                    e.columns[e.label].kind not in ("text", "name"):
                continue
            b = Binding(tool, op, e.name, params, verb=tool.split("_")[0],
                        key=key[0]["name"] if op in ("get", "update") else "",
                        columns=dict(columns), origin="added")
            if op == "list":
                b.paging = {"limit": "limit"}
            added.append(b)
            have.add(tool)
    return added


def _archetype(env_id: str, model: MinedModel, order: list[Table]) -> Archetype:
    """The spec view of the model, for tools that read archetypes (the data audit)."""
    kinds = {"key": "code", "url": "text", "phone": "text", "datetime": "text", "json": "text",
             "city": "pool", "country": "pool", "currency": "pool", "company": "pool"}
    entities = []
    for table in order:
        e = table.entity
        fields = tuple(Field(n, kinds.get(c.kind, c.kind), values=c.values, ref=c.ref,
                             source=c.kind if kinds.get(c.kind) == "pool" else "",
                             min=c.minimum, max=c.maximum, required=False, unique=c.unique)
                       for n, c in e.columns.items())
        lifecycle = None
        if e.states:
            lifecycle = Lifecycle(tuple(e.states), e.initial, tuple(
                Transition(tool, sources, target, "") for tool, (sources, target)
                in e.moves.items()))
        entities.append(Entity(e.name, e.plural, e.label, fields, count=e.count,
                               lifecycle=lifecycle))
    primary = order[-1].entity.name if order else ""
    person = next((t.entity.name for t in order if t.entity.person), "")
    return Archetype(f"mined:{env_id}", "", env_id, "", tuple(entities), primary, person)


def compile_mined(record: dict[str, Any], *, env_id: str | None = None,
                  exclude: dict[str, str] | None = None) -> MinedCompiled:
    """Compile a snapshot record; ``exclude`` maps tools to leave out to the reason (a filter
    they failed). Raises ValueError when nothing of the surface can be compiled."""
    env_id = env_id or env_id_for(record["name"])
    exclude = exclude or {}
    tools = [t for t in record["tools"] if t["name"] not in exclude]
    model = build_model(record["name"], tools)
    borrow(model, record.get("l2", ""))
    legal = [b for b in model.bindings if _legal(b)]
    dropped = list(model.dropped) + [Drop(b.tool, "its name or a parameter name is not a plain "
                                              "identifier") for b in model.bindings
                                     if not _legal(b)]
    dropped += [Drop(name, reason) for name, reason in exclude.items()]
    if not legal:
        raise ValueError(f"{record['name']}: no tool could be compiled")
    added = _top_up(model, legal, set(exclude) | {t['name'] for t in record['tools']})
    bindings = legal + added
    prefixes = _prefixes(model)
    tables = {name: Table(e, prefixes[name]) for name, e in model.entities.items()}
    order = [tables[e.name] for e in model.order()]
    refs_to: dict[str, list[tuple[Table, str]]] = {}
    for t in order:
        for n, c in t.entity.columns.items():
            if c.kind == "ref":
                refs_to.setdefault(c.ref, []).append((t, n))
    toolset = Toolset()
    probes = {}
    for b in bindings:
        add_tool(toolset, b, tables[b.entity], tables, refs_to.get(b.entity, []))
        probes[b.tool] = probe_for(b, tables[b.entity], refs_to.get(b.entity, []))
    rules = rules_for(bindings, tables, refs_to)
    digest = int.from_bytes(hashlib.blake2b(env_id.encode(), digest_size=4).digest(), "big")
    region_code = regions()[digest % len(regions())]
    card = ThemeCard(id=env_id, title=_surface_title(env_id, model, legal),
                     description=_description(record, model, order),
                     l1=record.get("l1", ""), l2=record.get("l2", ""), l3=_title(env_id),
                     archetype=f"mined:{record['name']}", features=(), region=region_code,
                     seed=digest)

    def seed(conn: sqlite3.Connection) -> None:
        seed_tables(conn, order, region(region_code), digest)

    provenance = {
        "package": record["name"], "version": record["version"], "sha256": record["sha256"],
        "licence": record.get("licence", ""), "registry": "pypi", "file": record.get("file", ""),
        "kept": [b.tool for b in legal], "added": [b.tool for b in added],
        "dropped": [{"tool": d.tool, "reason": d.reason} for d in dropped]}
    manifest = Manifest(
        id=env_id, version=record["version"], title=card.title, description=card.description,
        taxonomy=Taxonomy(card.l1, card.l2, card.l3), rules=tuple(r.rule for r in rules),
        data_sources=tuple(SOURCES[n] for n in ("people", "cities", "countries", "rates",
                                                "companies")),
        tags=("provenance:mined", f"package:{record['name']}", f"region:{region_code}"),
        bookkeeping=("*.updated_at",), provenance=provenance)
    definition = EnvironmentDefinition(
        manifest=manifest, schema_sql="\n\n".join(table_ddl(t, tables) for t in order),
        seed=seed, tools=toolset)
    return MinedCompiled(card, _archetype(env_id, model, order), definition, tuple(rules),
                         probes, {b.tool: "added" for b in added}, tuple(bindings), tables)


def _surface_title(env_id: str, model: MinedModel, kept: list[Binding]) -> str:
    """The package's name, followed by what the service mostly keeps (``Fujitsu SDT
    (simulations)``) when the name alone says nothing about its tools."""
    base = _title(env_id)
    tool_words = {singular(w) for b in kept for w in words(b.tool) if len(w) > 2}
    if {singular(w) for w in words(env_id) if len(w) > 2} & tool_words - _TITLE_NOISE:
        return base
    main = Counter(b.entity for b in kept if b.entity).most_common(1)
    if not main:
        return base
    return f"{base} ({model.entities[main[0][0]].plural.replace('_', ' ')})"


def _description(record: dict[str, Any], model: MinedModel, order: list[Table]) -> str:
    nouns = [t.entity.plural.replace("_", " ") for t in order][-4:]
    listing = ", ".join(nouns[:-1]) + (" and " if len(nouns) > 1 else "") + nouns[-1]
    return (f"A simulated {_title(env_id_for(record['name']))} service with the tool surface of "
            f"the MCP server {record['name']} {record['version']} on PyPI: {listing}, in a "
            "seeded database whose rules the tools enforce.")
