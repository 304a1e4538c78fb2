"""Random walks on the tool graph, executed on a private session.

Arguments come only from real upstream outputs or from rows of the session's database (or, for
free text and numbers a tool creates, from its schema). A chain is kept only if every call
succeeds, every read returns data and no call repeats; the caller replays it in a clean session
to keep only what is stable.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers import Environment, Session
from agentworld.servers.words import singular
from agentworld.servers.world.mined.columns import is_option

from .graph import ToolGraph, ToolNode

__all__ = ["Step", "Chain", "walk", "Binder"]

_TEXT = ("Follow-up from the weekly review", "Updated after the customer call",
         "Quarterly planning notes", "Requested by the operations team",
         "Adjusted per the new policy", "Confirmed with the account owner")


@dataclass(frozen=True)
class Step:
    tool: str
    arguments: dict[str, Any]
    sources: dict[str, str]           # argument -> "upstream:<tool>" | "db:<table>" | "schema"
    output: dict[str, Any]


@dataclass
class Chain:
    steps: list[Step] = field(default_factory=list)

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        return [(s.tool, s.arguments) for s in self.steps]


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _table_for(noun: str, tables: set[str]) -> str | None:
    for name in (noun + "s", noun + "es", noun[:-1] + "ies" if noun.endswith("y") else "", noun):
        if name in tables:
            return name
    return None


def _first_item(value: Any) -> Any:
    """The first element of the first non-empty list in an output (a page's newest item)."""
    if isinstance(value, list):
        return value[0] if value else None
    if isinstance(value, dict):
        for sub in value.values():
            if isinstance(sub, list) and sub and isinstance(sub[0], dict):
                return sub[0]
    return None


def _lookup(output: dict[str, Any], param: str, noun: str) -> Any:
    """A value in one output that can fill ``param`` of a tool about ``noun``."""
    for key, value in output.items():
        if key == param and param != "id" and not isinstance(value, dict | list):
            return value
        if isinstance(value, dict) and "id" in value:
            owner = singular(key)
            if param == f"{owner}_id" or (param == "id" and owner == noun):
                return value["id"]
            inner = _lookup(value, param, noun)
            if inner is not None:
                return inner
        if isinstance(value, list) and value and isinstance(value[0], dict):
            owner = singular(key)
            if param == f"{owner}_id" or (param == "id" and owner == noun):
                return value[0].get("id")
    return None


def _fit(value: Any, schema: dict[str, Any]) -> Any:
    """A value found in the database or an earlier reply, in the type the parameter declares:
    a JSON column's text is the array or object it holds, and a lone value fills a one-item
    array. None when it cannot fit."""
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if kind else set()
    if not kinds & {"array", "object"} or value is None:
        return value
    if isinstance(value, str) and value[:1] in "[{":
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if isinstance(value, list) and "array" in kinds or \
            isinstance(value, dict) and "object" in kinds:
        return value
    if "array" in kinds and not isinstance(value, list | dict):
        return [value]
    return value if "string" in kinds else None


class Binder:
    def __init__(self, session: Session, rng: random.Random) -> None:
        self.session, self.rng = session, rng
        self.tables = _tables(session.db)

    def _from_db(self, node: ToolNode, param: str) -> tuple[Any, str] | None:
        db = self.session.db
        table = None
        if param == "id":
            table, column = _table_for(node.noun, self.tables), "id"
        elif param.endswith("_id"):
            table, column = _table_for(param[:-3], self.tables), "id"
        if table is None:
            # The tool's own table first: a custom metric's display name is not a custom
            # dimension's, though both tables have the column and "dimensions" sorts first.
            own = _table_for(node.noun, self.tables)
            # update_budget(new_amount_micros) sets amount_micros: a value of that column
            names = [param] + ([param[4:]] if param.startswith("new_") else [])
            for candidate in ([own] if own else []) + sorted(self.tables - {own}):
                cols = {r[1] for r in db.execute(f'PRAGMA table_info("{candidate}")')}
                column = next((n for n in names if n in cols), None)
                if column is not None:
                    table = candidate
                    break
        if table is None:
            return None
        rows = db.execute(f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL '
                          f"ORDER BY rowid LIMIT 200").fetchall()
        if not rows:
            return None
        return self.rng.choice(rows)[0], f"db:{table}"

    def _from_schema(self, schema: dict[str, Any]) -> Any:
        rng = self.rng
        kind = schema.get("type")
        kind = kind[0] if isinstance(kind, list) else kind
        if "enum" in schema:
            return rng.choice([v for v in schema["enum"] if v is not None])
        if kind == "integer":
            low = schema.get("minimum", 1)
            return rng.randint(low, min(schema.get("maximum", low + 20), low + 20))
        if kind == "number":
            return round(rng.uniform(schema.get("minimum", 1), schema.get("maximum", 100)), 2)
        if kind == "boolean":
            return rng.random() < 0.5
        if kind == "string":
            pattern = schema.get("pattern", "")
            if pattern.startswith(r"^\d{4}-\d{2}-\d{2}"):
                day = dt.date(2026, 3, 2) + dt.timedelta(days=rng.randint(420, 460))
                return day.isoformat() + ("T10:00:00Z" if "T" in pattern else "")
            if pattern:
                return None
            text = rng.choice(_TEXT)
            return text[: schema.get("maxLength", 200)]
        return None

    def bind(self, node: ToolNode, history: list[Step]) -> tuple[dict, dict] | None:
        props = node.spec.input_schema.get("properties", {})
        args, sources = {}, {}
        for param in node.required:
            found = None
            for step in reversed(history):
                value = _lookup(step.output, param, node.noun)
                if value is not None:
                    found = (value, f"upstream:{step.tool}")
                    break
            if found is None and (param == "id" or param.endswith("_id") or "enum" not in
                                  props.get(param, {})):
                found = self._from_db(node, param)
            if found is not None:
                fitted = _fit(found[0], props.get(param, {}))
                found = (fitted, found[1]) if fitted is not None else None
            if found is None and is_option(param):
                found = _switch_value(param, props.get(param, {}))
            if found is None:
                value = self._from_schema(props.get(param, {}))
                if value is None:
                    return None
                found = (value, "schema")
            args[param], sources[param] = found
        # A switch about the call (dry_run, include_*, a token) asks for no change a verifier
        # could see: "Stop a sfx (dry run yes)" read as work that was not to happen.
        extra = [p for p in node.optional
                 if p not in ("limit", "cursor", "query") and not is_option(p)]
        wanted = 1 if (not extra or node.spec.name.startswith("update_")
                       or self.rng.random() < 0.5) else 0
        for param in self.rng.sample(extra, min(wanted, len(extra))):
            found = self._from_db(node, param) if param.endswith("_id") else None
            value = found[0] if found else self._optional_value(node, param, props[param])
            value = _fit(value, props.get(param, {}))
            if value is not None:
                args[param], sources[param] = value, found[1] if found else "schema"
        self._one_span(args, sources)
        return args, sources

    def _one_span(self, args: dict[str, Any], sources: dict[str, str]) -> None:
        """A start and an end taken from the database come from one row: drawn apart, a new
        event started on 26 November and ended on 13 November."""
        for start in list(args):
            end = start.replace("start", "end", 1)
            table = sources.get(start, "").removeprefix("db:")
            if "start" not in start or end not in args or sources.get(end) != sources[start] \
                    or not sources[start].startswith("db:"):
                continue
            rows = self.session.db.execute(
                f'SELECT "{start}", "{end}" FROM "{table}" WHERE "{start}" IS NOT NULL AND '
                f'"{end}" IS NOT NULL ORDER BY rowid LIMIT 200').fetchall()
            if rows:
                args[start], args[end] = self.rng.choice(rows)

    def _optional_value(self, node: ToolNode, param: str, schema: dict[str, Any]) -> Any:
        """A filter or a change: a value the database already holds, else one from the schema."""
        found = self._from_db(node, param)
        if found is not None and "enum" not in schema:
            return found[0]
        return self._from_schema(schema)


_GO_AHEAD = frozenset({"confirm", "confirmed", "force", "yes", "approve", "proceed"})


def _switch_value(param: str, schema: dict[str, Any]) -> tuple[Any, str] | None:
    """A required call switch set so the call does its work: its default, else on for a
    go-ahead (``confirm``, ``force``) and off for the rest (``dry_run``, ``preview``)."""
    if "default" in schema:
        return schema["default"], "schema"
    kind = schema.get("type")
    if (kind[0] if isinstance(kind, list) and kind else kind) != "boolean":
        return None
    return param.lower() in _GO_AHEAD, "schema"


def _useful(output: dict[str, Any]) -> bool:
    if "total" in output:
        return output["total"] > 0
    return any(v not in (None, [], {}, "") for v in output.values())


def walk(env: Environment, graph: ToolGraph, rng: random.Random, *, length: int,
         seed: int = 0) -> Chain | None:
    """One weighted random walk of ``length`` calls, or None when it dead-ends."""
    session = Session(env, seed=seed)
    binder = Binder(session, rng)
    chain, seen = Chain(), set()
    current: str | None = None
    try:
        for position in range(length):
            names = list(graph.nodes)
            if current and graph.edges[current] and rng.random() < 0.9:
                # Follow a parameter match: the next call consumes what this one returned.
                names = sorted(graph.edges[current])
            weights = []
            for name in names:
                w = 1.0
                if graph.nodes[name].kind == "mutation":
                    w = 3.0 if position >= length // 2 else 0.3
                weights.append(w)
            name = rng.choices(names, weights=weights)[0]
            bound = binder.bind(graph.nodes[name], chain.steps)
            if bound is None:
                return None
            args, sources = bound
            key = (name, repr(sorted(args.items())))
            if key in seen:
                return None
            seen.add(key)
            result = session.call(name, args)
            if not result.ok or not _useful(result.data):
                return None
            chain.steps.append(Step(name, args, sources, result.data))
            current = name
        return chain
    finally:
        session.close()
